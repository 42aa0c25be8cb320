// Retention by time and by size through the maintenance job: logStartOffset moves to the first
// kept segment, reads below it are OFFSET_OUT_OF_RANGE, the newest segment always stays, the
// STATE counters follow, and the deleted segments' objects are gone once the grace period passed.
import { describe, expect, it } from 'vitest';
import { readRecords } from '../../lib/log/read.js';
import { segmentsToDelete } from '../../lib/log/retention.js';
import { decodeRanges } from '../../lib/log/segment-range.js';
import { allSegmentItems } from '../../lib/metadata/manifest.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import type { SegmentItem } from '../../lib/metadata/types.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';
import { appendValues, bucketKeys, expectConsistentPartition, runOnce, withClock } from './maintenance-support.js';

/** The partition's manifest entries in offset order: SEG items, then the ranges STATE's tail lists. */
async function items(ctx: Parameters<typeof allSegmentItems>[0], topic: string): Promise<SegmentItem[]> {
  const out: SegmentItem[] = [];
  for await (const item of allSegmentItems(ctx, topic, 0)) out.push(item);
  out.push(...decodeRanges(ctx, topic, 0, (await getPartitionState(ctx, topic, 0)).tail));
  return out;
}

async function expectOutOfRange(ctx: Parameters<typeof readRecords>[0], topic: string, offset: number) {
  await expect(readRecords(ctx, topic, 0, { offset, maxBytes: 1 << 20 })).rejects.toMatchObject({ code: 'OFFSET_OUT_OF_RANGE' });
}

describe('retention', () => {
  it('retention.ms: deletes the three old segments, keeps the fourth, and their objects go after the grace period', async () => {
    const ctx = withClock(await createTestContext({ graceMs: 500 }));
    const topic = 'by-time';
    await createTopic(ctx, topic, 1, { 'retention.ms': 2000, 'segment.ms': 500 });
    const expected = new Map<number, string>();
    const bases: number[] = [];
    for (const [i, gap] of [0, 600, 600, 2000].entries()) {
      ctx.advance(gap);
      const values = [`r${i}a`, `r${i}b`];
      const base = await appendValues(ctx, topic, values);
      values.forEach((v, j) => expected.set(base + j, v));
      bases.push(base);
    }
    const before = await items(ctx, topic);
    expect(before).toHaveLength(4);

    // Within a few runs (the clock moves a little each time) only the fourth segment is left.
    let runs = 0;
    for (; runs < 5; runs++) {
      const report = await runOnce(ctx);
      expect(report.errors).toEqual([]);
      const { state } = await expectConsistentPartition(ctx, topic, expected);
      if (state.logStartOffset === bases[3]) break;
      ctx.advance(100);
    }
    expect(runs).toBeLessThan(5);
    const { state } = await expectConsistentPartition(ctx, topic, expected);
    expect(state.logStartOffset).toBe(bases[3]);
    expect(state.nextOffset).toBe(bases[3] + 2);
    for (const offset of [0, bases[1], bases[3] - 1]) await expectOutOfRange(ctx, topic, offset);
    const read = await readRecords(ctx, topic, 0, { offset: bases[3], maxBytes: 1 << 20 });
    expect(read.records.map((r) => r.value?.toString())).toEqual(['r3a', 'r3b']);
    expect(read.logStartOffset).toBe(bases[3]);

    // Objects: still there within the grace period, gone after it; the kept segment's stays.
    const deletedKeys = before.slice(0, 3).map((i) => i.objectKey);
    const keptKey = before[3].objectKey;
    ctx.advance(600);
    await runOnce(ctx);
    ctx.advance(600);
    await runOnce(ctx);
    const keys = await bucketKeys(ctx);
    for (const key of deletedKeys) expect(keys).not.toContain(key);
    expect(keys).toContain(keptKey);
    await expectConsistentPartition(ctx, topic, expected);
  });

  it('retention.bytes=1: everything but the newest segment goes', async () => {
    const ctx = withClock(await createTestContext({ graceMs: 500 }));
    const topic = 'by-size';
    // segment.ms rolls each append into its own segment (the tail spills once its range is 100 ms old).
    await createTopic(ctx, topic, 1, { 'retention.bytes': 1, 'segment.ms': 100 });
    const expected = new Map<number, string>();
    let last = 0;
    for (let i = 0; i < 5; i++) {
      ctx.advance(200);
      last = await appendValues(ctx, topic, [`s${i}`]);
      expected.set(last, `s${i}`);
    }
    const before = await items(ctx, topic);
    const report = await runOnce(ctx);
    expect(report.retention.segments).toBe(4);
    const { state, chain } = await expectConsistentPartition(ctx, topic, expected);
    expect(state.logStartOffset).toBe(last);
    expect(chain).toHaveLength(1);
    await expectOutOfRange(ctx, topic, last - 1);

    ctx.advance(600);
    await runOnce(ctx);
    ctx.advance(600);
    await runOnce(ctx);
    const keys = await bucketKeys(ctx);
    expect(keys).toEqual([before[4].objectKey]);
  });

  it('never deletes the newest segment, even when it is past retention.ms', async () => {
    const ctx = withClock(await createTestContext());
    const topic = 'newest';
    await createTopic(ctx, topic, 1, { 'retention.ms': 10 });
    const base = await appendValues(ctx, topic, ['only']);
    ctx.advance(10_000);
    const report = await runOnce(ctx);
    expect(report.retention.segments).toBe(0);
    const { state } = await expectConsistentPartition(ctx, topic, new Map([[base, 'only']]));
    expect(state.logStartOffset).toBe(0);
  });

  it('applies Kafka’s rules: a prefix of the oldest segments, by time or while the rest stays over retention.bytes', () => {
    const seg = (i: number, size: number, maxTimestamp: number) =>
      ({ baseOffset: i, lastOffset: i, count: 1, objectKey: `k${i}`, position: 0, size, minTimestamp: maxTimestamp, maxTimestamp, epoch: 1, createdAt: 0 }) as SegmentItem;
    const chain = [seg(0, 100, 10), seg(1, 100, 500), seg(2, 100, 20), seg(3, 100, 30)];
    // Time: stops at the first segment that is not expired (segment 2 is old but stays behind 1).
    expect(segmentsToDelete(chain, { retentionMs: 100, retentionBytes: -1 }, 400).map((s) => s.baseOffset)).toEqual([0]);
    // Size: 400 bytes, limit 150: deleting 0 leaves 300, 1 leaves 200, 2 would leave 100 < 150.
    expect(segmentsToDelete(chain, { retentionMs: -1, retentionBytes: 150 }, 0).map((s) => s.baseOffset)).toEqual([0, 1]);
    // Never the newest.
    expect(segmentsToDelete(chain, { retentionMs: 0, retentionBytes: 0 }, 10_000)).toHaveLength(3);
    expect(segmentsToDelete(chain, { retentionMs: -1, retentionBytes: -1 }, 10_000)).toEqual([]);
  });
});
