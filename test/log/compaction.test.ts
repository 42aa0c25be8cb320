// Compaction through the maintenance job: small appended segments merge into segments within
// segment.bytes and segment.ms, with .index and .timeindex objects; reads return the same records
// with far fewer S3 GETs; ListOffsets by timestamp answers from the time index.
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../lib/context.js';
import { planMergeRuns } from '../../lib/log/compaction.js';
import { listOffsets } from '../../lib/log/list-offsets.js';
import { readPartitionSnapshot, type StoredSegmentItem } from '../../lib/log/partition-snapshot.js';
import { TAIL_MAX_RANGES, spillIdleTail } from '../../lib/log/partition-tail.js';
import { decodeTimeIndex } from '../../lib/log/time-index.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createTestContext, emulatorClients } from '../support/storage.js';
import { readAll } from './read-all.js';
import { appendValues, expectConsistentPartition, runOnce, withClock } from './maintenance-support.js';
import { observeSdk } from './sdk-faults.js';

describe('compaction', () => {
  it('merges 1,000 small appends into segments within the limits; fetch then needs far fewer GETs', async () => {
    const ctx = await createTestContext();
    const topic = 'thousand';
    const segmentBytes = 8192;
    const segmentMs = 60_000;
    await createTopic(ctx, topic, 1, { 'segment.bytes': segmentBytes, 'segment.ms': segmentMs, 'index.interval.bytes': 1024 });
    const t0 = Date.now() - 20_000; // recent: the default retention.ms must not apply
    const expected = new Map<number, string>();
    for (let i = 0; i < 1000; i++) {
      const base = await appendValues(ctx, topic, [`value-${i}`], t0 + i * 10);
      expected.set(base, `value-${i}`);
    }

    // A separate reader process, so only its own requests are counted.
    const reader = createContext(emulatorClients(), { bucket: ctx.bucket, table: ctx.table });
    const sdk = observeSdk(reader);
    const gets = () => sdk.calls.filter((c) => c.client === 's3' && c.command === 'GetObject').length;
    const beforeRead = await readAll(reader, topic, 0);
    const getsBefore = gets();
    const requestsBefore = sdk.calls.length;
    expect(beforeRead.records).toHaveLength(1000);

    const report = await runOnce(ctx);
    expect(report.errors).toEqual([]);
    expect(report.compaction.merges).toBeGreaterThan(0);
    const { chain } = await expectConsistentPartition(ctx, topic, expected);
    // Compacted segments, then the ranges still in STATE's tail.
    const compacted = (chain as StoredSegmentItem[]).filter((i) => i.mergedCount !== undefined);
    expect(chain.length - compacted.length).toBeLessThanOrEqual(TAIL_MAX_RANGES);
    for (const item of compacted) {
      expect(item.size).toBeLessThanOrEqual(segmentBytes);
      expect(item.maxTimestamp - item.minTimestamp).toBeLessThanOrEqual(segmentMs);
      expect(item.mergedCount).toBeGreaterThan(1);
      expect(item.timeIndexKey).toMatch(/\/0\/\d{20}-[\w-]+\.timeindex$/);
      expect(item.indexKey).toMatch(/\.index$/);
      expect(item.objectKey).toMatch(new RegExp(`^${topic}/0/${String(item.baseOffset).padStart(20, '0')}-[\\w-]+\\.log$`));
    }
    // 1,000 segments of ~80 bytes fill 8 KB segments: about ten of them.
    expect(chain.length).toBeLessThan(20);

    sdk.calls.length = 0;
    const afterRead = await readAll(reader, topic, 0);
    expect(afterRead.records.map((r) => r.value?.toString())).toEqual(beforeRead.records.map((r) => r.value?.toString()));
    const getsAfter = gets();
    const requestsAfter = sdk.calls.length;
    console.log(
      `compaction: ${chain.length} segments; read of 1,000 records: ${getsBefore} GETs / ${requestsBefore} requests before, ${getsAfter} GETs / ${requestsAfter} requests after`,
    );
    expect(getsAfter * 10).toBeLessThan(getsBefore);
    expect(requestsAfter * 5).toBeLessThan(requestsBefore);

    // Stable: a second run has nothing left to merge.
    const again = await runOnce(ctx);
    expect(again.compaction.merges).toBe(0);

    // ListOffsets by time, from the time index, for every 37th record and around the ends.
    for (let i = 0; i < 1000; i += 37) {
      expect(await listOffsets(reader, topic, 0, t0 + i * 10)).toEqual({ offset: i, timestamp: t0 + i * 10 });
      expect(await listOffsets(reader, topic, 0, t0 + i * 10 - 3)).toEqual({ offset: i, timestamp: t0 + i * 10 });
    }
    expect(await listOffsets(reader, topic, 0, 0)).toEqual({ offset: 0, timestamp: t0 });
    expect(await listOffsets(reader, topic, 0, t0 + 1_000_000)).toEqual({ offset: 1000 });

    // The .timeindex is Kafka's: 12-byte entries, increasing timestamps, each the max so far at its offset.
    const first = compacted[0];
    const out = await ctx.s3.send(new GetObjectCommand({ Bucket: ctx.bucket, Key: first.timeIndexKey! }));
    const body = Buffer.from(await out.Body!.transformToByteArray());
    expect(body.length % 12).toBe(0);
    const entries = decodeTimeIndex(first.baseOffset, body);
    expect(entries.length).toBeGreaterThan(1);
    entries.forEach((e, i) => {
      expect(e.timestamp).toBe(t0 + e.offset * 10);
      if (i > 0) expect(e.timestamp).toBeGreaterThan(entries[i - 1].timestamp);
    });
    expect(entries[entries.length - 1]).toEqual({ timestamp: first.maxTimestamp, offset: first.lastOffset });

    // A lookup in the middle of a compacted segment reads from where the time index points.
    sdk.calls.length = 0;
    const mid = Math.floor((first.baseOffset + first.lastOffset) / 2);
    expect(await listOffsets(reader, topic, 0, t0 + mid * 10)).toEqual({ offset: mid, timestamp: t0 + mid * 10 });
    const logGets = sdk.calls.filter((c) => c.command === 'GetObject' && String(c.input.Key).endsWith('.log'));
    expect(logGets).toHaveLength(1);
    expect(Number(/bytes=(\d+)-/.exec(String(logGets[0].input.Range))![1])).toBeGreaterThan(first.size / 4);
  });

  it('keeps each merged segment within segment.ms, and never merges the newest segment', async () => {
    const ctx = await createTestContext();
    const topic = 'span';
    await createTopic(ctx, topic, 1, { 'segment.ms': 100 });
    const t0 = Date.now();
    const expected = new Map<number, string>();
    for (let i = 0; i < 12; i++) {
      const base = await appendValues(ctx, topic, [`x${i}`], t0 + i * 40);
      expected.set(base, `x${i}`);
    }
    await runOnce(ctx);
    const { chain } = await expectConsistentPartition(ctx, topic, expected);
    for (const item of chain) expect(item.maxTimestamp - item.minTimestamp).toBeLessThanOrEqual(100);
    // The tail spills before its records would span more than segment.ms (three appends, 80 ms), and
    // each spilled item becomes one segment; the last three ranges are still in STATE's tail.
    expect(chain.map((i) => [i.baseOffset, i.lastOffset])).toEqual([[0, 2], [3, 5], [6, 8], [9, 9], [10, 10], [11, 11]]);
    expect((chain as StoredSegmentItem[]).slice(0, 3).every((i) => i.mergedCount === 1 && i.indexKey === undefined)).toBe(true);
  });

  it('plans runs so that every rewrite grows a segment by half at least', () => {
    const item = (base: number, size: number, merged = false): StoredSegmentItem => ({
      baseOffset: base,
      lastOffset: base,
      count: 1,
      objectKey: `t/0/${base}.log`,
      position: 0,
      size,
      minTimestamp: 0,
      maxTimestamp: 0,
      epoch: 1,
      createdAt: 0,
      ...(merged ? { mergedCount: 2 } : {}),
    });
    const snapshot = (items: StoredSegmentItem[]) => ({
      topic: 't',
      partition: 0,
      state: { topic: 't', partition: 0, nextOffset: items.length, logStartOffset: 0, epoch: 1, expiresAt: 0, bytes: 0, segments: 0 },
      items,
    });
    const config = { segmentBytes: 1000, segmentMs: 1000, indexIntervalBytes: 4096 };
    const bases = (runs: StoredSegmentItem[][]) => runs.map((r) => r.map((i) => i.baseOffset));
    // A 700-byte merged segment followed by 3 × 100: the small ones merge without it.
    expect(bases(planMergeRuns(snapshot([item(0, 700, true), item(1, 100), item(2, 100), item(3, 100), item(4, 100)]), config, 't/0/'))).toEqual([[1, 2, 3]]);
    // Once the small ones add up to half of it, it joins.
    expect(bases(planMergeRuns(snapshot([item(0, 300, true), item(1, 100), item(2, 50), item(3, 100)]), config, 't/0/'))).toEqual([[0, 1, 2]]);
    // The byte limit splits runs; the newest (4) is never included.
    expect(bases(planMergeRuns(snapshot([item(0, 400), item(1, 400), item(2, 400), item(3, 400), item(4, 400)]), config, 't/0/'))).toEqual([[0, 1], [2, 3]]);
    // A range of a shared object is rewritten even alone.
    const shared = { ...item(0, 100), objectKey: 'batches/abc.log', position: 40 };
    expect(bases(planMergeRuns(snapshot([shared, item(1, 900), item(2, 10)]), config, 't/0/'))).toEqual([[0]]);
  });

  it('starts a run at the first item of a newer leader epoch until it is a grace period old', () => {
    const item = (base: number, epoch: number): StoredSegmentItem => ({
      baseOffset: base,
      lastOffset: base,
      count: 1,
      objectKey: `t/0/${base}.log`,
      position: 0,
      size: 100,
      minTimestamp: 0,
      maxTimestamp: 0,
      epoch,
      createdAt: 1000,
    });
    const items = [item(0, 1), item(1, 2), item(2, 2), item(3, 3), item(4, 3)];
    const snapshot = {
      topic: 't',
      partition: 0,
      state: { topic: 't', partition: 0, nextOffset: 5, logStartOffset: 0, epoch: 3, expiresAt: 0, bytes: 0, segments: 0 },
      items,
    };
    const config = { segmentBytes: 1000, segmentMs: 1000, indexIntervalBytes: 4096 };
    const bases = (runs: StoredSegmentItem[][]) => runs.map((r) => r.map((i) => i.baseOffset));
    // Young: items 1 and 3 keep their keys (a stale leader of epoch 1 or 2 may still put there).
    expect(bases(planMergeRuns(snapshot, config, 't/0/', 1000))).toEqual([[1, 2]]);
    // Older than the grace period: one run across the epochs.
    expect(bases(planMergeRuns(snapshot, config, 't/0/', 1001))).toEqual([[0, 1, 2, 3]]);
  });

  it('ListOffsets by timestamp on uncompacted segments matches a scan of the records', async () => {
    const ctx = await createTestContext();
    const topic = 'times';
    await createTopic(ctx, topic, 1);
    // Timestamps out of order inside and across batches, as producers may send them.
    const stamps = [[50, 10], [30], [70, 60, 65], [20]];
    const all: { offset: number; ts: number }[] = [];
    for (const batch of stamps) {
      const [result] = await (await import('../../lib/log/append.js')).appendToPartitions(ctx, topic, [
        { partition: 0, records: batch.map((ts) => ({ timestamp: ts, key: null, value: Buffer.from(String(ts)) })) },
      ]);
      if ('error' in result) throw result.error;
      batch.forEach((ts, i) => all.push({ offset: result.baseOffset + i, ts }));
    }
    for (const target of [0, 10, 15, 30, 31, 50, 61, 70, 71]) {
      const hit = all.find((r) => r.ts >= target);
      expect(await listOffsets(ctx, topic, 0, target)).toEqual(hit ? { offset: hit.offset, timestamp: hit.ts } : { offset: all.length });
    }
    const snap = await readPartitionSnapshot(ctx, topic, 0);
    expect(snap.items).toHaveLength(0);
    expect(snap.state.tail).toHaveLength(4);

    // The same from a SEG item listing the four ranges (the tail spilled once the partition is idle).
    const later = withClock(ctx);
    later.advance(10 * 60_000);
    expect(await spillIdleTail(later, snap.state)).toBe(true);
    const spilled = await readPartitionSnapshot(ctx, topic, 0);
    expect(spilled.items).toHaveLength(1);
    expect(spilled.items[0].ranges).toHaveLength(4);
    expect(spilled.state.tail ?? []).toHaveLength(0);
    for (const target of [0, 10, 15, 30, 31, 50, 61, 70, 71]) {
      const hit = all.find((r) => r.ts >= target);
      expect(await listOffsets(ctx, topic, 0, target)).toEqual(hit ? { offset: hit.offset, timestamp: hit.ts } : { offset: all.length });
    }
  });
});
