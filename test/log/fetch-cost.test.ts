// Fetch at constant cost: whatever the log length and wherever the offset, a fetch is one STATE
// read, one manifest floor Query and one ranged GET (index objects come from the process cache),
// counted at the storage endpoints.
import { describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { readRecords } from '../../lib/log/read.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { layoutProduceObject } from '../../lib/log/produce-object.js';
import { planSegment, putObject, writeSegment } from '../../lib/log/write-segment.js';
import { acquireLease } from '../../lib/metadata/lease.js';
import { putSegmentItem } from '../../lib/metadata/manifest.js';
import { commitAppend, getPartitionState } from '../../lib/metadata/partition-state.js';
import { encodeRecordBatch } from '../../lib/records/index.js';
import { countStorageRequests } from '../../bench/request-counter.js';
import { createTestContext } from '../support/storage.js';

const SEGMENTS = 300;

const batchAt = (offset: number, epoch: number) =>
  encodeRecordBatch([{ timestamp: offset, key: null, value: Buffer.from(`v${offset}`) }], { baseOffset: offset, partitionLeaderEpoch: epoch });

/** 300 one-record segments, one object each (as 300 produce requests write them), committed at once. */
async function writeManySegments(ctx: SluiceContext, topic: string): Promise<void> {
  const { epoch } = await acquireLease(ctx, topic, 0, ctx.now() + 1000);
  let bytes = 0;
  for (let from = 0; from < SEGMENTS; from += 25) {
    await Promise.all(
      Array.from({ length: 25 }, async (_, i) => {
        const object = layoutProduceObject(ctx, topic, [{ partition: 0, epoch, baseOffset: from + i, batch: batchAt(from + i, epoch), minTimestamp: from + i }]);
        bytes += object.body.length;
        await Promise.all([putObject(ctx, object.objectKey, object.body), putSegmentItem(ctx, topic, 0, object.items[0])]);
      }),
    );
  }
  await commitAppend(ctx, { topic, partition: 0, epoch, baseOffset: 0, count: SEGMENTS, bytes, expiresAt: ctx.now() + ctx.leaseMs });
}

/** One segment of 300 batches with a sparse offset index, as compaction writes it. */
async function writeIndexedSegment(ctx: SluiceContext, topic: string): Promise<void> {
  const { epoch } = await acquireLease(ctx, topic, 0, ctx.now() + 1000);
  const batches = Array.from({ length: SEGMENTS }, (_, i) => batchAt(i, epoch));
  const plan = planSegment(ctx, { topic, partition: 0, epoch, baseOffset: 0, batches, minTimestamp: 0, indexIntervalBytes: 1024 });
  expect(plan.index).toBeDefined();
  await writeSegment(ctx, topic, 0, plan);
  await commitAppend(ctx, { topic, partition: 0, epoch, baseOffset: 0, count: SEGMENTS, bytes: plan.log.length, expiresAt: ctx.now() + ctx.leaseMs });
}

async function fetchCost(ctx: SluiceContext, topic: string, offset: number) {
  const counter = countStorageRequests(ctx);
  const read = await readRecords(ctx, topic, 0, { offset, maxBytes: 1 << 20 });
  expect(read.records[0]).toMatchObject({ offset, value: Buffer.from(`v${offset}`) });
  return counter;
}

describe('fetch cost', () => {
  it('is at most 3 requests at offset 3 and at offset 290 of a 300-segment partition', async () => {
    const ctx = await createTestContext();
    await writeManySegments(ctx, 't');
    for (const offset of [3, 290]) {
      const counter = await fetchCost(ctx, 't', offset);
      expect(counter.total()).toBeLessThanOrEqual(3);
      expect(counter.byKind()).toEqual({ 'ddb:GetItem': 1, 'ddb:Query': 1, 's3:GetObject': 1 });
    }
  });

  it('is at most 3 requests in a 300-batch indexed segment once its index is cached, and returns up to maxBytes in one GET', async () => {
    const ctx = await createTestContext();
    await writeIndexedSegment(ctx, 't');
    await readRecords(ctx, 't', 0, { offset: 150, maxBytes: 1 << 20 }); // loads the immutable index into the cache
    for (const offset of [3, 290]) {
      const counter = await fetchCost(ctx, 't', offset);
      expect(counter.byKind()).toEqual({ 'ddb:GetItem': 1, 'ddb:Query': 1, 's3:GetObject': 1 });
      const read = await readRecords(ctx, 't', 0, { offset, maxBytes: 1 << 20 });
      expect(read.nextOffset).toBe(SEGMENTS);
    }
  });

  it('is at most 3 requests anywhere in 300 appended ranges: SEG items below, STATE\'s tail (two ranges per fetch) at the end', async () => {
    const ctx = await createTestContext();
    for (let i = 0; i < SEGMENTS; i++) {
      await appendToPartitions(ctx, 't', [{ partition: 0, records: [{ timestamp: i, key: null, value: Buffer.from(`v${i}`) }] }]);
    }
    const tail = (await getPartitionState(ctx, 't', 0)).tail ?? [];
    expect(tail.length).toBeGreaterThan(1);
    const firstInTail = SEGMENTS - tail.length;
    for (const offset of [3, 150, firstInTail - 1]) {
      expect((await fetchCost(ctx, 't', offset)).byKind()).toEqual({ 'ddb:GetItem': 1, 'ddb:Query': 1, 's3:GetObject': 1 });
    }
    const inTail = await fetchCost(ctx, 't', firstInTail);
    expect(inTail.byKind()).toEqual({ 'ddb:GetItem': 1, 's3:GetObject': 2 });
    const read = await readRecords(ctx, 't', 0, { offset: firstInTail, maxBytes: 1 << 20 });
    expect(read.records.map((r) => r.offset)).toEqual([firstInTail, firstInTail + 1]);
    expect((await fetchCost(ctx, 't', SEGMENTS - 1)).byKind()).toEqual({ 'ddb:GetItem': 1, 's3:GetObject': 1 });
  });
});
