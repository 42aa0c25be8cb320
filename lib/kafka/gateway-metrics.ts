// The gateway's metrics: per API, requests, errors (answered with an error code or no answer at
// all) and latency; open connections; TLS handshakes that failed; and the produce batching windows
// written (requests, partitions, bytes, records per window and the write's latency: what batching
// buys, and what it costs in latency). Kept in memory (stats(), which tests and logs read) and
// published every `publishIntervalMs` as CloudWatch EMF (per-API ones with an `api` dimension),
// since a long-running gateway has no Lambda invocation whose end flushes them.
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { SluiceMetrics } from '../observability/metrics.js';
import { SluiceMetric } from '../observability/metric-names.js';
import type { ProduceBatcher, ProduceWindow } from './produce-batcher.js';

export interface ApiStats {
  requests: number;
  errors: number;
  totalLatencyMs: number;
  maxLatencyMs: number;
}

/** Sums over the produce windows written. */
export interface ProduceWindowStats {
  windows: number;
  requests: number;
  partitions: number;
  bytes: number;
  records: number;
  totalLatencyMs: number;
  maxLatencyMs: number;
}

export interface GatewayStats {
  readonly connections: number;
  readonly connectionsOpened: number;
  /** TLS clients disconnected before or during their handshake (wrong CA, not TLS, timed out). */
  readonly tlsHandshakeErrors: number;
  readonly apis: Readonly<Record<string, Readonly<ApiStats>>>;
  readonly produceWindows: Readonly<ProduceWindowStats>;
}

const noWindows = (): ProduceWindowStats => ({ windows: 0, requests: 0, partitions: 0, bytes: 0, records: 0, totalLatencyMs: 0, maxLatencyMs: 0 });

export class GatewayMetrics {
  private connections = 0;
  private connectionsOpened = 0;
  private tlsHandshakeErrors = 0;
  private tlsHandshakeErrorsInInterval = 0;
  private readonly total = new Map<string, ApiStats>();
  private readonly interval = new Map<string, ApiStats>();
  private readonly windowsTotal = noWindows();
  private windowsInterval = noWindows();

  constructor(private readonly metrics: SluiceMetrics) {}

  connectionOpened(): void {
    this.connections++;
    this.connectionsOpened++;
  }

  connectionClosed(): void {
    this.connections--;
  }

  tlsHandshakeError(): void {
    this.tlsHandshakeErrors++;
    this.tlsHandshakeErrorsInInterval++;
  }

  /** One request of `api` answered (or not) after `latencyMs`; `failed` when it carried an error. */
  request(api: string, latencyMs: number, failed: boolean): void {
    for (const map of [this.total, this.interval]) {
      let s = map.get(api);
      if (!s) map.set(api, (s = { requests: 0, errors: 0, totalLatencyMs: 0, maxLatencyMs: 0 }));
      s.requests++;
      if (failed) s.errors++;
      s.totalLatencyMs += latencyMs;
      s.maxLatencyMs = Math.max(s.maxLatencyMs, latencyMs);
    }
  }

  /** One produce window written by the gateway's batcher. */
  produceWindow(w: ProduceWindow): void {
    for (const s of [this.windowsTotal, this.windowsInterval]) {
      s.windows++;
      s.requests += w.requests;
      s.partitions += w.partitions;
      s.bytes += w.bytes;
      s.records += w.records;
      s.totalLatencyMs += w.latencyMs;
      s.maxLatencyMs = Math.max(s.maxLatencyMs, w.latencyMs);
    }
  }

  /** Counts every window `batcher` writes from now on; returns what stops it. */
  watch(batcher: ProduceBatcher): () => void {
    return batcher.onWindowWritten((w) => this.produceWindow(w));
  }

  stats(): GatewayStats {
    return {
      connections: this.connections,
      connectionsOpened: this.connectionsOpened,
      tlsHandshakeErrors: this.tlsHandshakeErrors,
      apis: Object.fromEntries([...this.total].map(([k, v]) => [k, { ...v }])),
      produceWindows: { ...this.windowsTotal },
    };
  }

  /** Writes the interval's values as EMF (one line per API and metric) and starts a new interval. */
  publish(): void {
    const emit = (name: string, unit: (typeof MetricUnit)[keyof typeof MetricUnit], value: number, api?: string): void => {
      const single = this.metrics.emf.singleMetric();
      if (api !== undefined) single.addDimension('api', api);
      single.addMetric(name, unit, value);
    };
    if (this.metrics.enabled) {
      emit(SluiceMetric.KafkaConnections, MetricUnit.Count, this.connections);
      // Only when there were any: a plain-TCP gateway has no handshakes to count.
      if (this.tlsHandshakeErrorsInInterval > 0) emit(SluiceMetric.KafkaTlsHandshakeErrors, MetricUnit.Count, this.tlsHandshakeErrorsInInterval);
      for (const [api, s] of this.interval) {
        emit(SluiceMetric.KafkaRequests, MetricUnit.Count, s.requests, api);
        emit(SluiceMetric.KafkaRequestErrors, MetricUnit.Count, s.errors, api);
        emit(SluiceMetric.KafkaRequestLatency, MetricUnit.Milliseconds, s.totalLatencyMs / s.requests, api);
      }
      const w = this.windowsInterval;
      if (w.windows > 0) {
        emit(SluiceMetric.KafkaProduceWindows, MetricUnit.Count, w.windows);
        emit(SluiceMetric.KafkaProduceWindowRequests, MetricUnit.Count, w.requests / w.windows);
        emit(SluiceMetric.KafkaProduceWindowPartitions, MetricUnit.Count, w.partitions / w.windows);
        emit(SluiceMetric.KafkaProduceWindowBytes, MetricUnit.Bytes, w.bytes / w.windows);
        emit(SluiceMetric.KafkaProduceWindowRecords, MetricUnit.Count, w.records / w.windows);
        emit(SluiceMetric.KafkaProduceWindowLatency, MetricUnit.Milliseconds, w.totalLatencyMs / w.windows);
      }
    }
    this.interval.clear();
    this.windowsInterval = noWindows();
    this.tlsHandshakeErrorsInInterval = 0;
  }
}
