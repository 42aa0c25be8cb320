// The log cleaner's pure parts: which segments a cleaning covers and when it is due (planCleaning),
// how segments are grouped, that merges leave cleaned segments alone, the key map's bounds and
// digests, and a batch's rewrite (offsets, producer fields, delete horizon).
import { describe, expect, it } from 'vitest';
import { type CleanerConfig, groupSegments, planCleaning } from '../../lib/log/compaction/cleaner.js';
import { DELETE_HORIZON_FLAG, cleanBatch } from '../../lib/log/compaction/cleaned-batch.js';
import { OFFSET_MAP_SLOT_BYTES, OffsetMap } from '../../lib/log/compaction/offset-map.js';
import { planMergeRuns } from '../../lib/log/merge.js';
import type { PartitionSnapshot } from '../../lib/log/partition-snapshot.js';
import type { ManifestEntry, MergedSegmentItem, PartitionState, SegmentItem } from '../../lib/metadata/types.js';
import { decodeRecordBatch, encodeRecordBatch, readBatchHeader } from '../../lib/records/index.js';

const config: CleanerConfig = { minCleanableDirtyRatio: 0.5, minCompactionLagMs: 0, maxCompactionLagMs: Number.MAX_SAFE_INTEGER, deleteRetentionMs: 1000, segmentBytes: 1 << 20, indexIntervalBytes: 4096 };
const GRACE = 1000;
const NOW = 100_000;

function seg(base: number, last: number, size: number, over: Partial<MergedSegmentItem> = {}): MergedSegmentItem {
  return { baseOffset: base, lastOffset: last, count: last - base + 1, objectKey: `k${base}`, position: 0, size, minTimestamp: 10, maxTimestamp: 20, createdAt: 0, epoch: 1, mergedCount: 2, ...over };
}
function snapshotOf(items: SegmentItem[], tailBase: number, logStartOffset = 0): PartitionSnapshot {
  const state = { tailBase, logStartOffset, logEndOffset: tailBase, tail: [] } as unknown as PartitionState;
  return { topic: { name: 't', id: 'x' }, partition: 0, state, items };
}
const bases = (items: readonly SegmentItem[]) => items.map((i) => i.baseOffset);

describe('planCleaning', () => {
  it('splits merged segments at the first dirty offset; a spilled item, a young or a too-recent segment ends the dirty part', () => {
    const spilled = { ...seg(40, 49, 100), entries: ['x' as ManifestEntry], mergedCount: undefined } as SegmentItem;
    const items = [seg(0, 9, 100, { cleanedThrough: 19 }), seg(10, 19, 100, { cleanedThrough: 19 }), seg(20, 29, 100), seg(30, 39, 100), spilled, seg(50, 59, 100)];
    const plan = planCleaning(snapshotOf(items, 60), config, NOW, GRACE);
    expect([bases(plan.clean), bases(plan.dirty), plan.firstDirtyOffset, plan.reason]).toEqual([[0, 10], [20, 30], 20, 'dirty-ratio']);
    const young = planCleaning(snapshotOf([items[0], items[1], items[2], { ...items[3], createdAt: NOW }], 40), config, NOW, GRACE);
    expect(bases(young.dirty)).toEqual([20]);
    const lagging = planCleaning(snapshotOf(items.slice(0, 4), 40), { ...config, minCompactionLagMs: NOW }, NOW, GRACE);
    expect([lagging.dirty, lagging.reason]).toEqual([[], undefined]);
  });

  it('the lowest cleanedThrough + 1 is the first dirty offset: an interrupted cleaning is mapped again', () => {
    // SEG#0 was cleaned through 39 by the last cleaning, SEG#10 only through 19 (that cleaning stopped before it).
    const items = [seg(0, 9, 100, { cleanedThrough: 39 }), seg(10, 19, 100, { cleanedThrough: 19 }), seg(20, 39, 100, { cleanedThrough: 39 })];
    const plan = planCleaning(snapshotOf(items, 40), config, NOW, GRACE);
    expect([bases(plan.clean), bases(plan.dirty), plan.firstDirtyOffset]).toEqual([[0, 10], [20], 20]);
  });

  it('due by the dirty ratio, by max.compaction.lag.ms, or by a passed delete horizon; never while a clean segment is young', () => {
    const clean = seg(0, 99, 900, { cleanedThrough: 99 });
    const dirty = seg(100, 109, 100, { minTimestamp: 50 });
    expect(planCleaning(snapshotOf([clean, dirty], 110), config, NOW, GRACE).reason).toBeUndefined();
    expect(planCleaning(snapshotOf([clean, dirty], 110), { ...config, minCleanableDirtyRatio: 0.1 }, NOW, GRACE).reason).toBe('dirty-ratio');
    expect(planCleaning(snapshotOf([clean, dirty], 110), { ...config, maxCompactionLagMs: NOW - 50 }, NOW, GRACE).reason).toBe('max-compaction-lag');
    expect(planCleaning(snapshotOf([{ ...clean, deleteHorizonMs: NOW }], 110), config, NOW, GRACE).reason).toBe('delete-horizon');
    expect(planCleaning(snapshotOf([{ ...clean, deleteHorizonMs: NOW + 1 }], 110), config, NOW, GRACE).reason).toBeUndefined();
    expect(planCleaning(snapshotOf([{ ...clean, createdAt: NOW }, dirty], 110), { ...config, minCleanableDirtyRatio: 0 }, NOW, GRACE).reason).toBeUndefined();
  });

  it('merges never take a cleaned segment; groups stay within the byte limit and an int32 offset span', () => {
    const items = [seg(0, 9, 100, { cleanedThrough: 9 }), seg(10, 19, 100, { cleanedThrough: 19 }), seg(20, 29, 100), seg(30, 39, 100)];
    const runs = planMergeRuns(snapshotOf(items, 40), { segmentBytes: 1 << 20, segmentMs: 1 << 30, indexIntervalBytes: 4096 }, NOW, GRACE, 1 << 20);
    expect(runs.map(bases)).toEqual([[20, 30]]);
    expect(groupSegments(items, 250).map(bases)).toEqual([[0, 10], [20, 30]]);
    expect(groupSegments([seg(0, 9, 1), seg(10, 2 ** 31 + 5, 1)], 1 << 20).map(bases)).toEqual([[0], [10]]);
  });
});

