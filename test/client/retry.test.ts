// lib/client/retry.ts: full-jitter exponential backoff, Retry-After as a floor, and which failures
// are retried how many times.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { SluiceClientError } from '../../lib/client/errors.js';
import { DEFAULT_RETRY, backoffDelay, withRetry } from '../../lib/client/retry.js';

describe('backoffDelay', () => {
  it('property: uniform in [0, min(cap, initial * 2^n)) for the random draw', () => {
    fc.assert(
      fc.property(fc.nat(40), fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 100_000 }), fc.double({ min: 0, max: 0.9999, noNaN: true }), (n, initial, cap, r) => {
        const ceiling = Math.min(cap, initial * 2 ** n);
        expect(backoffDelay(n, { initialRetryTime: initial, maxRetryTime: cap }, () => r)).toBe(Math.floor(r * ceiling));
      }),
    );
  });
  it('defaults: 100 ms base, 10 s cap', () => {
    expect(DEFAULT_RETRY).toEqual({ retries: 3, initialRetryTime: 100, maxRetryTime: 10_000 });
    expect(backoffDelay(0, {}, () => 0.999999)).toBe(99);
    expect(backoffDelay(20, {}, () => 0.999999)).toBe(9999);
    expect(backoffDelay(3, {}, () => 0)).toBe(0);
  });
});

describe('withRetry', () => {
  const retriable = (retryAfterMs?: number) => new SluiceClientError('THROTTLING', 'slow', { retriable: true, retryAfterMs });

  it('retries retriable failures up to `retries` times, then throws the last one', async () => {
    const attempts: number[] = [];
    const e = await withRetry(async (n) => {
      attempts.push(n);
      throw retriable();
    }, { retries: 2, initialRetryTime: 1, maxRetryTime: 1 }).catch((err: unknown) => err);
    expect(attempts).toEqual([0, 1, 2]);
    expect(e).toMatchObject({ code: 'THROTTLING' });
  });
  it('a non-retriable failure is thrown at once; success returns the value', async () => {
    let calls = 0;
    await expect(withRetry(async () => {
      calls++;
      throw new SluiceClientError('INVALID_REQUEST', 'bad');
    })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(calls).toBe(1);
    expect(await withRetry(async (n) => (n < 1 ? Promise.reject(retriable()) : 'ok'), { initialRetryTime: 1 })).toBe('ok');
  });
  it('an unknown thrown value is a retriable NETWORK_ERROR', async () => {
    let calls = 0;
    const e = await withRetry(async () => {
      calls++;
      throw new Error('ECONNRESET');
    }, { retries: 1, initialRetryTime: 1 }).catch((err: unknown) => err);
    expect(calls).toBe(2);
    expect(e).toMatchObject({ code: 'NETWORK_ERROR', retriable: true, message: 'ECONNRESET' });
  });
  it('Retry-After is a floor for the wait; onRetry sees error, attempt number and delay', async () => {
    vi.useFakeTimers();
    try {
      const seen: [string, number, number][] = [];
      const done = withRetry(async (n) => (n < 1 ? Promise.reject(retriable(5000)) : n), {
        initialRetryTime: 1,
        onRetry: (err, attempt, delay) => seen.push([err.code, attempt, delay]),
      });
      await vi.advanceTimersByTimeAsync(4999);
      expect(seen).toEqual([['THROTTLING', 1, 5000]]);
      let settled = false;
      void done.then(() => (settled = true));
      await vi.advanceTimersByTimeAsync(0);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await done).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
