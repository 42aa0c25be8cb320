// The error contract of ../shared/api.md: Kafka's error names as codes, an HTTP status each,
// and whether a client may retry. Every failure that reaches a caller is a SluiceError.

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
  | 'ILLEGAL_GENERATION'
  | 'UNKNOWN_MEMBER_ID'
  | 'INCONSISTENT_GROUP_PROTOCOL'
  | 'REBALANCE_IN_PROGRESS'
  | 'NON_EMPTY_GROUP'
  | 'GROUP_ID_NOT_FOUND'
  | 'OUT_OF_ORDER_SEQUENCE_NUMBER'
  | 'INVALID_PRODUCER_EPOCH'
  | 'UNKNOWN_PRODUCER_ID'
  | 'DUPLICATE_SEQUENCE_NUMBER'
  | 'NOT_LEADER_OR_FOLLOWER'
  | 'THROTTLING'
  | 'REQUEST_TIMED_OUT'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CLUSTER_AUTHORIZATION_FAILED'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'UNKNOWN_SERVER_ERROR';

interface ErrorSpec {
  readonly status: number;
  readonly retriable: boolean;
}

const ERROR_SPECS: Readonly<Record<ErrorCode, ErrorSpec>> = {
  UNKNOWN_TOPIC_OR_PARTITION: { status: 404, retriable: false },
  TOPIC_ALREADY_EXISTS: { status: 409, retriable: false },
  INVALID_TOPIC_EXCEPTION: { status: 400, retriable: false },
  INVALID_REQUEST: { status: 400, retriable: false },
  INVALID_PARTITIONS: { status: 400, retriable: false },
  INVALID_CONFIG: { status: 400, retriable: false },
  OFFSET_OUT_OF_RANGE: { status: 416, retriable: false },
  MESSAGE_TOO_LARGE: { status: 413, retriable: false },
  CORRUPT_MESSAGE: { status: 500, retriable: false },
  ILLEGAL_GENERATION: { status: 409, retriable: false },
  UNKNOWN_MEMBER_ID: { status: 409, retriable: false },
  INCONSISTENT_GROUP_PROTOCOL: { status: 409, retriable: false },
  REBALANCE_IN_PROGRESS: { status: 409, retriable: true },
  NON_EMPTY_GROUP: { status: 409, retriable: false },
  GROUP_ID_NOT_FOUND: { status: 404, retriable: false },
  OUT_OF_ORDER_SEQUENCE_NUMBER: { status: 409, retriable: false },
  INVALID_PRODUCER_EPOCH: { status: 409, retriable: false },
  UNKNOWN_PRODUCER_ID: { status: 409, retriable: false },
  DUPLICATE_SEQUENCE_NUMBER: { status: 409, retriable: false },
  NOT_LEADER_OR_FOLLOWER: { status: 503, retriable: true },
  THROTTLING: { status: 429, retriable: true },
  REQUEST_TIMED_OUT: { status: 503, retriable: true },
  NOT_FOUND: { status: 404, retriable: false },
  METHOD_NOT_ALLOWED: { status: 405, retriable: false },
  // Kafka's name for a request the cluster does not authorize; the local server's answer to a
  // request from a web page (cross-site Origin) or for another host name (DNS rebinding).
  CLUSTER_AUTHORIZATION_FAILED: { status: 403, retriable: false },
  // HTTP's, like NOT_FOUND: a body in a media type the API does not take (a form or text/plain POST).
  UNSUPPORTED_MEDIA_TYPE: { status: 415, retriable: false },
  UNKNOWN_SERVER_ERROR: { status: 500, retriable: true },
};

export class SluiceError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retriable: boolean;
  /** Extra fields for the error body, e.g. `logStartOffset`/`highWatermark` for OFFSET_OUT_OF_RANGE. */
  readonly details: Readonly<Record<string, unknown>>;
  /** Seconds, sent as `Retry-After` on retriable refusals. */
  readonly retryAfterSeconds?: number;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}, retryAfterSeconds?: number) {
    super(message);
    this.name = 'SluiceError';
    this.code = code;
    this.status = ERROR_SPECS[code].status;
    this.retriable = ERROR_SPECS[code].retriable;
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
