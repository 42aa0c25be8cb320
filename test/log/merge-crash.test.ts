// A merge swap cut short by a crash (after the merged item replaced the first item, before the
// items it replaced were deleted): the log stays readable, the next leader finishes the swap, and
// STATE's segment counter counts the merge once, also when the repair comes after a later merge.
import { describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { readPartitionSnapshot } from '../../lib/log/partition-snapshot.js';
import { createTopic } from '../../lib/metadata/topics.js';
import type { TopicRef } from '../../lib/metadata/types.js';
import { createTestContext } from '../support/storage.js';
import { expectConsistentPartition, otherProcess, runOnce } from './maintenance-support.js';
import { crashError, observeSdk } from './sdk-faults.js';

const isSwap = (call: { command: string; input: Record<string, unknown> }) =>
  call.command === 'PutItem' && String(call.input.ConditionExpression ?? '').includes(':seen');

async function appendSome(ctx: SluiceContext, topic: TopicRef, expected: Map<number, string>, n: number, tag: string) {
  for (let i = 0; i < n; i++) {
    const [res] = await appendToPartitions(ctx, topic, [{ partition: 0, records: [{ timestamp: ctx.now(), key: null, value: Buffer.from(`${tag}${i}`) }] }]);
    if ('error' in res) throw res.error;
    expected.set(res.baseOffset, `${tag}${i}`);
  }
}

/** A maintenance process that dies right after its first merge swap landed. */
async function crashAfterSwap(ctx: SluiceContext, skewMs: number) {
  const job = otherProcess(ctx, skewMs);
  const sdk = observeSdk(job);
  sdk.fault = (call) => {
    if (!isSwap(call)) return undefined;
    sdk.crashed = true;
    return { when: 'after', error: crashError() };
  };
  const report = await runOnce(job).catch(() => undefined);
  expect(sdk.crashed).toBe(true);
  return report;
}

describe('a crashed merge swap', () => {
  it('leaves a readable log that the next run finishes, counting the merge once', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 'crash', 1);
    const expected = new Map<number, string>();
    // 20 appends: two items spilled by the appenders (8 entries each), 4 entries in the tail.
    await appendSome(ctx, topic, expected, 20, 'a');
    await crashAfterSwap(ctx, 61_000);

    const { items } = await expectConsistentPartition(ctx, topic, expected, { settled: false });
    expect(items.some((i) => i.mergedCount !== undefined)).toBe(true);

    // The crashed run's job lease (60 s) and partition lease (30 s) have expired for the next run.
    const next = await runOnce(otherProcess(ctx, 61_000 + 61_000 + ctx.graceMs));
    expect(next.errors).toEqual([]);
    expect(next.merge.repairedItems).toBeGreaterThan(0);
    await expectConsistentPartition(ctx, topic, expected);
  });

  it('is counted once when its repair comes in the same run as a later merge', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 'twice', 1);
    const expected = new Map<number, string>();
    await appendSome(ctx, topic, expected, 20, 'a');
    await crashAfterSwap(ctx, 61_000);
    const before = await readPartitionSnapshot(ctx, topic, 0);
    expect(before.items.length).toBeGreaterThan(2);

    // More data, spilled by the appenders; the next run repairs the first swap, then merges again.
    await appendSome(ctx, topic, expected, 20, 'b');
    const skew = 61_000 + 61_000 + ctx.graceMs;
    const next = await runOnce(otherProcess(ctx, skew));
    expect(next.errors).toEqual([]);
    expect(next.merge.repairedItems).toBeGreaterThan(0);
    expect(next.merge.merges).toBeGreaterThan(0);
    const { state } = await expectConsistentPartition(ctx, topic, expected);
    // And again: nothing is counted twice by later runs either.
    await runOnce(otherProcess(ctx, skew + 61_000 + ctx.graceMs));
    const after = await expectConsistentPartition(ctx, topic, expected);
    expect(after.state.segments).toBeLessThanOrEqual(state.segments);
  });
});
