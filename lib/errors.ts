// Sluice's errors: Kafka's error names as codes, and whether a client may retry each. Every
// failure that reaches a caller is a SluiceError; lib/api/errors.ts maps codes to HTTP statuses.
// This is the bottom layer: every other folder may import it, it imports nothing of Sluice.

export type ErrorCode =
  | 'UNKNOWN_TOPIC_OR_PARTITION'
  | 'TOPIC_ALREADY_EXISTS'
  | 'INVALID_TOPIC_EXCEPTION'
  | 'INVALID_REQUEST'
  | 'INVALID_PARTITIONS'
  | 'INVALID_CONFIG'
  | 'OFFSET_OUT_OF_RANGE'
  | 'MESSAGE_TOO_LARGE'
  | 'CORRUPT_MESSAGE'
  | 'INVALID_RECORD'
  | 'ILLEGAL_GENERATION'
  | 'UNKNOWN_MEMBER_ID'
  | 'INCONSISTENT_GROUP_PROTOCOL'
  | 'REBALANCE_IN_PROGRESS'
  | 'NON_EMPTY_GROUP'
  | 'GROUP_ID_NOT_FOUND'
  | 'INVALID_GROUP_ID'
  | 'MEMBER_ID_REQUIRED'
  | 'FENCED_INSTANCE_ID'
  | 'INVALID_SESSION_TIMEOUT'
  | 'GROUP_MAX_SIZE_REACHED'
  | 'OFFSET_METADATA_TOO_LARGE'
  | 'COORDINATOR_NOT_AVAILABLE'
  | 'OUT_OF_ORDER_SEQUENCE_NUMBER'
  | 'INVALID_PRODUCER_EPOCH'
  | 'UNKNOWN_PRODUCER_ID'
  | 'DUPLICATE_SEQUENCE_NUMBER'
  | 'THROTTLING'
  | 'REQUEST_TIMED_OUT'
  | 'NOT_FOUND'
  | 'SUBSCRIPTION_ALREADY_EXISTS'
  | 'SUBSCRIPTION_NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CLUSTER_AUTHORIZATION_FAILED'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'UNKNOWN_SERVER_ERROR';

/** Whether a client may retry after each error: the request may succeed later. */
const RETRIABLE: Readonly<Record<ErrorCode, boolean>> = {
  UNKNOWN_TOPIC_OR_PARTITION: false,
  TOPIC_ALREADY_EXISTS: false,
  INVALID_TOPIC_EXCEPTION: false,
  INVALID_REQUEST: false,
  INVALID_PARTITIONS: false,
  INVALID_CONFIG: false,
  OFFSET_OUT_OF_RANGE: false,
  MESSAGE_TOO_LARGE: false,
  CORRUPT_MESSAGE: false,
  // A record the topic refuses by its config, e.g. one without a key in a compacted topic.
  INVALID_RECORD: false,
  ILLEGAL_GENERATION: false,
  UNKNOWN_MEMBER_ID: false,
  INCONSISTENT_GROUP_PROTOCOL: false,
  REBALANCE_IN_PROGRESS: true,
  NON_EMPTY_GROUP: false,
  GROUP_ID_NOT_FOUND: false,
  // Kafka's JoinGroup v4+ answer to a member without an id: rejoin at once with the id it carries.
  MEMBER_ID_REQUIRED: false,
  INVALID_GROUP_ID: false,
  FENCED_INSTANCE_ID: false,
  INVALID_SESSION_TIMEOUT: false,
  GROUP_MAX_SIZE_REACHED: false,
  OFFSET_METADATA_TOO_LARGE: false,
  COORDINATOR_NOT_AVAILABLE: true,
  OUT_OF_ORDER_SEQUENCE_NUMBER: false,
  INVALID_PRODUCER_EPOCH: false,
  UNKNOWN_PRODUCER_ID: false,
  DUPLICATE_SEQUENCE_NUMBER: false,
  THROTTLING: true,
  REQUEST_TIMED_OUT: true,
  NOT_FOUND: false,
  // Sluice's own, named as Kafka names TOPIC_ALREADY_EXISTS: a subscription (push delivery) name taken, or unknown.
  SUBSCRIPTION_ALREADY_EXISTS: false,
  SUBSCRIPTION_NOT_FOUND: false,
  METHOD_NOT_ALLOWED: false,
  // Kafka's name for a request the cluster does not authorize; the local server's answer to a
  // request from a web page (cross-site Origin) or for another host name (DNS rebinding).
  CLUSTER_AUTHORIZATION_FAILED: false,
  // HTTP's, like NOT_FOUND: a body in a media type the API does not take (a form or text/plain POST).
  UNSUPPORTED_MEDIA_TYPE: false,
  UNKNOWN_SERVER_ERROR: true,
};

export class SluiceError extends Error {
  readonly code: ErrorCode;
  readonly retriable: boolean;
  /** Extra fields for the error body, e.g. `logStartOffset`/`highWatermark` for OFFSET_OUT_OF_RANGE. */
  readonly details: Readonly<Record<string, unknown>>;
  /** Seconds, sent as `Retry-After` on retriable refusals. */
  readonly retryAfterSeconds?: number;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}, retryAfterSeconds?: number) {
    super(message);
    this.name = 'SluiceError';
    this.code = code;
    this.retriable = RETRIABLE[code];
    this.details = details;
    this.retryAfterSeconds = retryAfterSeconds ?? (this.retriable ? 1 : undefined);
  }

  toBody(): { error: { code: ErrorCode; message: string; retriable: boolean } & Record<string, unknown> } {
    return { error: { code: this.code, message: this.message, retriable: this.retriable, ...this.details } };
  }
}

export function isSluiceError(e: unknown): e is SluiceError {
  return e instanceof SluiceError;
}
