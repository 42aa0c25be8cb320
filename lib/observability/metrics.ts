// Sluice's CloudWatch metrics, written as embedded metric format (EMF) JSON on stdout by
// Powertools Metrics; CloudWatch Logs turns them into metrics with no PutMetricData calls.
// Values accumulate during an invocation and are written once by `flush()`. Outside Lambda the
// helpers do nothing unless enabled (POWERTOOLS_METRICS_DISABLED=false), so the local server and
// tests do not print EMF blobs.
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { DEFAULT_SERVICE_NAME, METRIC_NAMESPACE, SluiceMetric } from './metric-names.js';

export interface MetricsOptions {
  readonly namespace?: string;
  readonly serviceName?: string;
  /** @default true inside Lambda (AWS_LAMBDA_FUNCTION_NAME set) or when POWERTOOLS_METRICS_DISABLED=false */
  readonly enabled?: boolean;
}

export class SluiceMetrics {
  /** The underlying Powertools instance, for metrics this class has no helper for. */
  readonly emf: Metrics;
  readonly enabled: boolean;

  constructor(emf: Metrics, enabled: boolean) {
    this.emf = emf;
    this.enabled = enabled;
  }

  /** One committed append: a RecordBatch of `records` records and `bytes` bytes. */
  appended(records: number, bytes: number, appendLatencyMs: number): void {
    this.add(SluiceMetric.RecordsIn, MetricUnit.Count, records);
    this.add(SluiceMetric.BytesIn, MetricUnit.Bytes, bytes);
    this.add(SluiceMetric.AppendLatency, MetricUnit.Milliseconds, appendLatencyMs);
  }

  /** One fetch response. */
  fetched(records: number, bytes: number): void {
    this.add(SluiceMetric.RecordsOut, MetricUnit.Count, records);
    this.add(SluiceMetric.BytesOut, MetricUnit.Bytes, bytes);
  }

  /** Segments deleted by a retention pass. */
  retentionDeleted(segments: number, bytes: number): void {
    this.add(SluiceMetric.RetentionDeletedSegments, MetricUnit.Count, segments);
    this.add(SluiceMetric.RetentionDeletedBytes, MetricUnit.Bytes, bytes);
  }

  serverError(): void {
    this.add(SluiceMetric.ServerErrors, MetricUnit.Count, 1);
  }

  retriableRefusal(): void {
    this.add(SluiceMetric.RetriableRefusals, MetricUnit.Count, 1);
  }

  /** Emits Powertools' ColdStart metric on the first invocation of this process only. */
  coldStart(): void {
    if (this.enabled) this.emf.captureColdStartMetric();
  }

  /** Writes the stored values as one EMF line; call once at the end of every invocation. */
  flush(): void {
    if (this.enabled && this.emf.hasStoredMetrics()) this.emf.publishStoredMetrics();
  }

  private add(name: string, unit: (typeof MetricUnit)[keyof typeof MetricUnit], value: number): void {
    if (this.enabled) this.emf.addMetric(name, unit, value);
  }
}

export function createMetrics(options: MetricsOptions = {}, env: NodeJS.ProcessEnv = process.env): SluiceMetrics {
  const enabled =
    options.enabled ?? (env.POWERTOOLS_METRICS_DISABLED !== undefined
      ? env.POWERTOOLS_METRICS_DISABLED === 'false'
      : Boolean(env.AWS_LAMBDA_FUNCTION_NAME));
  const emf = new Metrics({
    namespace: options.namespace ?? (env.POWERTOOLS_METRICS_NAMESPACE || METRIC_NAMESPACE),
    serviceName: options.serviceName ?? (env.POWERTOOLS_SERVICE_NAME || DEFAULT_SERVICE_NAME),
  });
  return new SluiceMetrics(emf, enabled);
}

/** The process-wide metrics: handlers and lib code record through this one instance. */
export const metrics: SluiceMetrics = createMetrics();
