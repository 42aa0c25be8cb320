// The settling rules of one batch (batch-delivery.ts) against a scripted target, step by step:
// bisection down to a lone poison record, retries counted per piece, partial responses never
// split, record age checked before every attempt in offset order, and abandonment when the
// caller stops. The dispatcher tests run the same rules against the emulators and an HTTP target.
import { describe, expect, it } from 'vitest';
import { deliverBatch, backoffDelay, type BatchDeliveryDeps } from '../../lib/subscriptions/batch-delivery.js';
import { DEFAULT_SUBSCRIPTION_CONFIG, type SubscriptionConfig } from '../../lib/subscriptions/subscription.js';
import type { DeliveryResult } from '../../lib/subscriptions/targets/delivery-result.js';
import type { DecodedRecord } from '../../lib/records/index.js';

const NOW = 1_000_000_000;
const records = (n: number, timestamp = (i: number) => NOW - i): DecodedRecord[] =>
  Array.from({ length: n }, (_, i) => ({ offset: i, timestamp: timestamp(i), key: null, value: Buffer.from(`v${i}`), headers: [] }));

function run(config: Partial<SubscriptionConfig>, batch: DecodedRecord[], target: (offsets: number[]) => DeliveryResult, stopAfterInvokes = Infinity) {
  const log: string[] = [];
  const invocations: number[][] = [];
  const deps: BatchDeliveryDeps = {
    invoke: async (rs) => {
      invocations.push(rs.map((r) => r.offset));
      return target(rs.map((r) => r.offset));
    },
    giveUp: async (rs, condition, count) => void log.push(`gaveUp ${rs.map((r) => r.offset).join(',')} ${condition} ${count}`),
    delivered: (rs) => void log.push(`delivered ${rs.map((r) => r.offset).join(',')}`),
    failed: () => undefined,
    active: () => invocations.length < stopAfterInvokes,
    sleep: async () => undefined,
    now: () => NOW,
  };
  return { result: deliverBatch({ ...DEFAULT_SUBSCRIPTION_CONFIG, ...config }, 0, batch, deps, { baseMs: 1, maxMs: 1 }), log, invocations };
}

const fails = (bad: number) => (offsets: number[]): DeliveryResult => (offsets.includes(bad) ? { ok: false, error: 'boom' } : { ok: true, response: undefined });

describe('deliverBatch', () => {
  it('bisects down to the poison record, delivers the rest in order, gives the record up after its retries', async () => {
    const { result, log, invocations } = run({ bisectBatchOnFunctionError: true, maximumRetryAttempts: 1 }, records(8), fails(5));
    expect(await result).toBe('settled');
    expect(invocations).toEqual([[0, 1, 2, 3, 4, 5, 6, 7], [0, 1, 2, 3], [4, 5, 6, 7], [4, 5], [4], [5], [5], [6, 7]]);
    expect(log).toEqual(['delivered 0,1,2,3', 'delivered 4', 'gaveUp 5 RetryAttemptsExhausted 5', 'delivered 6,7']);
  });

  it('retries a failing batch whole without bisection, forever by default', async () => {
    let calls = 0;
    const { result, log, invocations } = run({}, records(3), () => (++calls < 6 ? { ok: false, error: 'down' } : { ok: true, response: undefined }));
    expect(await result).toBe('settled');
    expect(invocations).toHaveLength(6);
    expect(log).toEqual(['delivered 0,1,2']);
  });

  it('retries from the lowest reported failure, never splitting a partial response', async () => {
    let calls = 0;
    const { result, log, invocations } = run({ functionResponseTypes: ['ReportBatchItemFailures'], bisectBatchOnFunctionError: true, maximumRetryAttempts: 1 }, records(6), (offsets) =>
      ++calls <= 2 ? { ok: true, response: { batchItemFailures: [{ itemIdentifier: `0@${offsets[offsets.length - 1]}` }, { itemIdentifier: `0@${Math.max(3, offsets[0])}` }] } } : { ok: true, response: undefined },
    );
    expect(await result).toBe('settled');
    expect(invocations).toEqual([[0, 1, 2, 3, 4, 5], [3, 4, 5]]);
    expect(log).toEqual(['delivered 0,1,2', 'gaveUp 3,4,5 RetryAttemptsExhausted 2']);
  });

  it('ignores item failures unless ReportBatchItemFailures is on', async () => {
    const { result, log } = run({}, records(2), () => ({ ok: true, response: { batchItemFailures: [{ itemIdentifier: '0@1' }] } }));
    expect(await result).toBe('settled');
    expect(log).toEqual(['delivered 0,1']);
  });

  it('gives up expired records in offset order, delivering the younger ones between them', async () => {
    const old = (i: number) => (i === 1 || i === 2 || i === 4 ? NOW - 120_000 : NOW);
    const { result, log, invocations } = run({ maximumRecordAgeMs: 60_000 }, records(5, old), () => ({ ok: true, response: undefined }));
    expect(await result).toBe('settled');
    expect(invocations).toEqual([[0], [3]]);
    expect(log).toEqual(['delivered 0', 'gaveUp 1,2 RecordAgeExceeded 0', 'delivered 3', 'gaveUp 4 RecordAgeExceeded 0']);
  });

  it('abandons the batch when the caller stops, reporting nothing it did not deliver', async () => {
    const { result, log, invocations } = run({}, records(4), fails(0), 2);
    expect(await result).toBe('abandoned');
    expect(invocations).toHaveLength(2);
    expect(log).toEqual([]);
  });

  it('backs off exponentially up to the cap, with jitter in the upper half', () => {
    for (let attempt = 1; attempt <= 12; attempt++) {
      const cap = Math.min(30_000, 200 * 2 ** (attempt - 1));
      const d = backoffDelay({ baseMs: 200, maxMs: 30_000 }, attempt);
      expect(d).toBeGreaterThanOrEqual(cap / 2);
      expect(d).toBeLessThanOrEqual(cap);
    }
  });
});
