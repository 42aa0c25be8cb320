// The log cleaner (lib/log/compaction/cleaner.ts) through the maintenance job on the emulators:
// each key's newest record stays at its original offset, older ones go, tombstones stay for
// delete.retention.ms after the cleaning that first saw them, fetches step over gaps (decoded and
// raw), cleaned batches keep their offsets and producer fields, a small key map cleans in
// several passes, and compact,delete also applies retention.
import { describe, expect, it } from 'vitest';
import { appendToPartitions } from '../../lib/log/append.js';
import { readBatches, readRecords } from '../../lib/log/read.js';
import { readPartitionSnapshot } from '../../lib/log/partition-snapshot.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { createTopic } from '../../lib/metadata/topics.js';
import type { MergedSegmentItem } from '../../lib/metadata/types.js';
import { decodeRecordBatch, encodeRecordBatch, readBatchHeader } from '../../lib/records/index.js';
import { DELETE_HORIZON_FLAG } from '../../lib/log/compaction/cleaned-batch.js';
import { createTestContext } from '../support/storage.js';
import { appendKeyed, latestByKey, maintainUntilCleaned, readCompacted, readCompactedBatches } from './compaction-support.js';
import { expectKafkaSegments, withClock } from './maintenance-support.js';

const compact = { 'cleanup.policy': 'compact', 'delete.retention.ms': 3_600_000 };

