// Segment merging (merge.ts): idle tails spilled by the leader, runs planned from old items below
// tailBase, per-partition segments that are Kafka's layout (RecordBatches at the offsets their
// names say, .index entries at the right batches), each intake object read once for all the
// partitions of a topic, a memory budget that spreads the work over runs, and reads that never
// see a gap, a duplicate or a wrong byte while a merge swaps in.
import { describe, expect, it } from 'vitest';
import { countStorageRequests } from '../../bench/request-counter.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { planMergeRuns } from '../../lib/log/merge.js';
import type { PartitionSnapshot } from '../../lib/log/partition-snapshot.js';
import { readPartitionSnapshot } from '../../lib/log/partition-snapshot.js';
import { createTopic } from '../../lib/metadata/topics.js';
import type { ManifestEntry, PartitionState, SegmentItem } from '../../lib/metadata/types.js';
import { createTestContext } from '../support/storage.js';
import {
  appendValues,
  expectConsistentPartition,
  expectKafkaSegments,
  otherProcess,
  readAll,
  runOnce,
  withClock,
} from './maintenance-support.js';
import { observeSdk } from './sdk-faults.js';

const config = { segmentBytes: 10_000, segmentMs: 1_000_000, indexIntervalBytes: 4096 };

function item(base: number, last: number, size: number, createdAt: number, spilled = true): SegmentItem {
  const summary = {
    baseOffset: base,
    lastOffset: last,
    count: last - base + 1,
    objectKey: `k${base}`,
    position: 0,
    size,
    minTimestamp: 0,
    maxTimestamp: 0,
    createdAt,
    epoch: 0,
  };
  return spilled ? { ...summary, entries: ['x' as ManifestEntry] } : { ...summary, mergedCount: 2 };
}

function snapshotOf(items: SegmentItem[], tailBase: number, logStartOffset = 0): PartitionSnapshot {
  const state = { tailBase, logStartOffset, logEndOffset: tailBase, tail: [] } as unknown as PartitionState;
  return { topic: { name: 't', id: 'x' }, partition: 0, state, items };
}

describe('planMergeRuns', () => {
  it('merges old consecutive items below tailBase and above logStartOffset, never young ones or pending spills', () => {
    const items = [item(0, 9, 100, 0), item(10, 19, 100, 0), item(20, 29, 100, 0), item(30, 39, 100, 5000), item(40, 49, 100, 0)];
    // tailBase 40: SEG#40 may be a pending spill. SEG#30 is younger than the grace period.
    expect(planMergeRuns(snapshotOf(items, 40, 10), config, 5500, 1000, 1 << 20).map((r) => r.map((i) => i.baseOffset))).toEqual([[10, 20]]);
  });

  it('rewrites a spilled item alone but leaves a lone merged segment, and grows segments by half at least', () => {
    const big = item(0, 99, 3000, 0, false);
    expect(planMergeRuns(snapshotOf([big], 100), config, 10_000, 1000, 1 << 20)).toEqual([]);
    expect(planMergeRuns(snapshotOf([big, item(100, 100, 100, 0)], 101), config, 10_000, 1000, 1 << 20).map((r) => r.map((i) => i.baseOffset))).toEqual([[100]]);
    const rest = [item(100, 109, 800, 0, false), item(110, 119, 800, 0, false)];
    expect(planMergeRuns(snapshotOf([big, ...rest], 120), config, 10_000, 1000, 1 << 20).map((r) => r.map((i) => i.baseOffset))).toEqual([[0, 100, 110]]);
  });

  it('cuts runs at segment.bytes and at segment.ms', () => {
    const items = [0, 1, 2, 3].map((i) => ({ ...item(i * 10, i * 10 + 9, 400, 0), minTimestamp: i * 100, maxTimestamp: i * 100 }));
    expect(planMergeRuns(snapshotOf(items, 40), { ...config, segmentBytes: 800 }, 10_000, 1000, 1 << 20).map((r) => r.length)).toEqual([2, 2]);
    expect(planMergeRuns(snapshotOf(items, 40), { ...config, segmentMs: 150 }, 10_000, 1000, 1 << 20).map((r) => r.length)).toEqual([2, 2]);
  });
});

