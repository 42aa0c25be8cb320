// Classifies AWS SDK failures for the append and read protocols: which are definite refusals
// (a failed condition, a missing object) and which leave the outcome unknown, and how each reaches
// a caller as a SluiceError (throttling and timeouts are retriable, never data errors).
import { SluiceError, isSluiceError } from '../errors.js';
import { logErrorCause } from '../observability/error-cause.js';

interface AwsLikeError {
  readonly name?: string;
  readonly code?: string;
  readonly $metadata?: { readonly httpStatusCode?: number };
}

const THROTTLING_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'Throttling',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'SlowDown',
  'RequestThrottled',
  'RequestThrottledException',
]);

const TIMEOUT_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'AbortError']);
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'ENOTFOUND']);

function asAws(e: unknown): AwsLikeError {
  return (typeof e === 'object' && e !== null ? e : {}) as AwsLikeError;
}

/** DynamoDB evaluated the condition and refused the write: a definite "not applied". */
export function isConditionalCheckFailed(e: unknown): boolean {
  return asAws(e).name === 'ConditionalCheckFailedException';
}

export function isThrottling(e: unknown): boolean {
  const err = asAws(e);
  return THROTTLING_NAMES.has(err.name ?? '') || err.$metadata?.httpStatusCode === 429;
}

export function isNoSuchKey(e: unknown): boolean {
  const err = asAws(e);
  return err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata?.httpStatusCode === 404;
}

export function isTimeoutOrNetwork(e: unknown): boolean {
  const err = asAws(e);
  return TIMEOUT_NAMES.has(err.name ?? '') || NETWORK_CODES.has(err.code ?? '');
}

/**
 * How an infrastructure failure reaches the caller: a Kafka code and a generic message naming only
 * what Sluice was doing (`what`, e.g. "append to orders-3"). The SDK's own text stays out of it —
 * an AccessDenied names the account, the role ARN and the bucket — and goes to the log instead,
 * with the request id and topic (logErrorCause).
 */
export function toSluiceError(e: unknown, what: string): SluiceError {
  if (isSluiceError(e)) return e;
  if (isThrottling(e)) {
    logErrorCause('info', 'storage throttled', what, e);
    return new SluiceError('THROTTLING', `${what}: storage is throttling requests; retry after the given delay`);
  }
  if (isTimeoutOrNetwork(e)) {
    logErrorCause('info', 'storage timed out', what, e);
    return new SluiceError('REQUEST_TIMED_OUT', `${what}: storage did not answer in time; the request may be retried`);
  }
  logErrorCause('error', 'storage failed', what, e);
  return new SluiceError('UNKNOWN_SERVER_ERROR', `${what}: internal error; the request may be retried`);
}