describe('OffsetMap', () => {
  it('keeps the newest offset per key within its memory, refusing a new key when full', () => {
    const map = new OffsetMap(10 * OFFSET_MAP_SLOT_BYTES);
    expect(map.capacity).toBe(9);
    for (let i = 0; i < 9; i++) expect(map.put(Buffer.from(`k${i}`), i)).toBe(true);
    expect(map.put(Buffer.from('k3'), 2 ** 40)).toBe(true);
    expect(map.put(Buffer.from('new'), 100)).toBe(false);
    expect([map.get(Buffer.from('k3')), map.get(Buffer.from('k0')), map.get(Buffer.from('new'))]).toEqual([2 ** 40, 0, -1]);
    expect(map.size).toBe(9);
    // Sized to the keys expected when fewer than the budget.
    expect(new OffsetMap(1 << 24, 100).memoryBytes).toBeLessThan(200 * OFFSET_MAP_SLOT_BYTES);
  });
});

describe('cleanBatch', () => {
  const records = [0, 1, 2, 3, 4].map((i) => ({ timestamp: 1000 + i, key: Buffer.from(`k${i % 2}`), value: i === 3 ? null : Buffer.from(`v${i}`) }));
  const batch = encodeRecordBatch(records, { baseOffset: 50, producerId: 9, producerEpoch: 1, baseSequence: 7, partitionLeaderEpoch: 0 });

  it('keeps offsets, last offset delta and producer fields; sets a delete horizon on surviving tombstones; drops an emptied batch', () => {
    const latest = new Map([['k0', 54], ['k1', 53]]);
    const cleaned = cleanBatch(batch, { keep: (r) => latest.get(r.key!.toString()) === r.offset, now: 5000, newDeleteHorizonMs: 9000 });
    const header = readBatchHeader(cleaned.bytes!);
    expect(header).toMatchObject({ baseOffset: 50, lastOffset: 54, producerId: 9, producerEpoch: 1, baseSequence: 7, recordCount: 2, baseTimestamp: 9000, maxTimestamp: 1004 });
    expect(header.attributes & DELETE_HORIZON_FLAG).toBe(DELETE_HORIZON_FLAG);
    expect(decodeRecordBatch(cleaned.bytes!).records.map((r) => [r.offset, r.timestamp, r.value?.toString() ?? null])).toEqual([[53, 1003, null], [54, 1004, 'v4']]);
    // Past the horizon the tombstone goes; an unchanged batch is the same bytes; nothing kept drops the batch.
    const later = cleanBatch(cleaned.bytes!, { keep: () => true, now: 9000 });
    expect(decodeRecordBatch(later.bytes!).records.map((r) => r.offset)).toEqual([54]);
    expect(readBatchHeader(later.bytes!).attributes & DELETE_HORIZON_FLAG).toBe(0);
    expect(cleanBatch(cleaned.bytes!, { keep: () => true, now: 8999 }).bytes).toBe(cleaned.bytes);
    expect(cleanBatch(batch, { keep: () => false, now: 0 })).toMatchObject({ bytes: undefined, changed: true, recordsIn: 5, recordsKept: 0 });
  });
});
