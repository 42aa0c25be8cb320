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
  /** Kafka gateway requests, per API (dimension `api`: `Produce`, `Fetch`, ...). */
  KafkaRequests: 'KafkaRequests',
  /** Kafka gateway requests answered with an error (or refused), per API. */
  KafkaRequestErrors: 'KafkaRequestErrors',
  /** Mean milliseconds from a Kafka request's arrival to its answer, per API. */
  KafkaRequestLatency: 'KafkaRequestLatency',
  /** Open Kafka client connections of one gateway. */
  KafkaConnections: 'KafkaConnections',
  /** Produce batching windows a gateway wrote (one intake object each). */
  KafkaProduceWindows: 'KafkaProduceWindows',
  /** Mean produce requests (one topic's part of a Kafka request each) per window written. */
  KafkaProduceWindowRequests: 'KafkaProduceWindowRequests',
  /** Mean distinct partitions per window written (one STATE update each). */
  KafkaProduceWindowPartitions: 'KafkaProduceWindowPartitions',
  /** Mean record batch bytes per window written (the intake object's size). */
  KafkaProduceWindowBytes: 'KafkaProduceWindowBytes',
  /** Mean records per window written. */
  KafkaProduceWindowRecords: 'KafkaProduceWindowRecords',
  /** Mean milliseconds a window's write takes: the intake object PUT and the partitions' commits. */
  KafkaProduceWindowLatency: 'KafkaProduceWindowLatency',
  /** TLS clients of one gateway that failed their handshake (wrong CA, not TLS, timed out). */
  KafkaTlsHandshakeErrors: 'KafkaTlsHandshakeErrors',
} as const;

export type SluiceMetricName = (typeof SluiceMetric)[keyof typeof SluiceMetric];

/**
 * Push delivery (lib/subscriptions): per-subscription metrics of the dispatcher, emitted with the
 * dimensions `service` and `subscription` (SUBSCRIPTION_DIMENSION), as Lambda's event source
 * mappings report IteratorAge and OffsetLag per mapping. The dashboard and the iterator-age alarm
 * (infra/sluice-monitoring.ts) read them under these names.
 */
export const SubscriptionMetric = {
  /** Records of one partition not yet delivered (log end offset − committed offset); the Maximum is the furthest-behind partition. */
  OffsetLag: 'OffsetLag',
  /** Milliseconds since the oldest undelivered record was appended (Kinesis's IteratorAge); 0 when caught up. */
  IteratorAge: 'IteratorAge',
  /** Records the target accepted. */
  DeliveredRecords: 'DeliveredRecords',
  /** Batches the target accepted (one invocation or request each). */
  DeliveredBatches: 'DeliveredBatches',
  /** Deliveries that failed (an error, a timeout, a non-2xx answer, reported item failures) and will be retried or given up. */
  DeliveryFailures: 'DeliveryFailures',
  /** Records whose metadata went to the onFailure destination after retries or record age ran out. */
  OnFailureRecords: 'OnFailureRecords',
} as const;

export const SUBSCRIPTION_DIMENSION = 'subscription';
