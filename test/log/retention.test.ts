// Retention by time and by size through the maintenance job, by the partition leader: only whole
// SEG items wholly below tailBase go, logStartOffset moves to the first kept offset (never past
// tailBase), reads below it are OFFSET_OUT_OF_RANGE, the newest segment always stays, the STATE
// counters follow, and every item wholly below logStartOffset is deleted on each run (late spill
// puts land there).
import { describe, expect, it } from 'vitest';
import { readRecords } from '../../lib/log/read.js';
import { segmentsToDelete } from '../../lib/log/retention.js';
import { readPartitionSnapshot } from '../../lib/log/partition-snapshot.js';
import { allSegmentItems, putSpillItem } from '../../lib/metadata/manifest.js';
import type { SegmentItem, TopicRef } from '../../lib/metadata/types.js';
import { createTopic } from '../../lib/metadata/topics.js';
import type { SluiceContext } from '../../lib/context.js';
import { createTestContext } from '../support/storage.js';
import { appendSpilled, appendValues, expectConsistentPartition, runOnce, withClock } from './maintenance-support.js';

async function expectOutOfRange(ctx: SluiceContext, topic: TopicRef, offset: number) {
  await expect(readRecords(ctx, topic, 0, { offset, maxBytes: 1 << 20 })).rejects.toMatchObject({ code: 'OFFSET_OUT_OF_RANGE' });
}

async function segItems(ctx: SluiceContext, topic: TopicRef): Promise<SegmentItem[]> {
  const out: SegmentItem[] = [];
  for await (const item of allSegmentItems(ctx, topic, 0)) out.push(item);
  return out;
}

describe('retention', () => {
  it('retention.ms: deletes the old segments, keeps the newer ones and the tail', async () => {
    const ctx = withClock(await createTestContext());
    const topic = await createTopic(ctx, 'by-time', 1, { 'retention.ms': 10_000 });
    const expected = new Map<number, string>();
    const old = ctx.now() - 100_000;
    for (let i = 0; i < 3; i++) {
      const base = await appendSpilled(ctx, topic, [`old${i}a`, `old${i}b`], old);
      expected.set(base, `old${i}a`).set(base + 1, `old${i}b`);
    }
    for (let i = 0; i < 2; i++) {
      const base = await appendSpilled(ctx, topic, [`new${i}`]);
      expected.set(base, `new${i}`);
    }
    const tailBase = await appendValues(ctx, topic, ['tail']);
    expected.set(tailBase, 'tail');

    const report = await runOnce(ctx);
    expect(report.errors).toEqual([]);
    expect(report.retention).toMatchObject({ segments: 3, itemsRemoved: 3 });
    const { state } = await expectConsistentPartition(ctx, topic, expected);
    expect(state.logStartOffset).toBe(6);
    await expectOutOfRange(ctx, topic, 5);
    expect((await readRecords(ctx, topic, 0, { offset: 6, maxBytes: 1 << 20 })).records[0].value!.toString()).toBe('new0');
  });

  it('retention.bytes: deletes the oldest segments while the rest stays at least retention.bytes', async () => {
    const ctx = withClock(await createTestContext());
    const topic = await createTopic(ctx, 'by-size', 1, { 'retention.bytes': 1 });
    const expected = new Map<number, string>();
    for (let i = 0; i < 5; i++) expected.set(await appendSpilled(ctx, topic, [`v${i}`]), `v${i}`);
    const report = await runOnce(ctx);
    expect(report.retention.segments).toBe(4);
    // The newest segment of the log stays, even over retention.bytes.
    const { state, chain } = await expectConsistentPartition(ctx, topic, expected);
    expect(state.logStartOffset).toBe(4);
    expect(chain).toHaveLength(1);
    await expectOutOfRange(ctx, topic, 3);

    // With entries in the tail, the last item may go too; the tail never does.
    expected.set(await appendValues(ctx, topic, ['t0']), 't0');
    await runOnce(ctx);
    const after = await expectConsistentPartition(ctx, topic, expected);
    expect(after.state.logStartOffset).toBe(5);
    expect(after.state.tailBase).toBe(5);
  });

  it('deletes, on the next run, a late spill put that landed below logStartOffset', async () => {
    const ctx = withClock(await createTestContext());
    const topic = await createTopic(ctx, 'late', 1, { 'retention.bytes': 1 });
    const expected = new Map<number, string>();
    for (let i = 0; i < 3; i++) expected.set(await appendSpilled(ctx, topic, [`v${i}`]), `v${i}`);
    const [first] = await segItems(ctx, topic);
    await runOnce(ctx);
    expect((await readPartitionSnapshot(ctx, topic, 0)).state.logStartOffset).toBe(2);

    // A spiller that read STATE when tailBase was 0 puts its item now (the original is gone).
    if (!first.entries) throw new Error('expected a spilled item');
    expect(await putSpillItem(ctx, topic, 0, { ...first, createdAt: ctx.now() })).toBe(true);
    await expectConsistentPartition(ctx, topic, expected, { settled: false });
    const report = await runOnce(ctx);
    expect(report.retention).toMatchObject({ segments: 0, itemsRemoved: 1 });
    await expectConsistentPartition(ctx, topic, expected);
    expect((await segItems(ctx, topic)).map((i) => i.baseOffset)).toEqual([2]);
  });

  it('never retires what lies at or above tailBase, and skips a partition whose leader lease another process holds', async () => {
    const ctx = withClock(await createTestContext());
    const topic = await createTopic(ctx, 'tail-only', 1, { 'retention.ms': 0 });
    const expected = new Map<number, string>();
    for (let i = 0; i < 3; i++) expected.set(await appendValues(ctx, topic, [`v${i}`], ctx.now() - 100_000), `v${i}`);
    // The tail is young (its entries were just written): not spilled, so nothing is retention's.
    const report = await runOnce(ctx);
    expect(report.tailSpills).toBe(0);
    expect(report.retention.segments).toBe(0);
    expect((await expectConsistentPartition(ctx, topic, expected)).state.logStartOffset).toBe(0);
  });

  it('applies Kafka’s rules: a prefix of the oldest segments, by time or while the rest stays over retention.bytes', () => {
    const seg = (i: number, size: number, maxTimestamp: number) => ({ baseOffset: i, lastOffset: i, size, maxTimestamp }) as SegmentItem;
    const chain = [seg(0, 100, 10), seg(1, 100, 20), seg(2, 100, 30), seg(3, 100, 40)];
    expect(segmentsToDelete(chain, { retentionMs: 15, retentionBytes: -1 }, 40).map((s) => s.baseOffset)).toEqual([0, 1]);
    expect(segmentsToDelete(chain, { retentionMs: -1, retentionBytes: 250 }, 40).map((s) => s.baseOffset)).toEqual([0]);
    expect(segmentsToDelete(chain, { retentionMs: 0, retentionBytes: -1 }, 1000).map((s) => s.baseOffset)).toEqual([0, 1, 2]);
    expect(segmentsToDelete(chain, { retentionMs: 0, retentionBytes: -1 }, 1000, 50, true).map((s) => s.baseOffset)).toEqual([0, 1, 2, 3]);
    expect(segmentsToDelete(chain, { retentionMs: -1, retentionBytes: -1 }, 1000)).toEqual([]);
  });
});
