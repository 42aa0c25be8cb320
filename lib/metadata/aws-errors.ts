// Classifies AWS SDK failures for the append and read protocols: which are definite refusals
// (a failed condition, a missing object) and which leave the outcome unknown, and how each reaches
// a caller as a SluiceError (throttling and timeouts are retriable, never data errors).
import { SluiceError, isSluiceError } from '../api/errors.js';

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

/** How an infrastructure failure reaches the caller: retriable unless it is a known client fault. */
export function toSluiceError(e: unknown, what: string): SluiceError {
  if (isSluiceError(e)) return e;
  const message = e instanceof Error ? e.message : String(e);
  if (isThrottling(e)) return new SluiceError('THROTTLING', `${what}: throttled (${message})`);
  if (isTimeoutOrNetwork(e)) return new SluiceError('REQUEST_TIMED_OUT', `${what}: ${message}`);
  return new SluiceError('UNKNOWN_SERVER_ERROR', `${what}: ${message}`);
}
