// Client-side failures, shaped like kafkajs errors: a Kafka error name as `code`, whether the
// operation may be retried, and the server's extra fields (e.g. `logStartOffset`/`highWatermark`
// for OFFSET_OUT_OF_RANGE). Server replies `{error: {code, message, retriable, ...}}` map 1:1;
// transport failures get client codes (NETWORK_ERROR, REQUEST_TIMED_OUT) and are retriable,
// because the request may simply not have arrived.

export interface SluiceClientErrorOptions {
  readonly retriable?: boolean;
  /** HTTP status, when the error came from an HTTP reply. */
  readonly status?: number;
  /** From `Retry-After`: the server asks for at least this pause before a retry. */
  readonly retryAfterMs?: number;
  readonly details?: Readonly<Record<string, unknown>>;
  readonly cause?: unknown;
}

export class SluiceClientError extends Error {
  readonly code: string;
  readonly retriable: boolean;
  readonly status?: number;
  readonly retryAfterMs?: number;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: string, message: string, options: SluiceClientErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SluiceClientError';
    this.code = code;
    this.retriable = options.retriable ?? false;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
    this.details = options.details ?? {};
  }
}

export function isSluiceClientError(e: unknown): e is SluiceClientError {
  return e instanceof SluiceClientError;
}

/** Builds the error for a non-2xx reply from its JSON body (README.md "Errors"), tolerating non-JSON bodies. */
export function errorFromReply(status: number, body: unknown, retryAfterMs?: number): SluiceClientError {
  const error = (body as { error?: Record<string, unknown> } | undefined)?.error;
  if (error && typeof error.code === 'string') {
    const { code, message, retriable, ...details } = error;
    return new SluiceClientError(code, typeof message === 'string' ? message : code, {
      retriable: typeof retriable === 'boolean' ? retriable : status >= 500 || status === 429,
      status,
      retryAfterMs,
      details,
    });
  }
  const text = typeof body === 'string' && body.length > 0 ? body.slice(0, 200) : `HTTP ${status}`;
  return new SluiceClientError(status === 429 ? 'THROTTLING' : status >= 500 ? 'UNKNOWN_SERVER_ERROR' : 'INVALID_REQUEST', text, {
    retriable: status >= 500 || status === 429,
    status,
    retryAfterMs,
  });
}

/** Any thrown value as a SluiceClientError; unknown failures are treated as network-level, hence retriable. */
export function toClientError(e: unknown): SluiceClientError {
  if (e instanceof SluiceClientError) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new SluiceClientError('NETWORK_ERROR', message, { retriable: true, cause: e });
}
