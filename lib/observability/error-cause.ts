// Logging the cause of a failure that callers see only as a Kafka code and a generic message. AWS
// error text names the account, role ARNs and bucket (an AccessDenied says who may not do what on
// which resource), so it goes to the function's log — with the request id and topic of the request
// it failed, to find it from a caller's report — and never into a response.
import { logger } from './logger.js';
import { currentRequestScope } from './request-scope.js';

interface AwsLikeError {
  readonly name?: string;
  readonly message?: string;
  readonly code?: string;
  readonly stack?: string;
  readonly Code?: string;
  readonly $fault?: string;
  readonly $metadata?: { readonly httpStatusCode?: number; readonly requestId?: string; readonly extendedRequestId?: string };
}

/** What is worth logging of a thrown value: AWS SDK errors carry the service's request ids and status. */
export function describeCause(e: unknown): Record<string, unknown> {
  if (typeof e !== 'object' || e === null) return { message: String(e) };
  const err = e as AwsLikeError;
  return {
    name: err.name,
    message: err.message,
    code: err.code ?? err.Code,
    fault: err.$fault,
    httpStatusCode: err.$metadata?.httpStatusCode,
    awsRequestId: err.$metadata?.requestId,
    awsExtendedRequestId: err.$metadata?.extendedRequestId,
    stack: err.stack,
  };
}

/**
 * One structured line for a failure hidden from the caller: `where` (Sluice's own words, e.g.
 * "append to orders-3"), the cause, and the current request's id, operation and topic.
 * `level` is 'info' for retriable refusals (throttling, timeouts: expected under load, and the
 * invocation's own line already warns of the refusal), 'error' otherwise.
 */
export function logErrorCause(level: 'info' | 'error', message: string, where: string, e: unknown): void {
  logger[level](message, { ...currentRequestScope(), where, cause: describeCause(e) });
}
