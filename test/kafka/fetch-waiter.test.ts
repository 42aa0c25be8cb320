// The gateway's fetch long-poll (lib/kafka/fetch-waiter.ts): a waiting fetch wakes at once on this
// process's own appends, within a poll interval on another process's, and otherwise at its
// deadline, having polled STATE only a few times (backoff); an abort ends it; the number of waiting
// fetches is bounded.
import { describe, expect, it } from 'vitest';
import { FetchWaiter } from '../../lib/kafka/fetch-waiter.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';

const one = [{ timestamp: 1, key: null, value: Buffer.from('x') }];

describe('FetchWaiter', () => {
  it('waits until the deadline when nothing arrives, polling STATE with backoff', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 2);
    const waiter = new FetchWaiter(ctx, { minPollMs: 50, maxPollMs: 400 });
    const started = Date.now();
    expect(await waiter.wait([{ topic: t, partition: 0, offset: 0 }, { topic: t, partition: 1, offset: 0 }], 1500)).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1450);
    // 50, 100, 200, 400, 400... ms apart: about 6 polls in 1.5 s rather than 30 at a fixed 50 ms.
    expect(waiter.polls).toBeGreaterThanOrEqual(3);
    expect(waiter.polls).toBeLessThanOrEqual(7);
    expect(waiter.waiting).toBe(0);
  });

  it("wakes at once on this process's append, and within a poll on another process's", async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    const waiter = new FetchWaiter(ctx, { minPollMs: 50, maxPollMs: 200 });
    let started = Date.now();
    const local = waiter.wait([{ topic: t, partition: 0, offset: 0 }], 10_000);
    waiter.appended(t, 0, 0); // not past the offset: keeps waiting
    setTimeout(() => waiter.appended(t, 0, 3), 100);
    expect(await local).toBe(true);
    expect(Date.now() - started).toBeLessThan(1000);

    const [r] = await appendToPartitions(ctx, t, [{ partition: 0, records: one }]);
    expect(r).toMatchObject({ baseOffset: 0 });
    started = Date.now();
    const remote = waiter.wait([{ topic: t, partition: 0, offset: 1 }], 10_000);
    setTimeout(() => void appendToPartitions(ctx, t, [{ partition: 0, records: one }]), 300);
    expect(await remote).toBe(true);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('ends a wait when its signal aborts (the connection closed), and bounds the waiting fetches', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    const waiter = new FetchWaiter(ctx, { maxWaiters: 1 });
    const controller = new AbortController();
    const started = Date.now();
    const first = waiter.wait([{ topic: t, partition: 0, offset: 0 }], 60_000, controller.signal);
    // Past the bound: answered at once, as if its wait had run out.
    expect(await waiter.wait([{ topic: t, partition: 0, offset: 0 }], 60_000)).toBe(false);
    controller.abort();
    expect(await first).toBe(false);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(waiter.waiting).toBe(0);
  });
});