describe('merging', () => {
  it('spills an idle tail, then merges into segments that decode at the offsets their names say, with .index entries at the right batches', async () => {
    const ctx = withClock(await createTestContext());
    const topic = await createTopic(ctx, 'idx', 1, { 'index.interval.bytes': 150 });
    const expected = new Map<number, string>();
    for (let i = 0; i < 12; i++) {
      const values = [0, 1, 2].map((j) => `v${i}-${j}-${'x'.repeat(40)}`);
      const base = await appendValues(ctx, topic, values);
      values.forEach((v, j) => expected.set(base + j, v));
    }
    // 12 appends: the appenders spilled 8 entries; 4 stay in STATE's tail.
    expect((await readPartitionSnapshot(ctx, topic, 0)).state.tail.length).toBe(4);

    ctx.advance(61_000);
    const first = await runOnce(ctx);
    expect(first.errors).toEqual([]);
    expect(first.tailSpills).toBe(1);
    expect(first.merge.merges).toBe(1); // the appenders' spill is old enough; the leader's is not yet
    await expectConsistentPartition(ctx, topic, expected);

    ctx.advance(ctx.graceMs + 100);
    const second = await runOnce(ctx);
    expect(second.errors).toEqual([]);
    expect(second.merge.merges).toBe(1);
    const { chain, state } = await expectConsistentPartition(ctx, topic, expected);
    expect(state.tail).toEqual([]);
    expect(chain).toHaveLength(1);
    expect(chain[0]).toMatchObject({ baseOffset: 0, lastOffset: 35, position: 0, mergedCount: 2 });
    expect(chain[0].objectKey).toMatch(new RegExp(`^idx-${topic.id}/0/00000000000000000000-\\d+-[0-9a-f]{16}\\.log$`));
    expect(chain[0].indexKey).toBe(chain[0].objectKey.replace(/\.log$/, '.index'));

    const checked = await expectKafkaSegments(ctx);
    expect(checked.segments).toBeGreaterThanOrEqual(1);
    expect(checked.indexEntries).toBeGreaterThan(3);
    // Reads from every offset, through the index.
    for (let offset = 0; offset < 36; offset += 5) {
      const { records } = await readAll(ctx, topic, 0, offset);
      expect(records[0].value!.toString()).toBe(expected.get(offset));
    }
  });

  it('merges a keyed topic of 16 partitions with exactly one GET per intake object', async () => {
    // A grace period longer than leading 16 partitions takes: the leader's spills wait for the next run.
    const ctx = withClock(await createTestContext({ graceMs: 10_000 }));
    const topic = await createTopic(ctx, 'keyed', 16);
    const expected = Array.from({ length: 16 }, () => new Map<number, string>());
    const requests = 6;
    for (let r = 0; r < requests; r++) {
      const results = await appendToPartitions(
        ctx,
        topic,
        Array.from({ length: 16 }, (_, p) => ({ partition: p, records: [{ timestamp: ctx.now(), key: Buffer.from(`k${p}`), value: Buffer.from(`r${r}p${p}`) }] })),
      );
      results.forEach((res) => {
        if ('error' in res) throw res.error;
        expected[res.partition].set(res.baseOffset, `r${r}p${res.partition}`);
      });
    }
    ctx.advance(61_000);
    const spilled = await runOnce(ctx);
    expect(spilled.tailSpills).toBe(16);
    expect(spilled.merge.merges).toBe(0);

    const job = otherProcess(ctx, 61_000 + ctx.graceMs + 100);
    const counter = countStorageRequests(job);
    const merged = await runOnce(job);
    expect(merged.errors).toEqual([]);
    expect(merged.merge.merges).toBe(16);
    expect(merged.merge.intakeObjectsRead).toBe(requests);
    expect(counter.counts.get('s3:GetObject')).toBe(requests);
    for (let p = 0; p < 16; p++) await expectConsistentPartition(job, topic, expected[p], { partition: p });
    expect((await expectKafkaSegments(job)).segments).toBe(16);
  });

  it('spreads a merge over runs when it needs more than the memory budget', async () => {
    const ctx = withClock(await createTestContext());
    const topic = await createTopic(ctx, 'budget', 8);
    const expected = Array.from({ length: 8 }, () => new Map<number, string>());
    for (let r = 0; r < 4; r++) {
      const results = await appendToPartitions(
        ctx,
        topic,
        Array.from({ length: 8 }, (_, p) => ({ partition: p, records: [{ timestamp: ctx.now(), key: null, value: Buffer.from(`r${r}p${p}-${'y'.repeat(200)}`) }] })),
      );
      for (const res of results) {
        if ('error' in res) throw res.error;
        expected[res.partition].set(res.baseOffset, `r${r}p${res.partition}-${'y'.repeat(200)}`);
      }
    }
    ctx.advance(61_000);
    await runOnce(ctx);
    ctx.advance(ctx.graceMs + 100);
    // Each partition's run needs ~1 KB of the 4 objects; the budget holds about three of them.
    const budget = 3_500;
    const runs = [];
    for (let i = 0; i < 6; i++) {
      const report = await runOnce(ctx, budget);
      expect(report.errors).toEqual([]);
      runs.push(report.merge);
      if (report.merge.deferredRuns === 0) break;
    }
    expect(runs.length).toBeGreaterThan(1);
    expect(runs[0].merges).toBeGreaterThan(0);
    expect(runs[0].merges).toBeLessThan(8);
    expect(runs[0].deferredRuns).toBe(8 - runs[0].merges);
    for (const run of runs) expect(run.intakeObjectsRead).toBeLessThanOrEqual(4);
    expect(runs.reduce((n, r) => n + r.merges, 0)).toBe(8);
    for (let p = 0; p < 8; p++) await expectConsistentPartition(ctx, topic, expected[p], { partition: p });
  });

  it('reads between every request of a merge see no gap, no duplicate and no wrong byte', async () => {
    // A grace period longer than the reads the test makes while a swap is in flight.
    const ctx = withClock(await createTestContext({ graceMs: 60_000 }));
    const topic = await createTopic(ctx, 'live', 2);
    const expected = [new Map<number, string>(), new Map<number, string>()];
    for (let i = 0; i < 11; i++) {
      const results = await appendToPartitions(ctx, topic, [0, 1].map((p) => ({ partition: p, records: [{ timestamp: ctx.now(), key: null, value: Buffer.from(`${p}:${i}`) }, { timestamp: ctx.now(), key: null, value: Buffer.from(`${p}:${i}b`) }] })));
      for (const res of results) {
        if ('error' in res) throw res.error;
        expected[res.partition].set(res.baseOffset, `${res.partition}:${i}`).set(res.baseOffset + 1, `${res.partition}:${i}b`);
      }
    }
    ctx.advance(61_000);
    await runOnce(ctx);
    const job = otherProcess(ctx, 61_000 + ctx.graceMs + 100);
    const sdk = observeSdk(job);
    let reads = 0;
    sdk.gate = async (call) => {
      if (call.client === 'ddb' && call.command === 'GetItem') return;
      for (const p of [0, 1]) {
        const { records } = await readAll(ctx, topic, p);
        expect(records.map((r) => [r.offset, r.value!.toString()])).toEqual([...expected[p]].sort((a, b) => a[0] - b[0]));
      }
      reads++;
    };
    const report = await runOnce(job);
    expect(report.errors).toEqual([]);
    expect(report.merge).toMatchObject({ merges: 2, abandoned: 0 });
    expect(reads).toBeGreaterThan(10);
    for (const p of [0, 1]) await expectConsistentPartition(ctx, topic, expected[p], { partition: p });
  });
});
