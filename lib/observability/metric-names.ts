// Names of Sluice's own CloudWatch metrics (embedded metric format, namespace `Sluice`, one
// dimension: `service`). Kept free of runtime imports so the CDK dashboard can share them with
// the handlers without pulling Powertools into the synth.
export const METRIC_NAMESPACE = 'Sluice';

/** Default Powertools `service` name (and dimension value) when POWERTOOLS_SERVICE_NAME is unset. */
export const DEFAULT_SERVICE_NAME = 'sluice';

export const SluiceMetric = {
  /** Records appended (acknowledged) by produce. */
  RecordsIn: 'RecordsIn',
  /** RecordBatch bytes appended by produce. */
  BytesIn: 'BytesIn',
  /** Records returned by fetch. */
  RecordsOut: 'RecordsOut',
  /** Key and value bytes of the records returned by fetch. */
  BytesOut: 'BytesOut',
  /** Milliseconds one append request spends in the log layer: the intake object PUT and the STATE updates. */
  AppendLatency: 'AppendLatency',
  /** Whole segments deleted by retention. */
  RetentionDeletedSegments: 'RetentionDeletedSegments',
  /** Bytes of the segments deleted by retention. */
  RetentionDeletedBytes: 'RetentionDeletedBytes',
  /** Operations that ended in a 500 or threw (unexpected failures, not Kafka-style refusals). */
  ServerErrors: 'ServerErrors',
  /** Operations refused with a retriable 503 or 429 (REQUEST_TIMED_OUT, THROTTLING): the client retries. */
  RetriableRefusals: 'RetriableRefusals',
} as const;

export type SluiceMetricName = (typeof SluiceMetric)[keyof typeof SluiceMetric];
