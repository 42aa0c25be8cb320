// Retries of retriable failures: exponential backoff with full jitter (AWS Architecture Blog,
// "Exponential Backoff And Jitter") — the n-th wait is uniform in [0, min(maxRetryTime,
// initialRetryTime * 2^n)], so many clients retrying after one throttle do not stampede together.
// A server `Retry-After` is a floor: the wait is never shorter than what the server asked for.
import { toClientError, type SluiceClientError } from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt. @default 3 */
  readonly retries?: number;
  /** Backoff base in ms. @default 100 */
  readonly initialRetryTime?: number;
  /** Cap for one wait in ms. @default 10000 */
  readonly maxRetryTime?: number;
  /** Called before each wait, e.g. for logging or counting. */
  readonly onRetry?: (error: SluiceClientError, attempt: number, delayMs: number) => void;
}

export const DEFAULT_RETRY: Required<Omit<RetryOptions, 'onRetry'>> = {
  retries: 3,
  initialRetryTime: 100,
  maxRetryTime: 10_000,
};

export function backoffDelay(attempt: number, options: RetryOptions = {}, random: () => number = Math.random): number {
  const initial = options.initialRetryTime ?? DEFAULT_RETRY.initialRetryTime;
  const cap = options.maxRetryTime ?? DEFAULT_RETRY.maxRetryTime;
  const ceiling = Math.min(cap, initial * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Runs `attempt` until it succeeds, fails with a non-retriable error, or `retries` retries are
 * spent; rejects with the last error as a SluiceClientError.
 */
export async function withRetry<T>(attempt: (n: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const retries = options.retries ?? DEFAULT_RETRY.retries;
  for (let n = 0; ; n++) {
    try {
      return await attempt(n);
    } catch (e) {
      const error = toClientError(e);
      if (!error.retriable || n >= retries) throw error;
      const delay = Math.max(backoffDelay(n, options), error.retryAfterMs ?? 0);
      options.onRetry?.(error, n + 1, delay);
      await sleep(delay);
    }
  }
}
