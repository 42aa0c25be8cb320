// Wraps one handler invocation: Lambda context on every log line, the cold-start metric, one
// structured log line per operation (name, status, duration), a ServerErrors count for a 500 or a
// thrown error, a RetriableRefusals count for a 503 or 429 (contention, timeouts, throttling: the
// contract tells the client to retry, so they must not page anyone as server errors do), and the
// EMF flush at the end. The Lambda adapter calls this around `op.run`.
import type { Context } from 'aws-lambda';
import type { Logger } from '@aws-lambda-powertools/logger';
import { logger as defaultLogger } from './logger.js';
import { metrics as defaultMetrics, type SluiceMetrics } from './metrics.js';
import { currentRequestScope } from './request-scope.js';

export interface Observers {
  readonly logger: Logger;
  readonly metrics: SluiceMetrics;
}

/** A direct-invoke reply carries `status`, an API Gateway v2 result `statusCode`. */
type Reply = { readonly status: number } | { readonly statusCode?: number };

function statusOf(reply: Reply): number {
  return 'status' in reply ? reply.status : (reply.statusCode ?? 200);
}

export async function observeInvocation<T extends Reply>(
  operation: string,
  lambdaContext: Context | undefined,
  run: () => Promise<T>,
  observers: Observers = { logger: defaultLogger, metrics: defaultMetrics },
): Promise<T> {
  const { logger, metrics } = observers;
  if (lambdaContext) {
    logger.addContext(lambdaContext);
    metrics.coldStart();
  }
  const started = performance.now();
  try {
    const result = await run();
    const durationMs = Math.round(performance.now() - started);
    const status = statusOf(result);
    // Request id and topic, so the line can be found from a caller's report (operation is named already).
    const { requestId, topic } = currentRequestScope();
    if (status === 503 || status === 429) {
      metrics.retriableRefusal();
      logger.warn('operation refused, retriable', { operation, requestId, topic, status, durationMs });
    } else if (status >= 500) {
      metrics.serverError();
      logger.error('operation failed', { operation, requestId, topic, status, durationMs });
    } else {
      logger.info('operation', { operation, requestId, topic, status, durationMs });
    }
    return result;
  } catch (error) {
    metrics.serverError();
    logger.error('operation threw', { operation, durationMs: Math.round(performance.now() - started), error: error as Error });
    throw error;
  } finally {
    metrics.flush();
  }
}