describe('the log cleaner', () => {
  it('keeps each key newest record at its offset, drops older ones, keeps tombstones until delete.retention.ms after the first cleaning', async () => {
    const ctx = withClock(await createTestContext());
    const topic = await createTopic(ctx, 'c', 1, compact);
    await appendKeyed(ctx, topic, [['a', 'a0'], ['b', 'b0'], ['c', 'c0']]); // 0..2
    await appendKeyed(ctx, topic, [['a', 'a1'], ['b', null]]); // 3, 4
    await appendKeyed(ctx, topic, [['c', 'c1'], ['d', 'd0'], ['a', 'a2']]); // 5..7
    const before = await readCompacted(ctx, topic);
    expect(before.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);

    const reports = await maintainUntilCleaned(ctx);
    expect(reports.reduce((n, r) => n + r.compaction.cleanings, 0)).toBe(1);
    const after = await readCompacted(ctx, topic);
    expect(after.map((r) => [r.offset, r.key?.toString(), r.value?.toString() ?? null])).toEqual([
      [4, 'b', null],
      [5, 'c', 'c1'],
      [6, 'd', 'd0'],
      [7, 'a', 'a2'],
    ]);
    expect(latestByKey(after)).toEqual(latestByKey(before));
    const state = await getPartitionState(ctx, topic, 0);
    expect([state.logStartOffset, state.logEndOffset]).toEqual([0, 8]);
    expect((await expectKafkaSegments(ctx, { gaps: true })).segments).toBeGreaterThan(0);
    // The byte counter follows the cleaned log.
    const snapshot = await readPartitionSnapshot(ctx, topic, 0);
    expect(state.bytes).toBe(snapshot.items.reduce((n, i) => n + i.size, 0));

    // The tombstone stays until its horizon ...
    ctx.advance(3_600_000 - 4 * 62_000);
    await maintainUntilCleaned(ctx, 1);
    expect((await readCompacted(ctx, topic)).map((r) => r.offset)).toEqual([4, 5, 6, 7]);
    // ... then a cleaning is due for it alone, and it goes.
    ctx.advance(4 * 62_000);
    const [late] = await maintainUntilCleaned(ctx, 1);
    expect(late.compaction.tombstonesRemoved).toBe(1);
    expect((await readCompacted(ctx, topic)).map((r) => r.offset)).toEqual([5, 6, 7]);
    expect((await getPartitionState(ctx, topic, 0)).logStartOffset).toBe(0);
  });

  it('a fetch starting in a gap gets the next surviving record, decoded and raw, whatever maxBytes', async () => {
    const ctx = withClock(await createTestContext());
    const topic = await createTopic(ctx, 'c', 1, compact);
    for (let i = 0; i < 20; i++) await appendKeyed(ctx, topic, Array.from({ length: 10 }, (_, j) => [`k${j % 3}`, `v${i}.${j}`] as const));
    await maintainUntilCleaned(ctx);
    const survivors = (await readCompacted(ctx, topic)).map((r) => r.offset);
    expect(survivors).toEqual([197, 198, 199]);
    for (const maxBytes of [1, 100, 1 << 20]) {
      expect((await readCompacted(ctx, topic, 0, 0, maxBytes)).map((r) => r.offset)).toEqual(survivors);
      expect((await readCompactedBatches(ctx, topic, 0, 0, maxBytes)).map((r) => r.offset)).toEqual(survivors);
    }
    const fromGap = await readRecords(ctx, topic, 0, { offset: 50, maxBytes: 1 << 20 });
    expect(fromGap.records.map((r) => r.offset)).toEqual(survivors);
    expect(fromGap.nextFetchOffset).toBe(200);
    const raw = await readBatches(ctx, topic, 0, { offset: 150, maxBytes: 1 << 20 });
    expect(raw.batches.map((b) => [readBatchHeader(b).baseOffset, readBatchHeader(b).lastOffset])).toEqual([[190, 199]]);
  });

  it('a cleaned batch keeps its base offset, last offset delta, producer fields and codec, and carries the delete horizon', async () => {
    const ctx = withClock(await createTestContext());
    const topic = await createTopic(ctx, 'c', 1, compact);
    const records = [0, 1, 2, 3].map((i) => ({ timestamp: ctx.now() - 10 + i, key: Buffer.from(i < 2 ? 'x' : 'y'), value: i === 1 ? null : Buffer.from(`v${i}`) }));
    const bytes = encodeRecordBatch(records, { baseOffset: 0, producerId: 7, producerEpoch: 2, baseSequence: 0, compression: 'gzip' });
    const [res] = await appendToPartitions(ctx, topic, [{ partition: 0, producer: { producerId: 7, producerEpoch: 2, baseSequence: 0 }, batch: { bytes, count: 4, minTimestamp: records[0].timestamp } }]);
    expect(res).toMatchObject({ baseOffset: 0, count: 4 });
    await appendKeyed(ctx, topic, [['y', 'newer']]); // 4: y at 2 and 3 go
    await maintainUntilCleaned(ctx);
    const read = await readBatches(ctx, topic, 0, { offset: 0, maxBytes: 1 << 20 });
    const header = readBatchHeader(read.batches[0]);
    expect(header).toMatchObject({ baseOffset: 0, lastOffset: 3, lastOffsetDelta: 3, producerId: 7, producerEpoch: 2, baseSequence: 0, compression: 'gzip', recordCount: 1 });
    expect(header.attributes & DELETE_HORIZON_FLAG).toBe(DELETE_HORIZON_FLAG);
    const item = (await readPartitionSnapshot(ctx, topic, 0)).items[0] as MergedSegmentItem;
    expect(header.baseTimestamp).toBe(item.deleteHorizonMs);
    expect(item.deleteHorizonMs! - item.createdAt).toBeGreaterThanOrEqual(3_600_000 - 5_000);
    const [tombstone] = decodeRecordBatch(read.batches[0]).records;
    // The tombstone keeps its own timestamp, though the batch's base timestamp is now the horizon.
    expect(tombstone).toMatchObject({ offset: 1, timestamp: records[1].timestamp, value: null });
    expect(tombstone.key!.toString()).toBe('x');
    expect((await readCompacted(ctx, topic)).map((r) => r.offset)).toEqual([1, 4]);
  });

  it('a key map too small for the dirty log cleans it in several passes, never dropping a newest record', async () => {
    const ctx = withClock(await createTestContext());
    // Segments that merges cannot join, and a lag that lets them all become dirty before the first cleaning.
    const topic = await createTopic(ctx, 'c', 1, { ...compact, 'segment.bytes': 1_000, 'min.compaction.lag.ms': 600_000 });
    const expected = new Map<string, string>();
    for (let i = 0; i < 12; i++) {
      const batch = Array.from({ length: 10 }, (_, j) => [`k${(i * 7 + j) % 25}`, `v${i}.${j}`] as const);
      for (const [k, v] of batch) expected.set(k, v);
      await appendKeyed(ctx, topic, batch);
      // Separate merged segments: merge before the next append.
      if (i % 3 === 2) await maintainUntilCleaned(ctx, 2, { dedupeBufferBytes: 24 * 40 });
    }
    expect((await readCompacted(ctx, topic))).toHaveLength(120);
    ctx.advance(600_000);
    const reports = await maintainUntilCleaned(ctx, 8, { dedupeBufferBytes: 24 * 40 });
    expect(reports.some((r) => r.compaction.deferredItems > 0)).toBe(true);
    const after = await readCompacted(ctx, topic);
    expect(latestByKey(after)).toEqual(expected);
    // Every key once: all passes done.
    expect(after).toHaveLength(25);
  });

  it('compact,delete: retention removes old segments, compaction cleans the rest; compact alone keeps everything', async () => {
    const ctx = withClock(await createTestContext());
    const both = await createTopic(ctx, 'both', 1, { ...compact, 'cleanup.policy': 'compact,delete', 'retention.ms': 200_000 });
    const only = await createTopic(ctx, 'only', 1, { ...compact, 'retention.ms': 200_000, 'min.cleanable.dirty.ratio': 0.1 });
    for (const t of [both, only]) await appendKeyed(ctx, t, [['old', 'o'], ['k', 'k0']]);
    await maintainUntilCleaned(ctx, 2);
    ctx.advance(250_000);
    for (const t of [both, only]) await appendKeyed(ctx, t, [['k', 'k1'], ['n', 'n0']]);
    await maintainUntilCleaned(ctx);
    expect((await getPartitionState(ctx, both, 0)).logStartOffset).toBe(2);
    expect((await readCompacted(ctx, both)).map((r) => r.value!.toString())).toEqual(['k1', 'n0']);
    expect((await getPartitionState(ctx, only, 0)).logStartOffset).toBe(0);
    expect((await readCompacted(ctx, only)).map((r) => r.value!.toString())).toEqual(['o', 'k1', 'n0']);
  });
});
