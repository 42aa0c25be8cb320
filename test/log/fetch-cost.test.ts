// Fetch at constant cost, counted at the storage endpoints (bench/request-counter.ts, inside the
// SDK's retry loop): whatever the log length and wherever the offset, a fetch is at most 3 storage
// requests:
//   - in STATE's tail: the STATE read and one or two ranged GETs (the range holding the offset and
//     the next, in parallel, when both fit maxBytes);
//   - in a spilled SEG item: the STATE read, one manifest floor Query, one ranged GET;
//   - in a merged segment: the same three (its immutable .index comes from the process cache after
//     the first read of that segment).
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { countStorageRequests } from '../../bench/request-counter.js';
import type { SluiceContext } from '../../lib/context.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { encodeEntry } from '../../lib/log/manifest-entry.js';
import { putObject } from '../../lib/log/object-store.js';
import { OffsetIndexBuilder } from '../../lib/log/offset-index.js';
import { PARTITION_LEADER_EPOCH } from '../../lib/log/batch-stamp.js';
import { readRecords } from '../../lib/log/read.js';
import { intakeObjectKey, newSegmentId, segmentObjectKey } from '../../lib/log/segment-name.js';
import { spillItem, TAIL_MAX_ENTRIES } from '../../lib/log/spill.js';
import { stateKey } from '../../lib/metadata/keys.js';
import { putSpillItem } from '../../lib/metadata/manifest.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { createTopic } from '../../lib/metadata/topics.js';
import type { ManifestEntry, TopicRef } from '../../lib/metadata/types.js';
import { encodeRecordBatch } from '../../lib/records/index.js';
import { putMergedItem } from '../support/manifest-items.js';
import { createTestContext } from '../support/storage.js';

const batchOf = (offset: number, baseOffset: number) =>
  encodeRecordBatch([{ timestamp: offset, key: null, value: Buffer.from(`v${offset}`) }], { baseOffset, partitionLeaderEpoch: PARTITION_LEADER_EPOCH });

async function setLogEnd(ctx: SluiceContext, topic: TopicRef, end: number): Promise<void> {
  await ctx.ddb.send(
    new UpdateCommand({ TableName: ctx.table, Key: stateKey(topic, 0), UpdateExpression: 'SET logEndOffset = :n, tailBase = :n', ExpressionAttributeValues: { ':n': end } }),
  );
}

/**
 * A long log of spilled appends, as many produce requests and spills leave it: `records`
 * one-record ranges in one intake object, listed TAIL_MAX_ENTRIES to a SEG item.
 */
async function writeSpilledLog(ctx: SluiceContext, topic: TopicRef, records: number): Promise<void> {
  const createdAt = ctx.now();
  const objectKey = intakeObjectKey(ctx.prefix, createdAt);
  const batches = Array.from({ length: records }, (_, i) => batchOf(i, 0));
  await putObject(ctx, objectKey, Buffer.concat(batches));
  const entries: ManifestEntry[] = [];
  let position = 0;
  for (const [i, b] of batches.entries()) {
    entries.push(encodeEntry(ctx, { count: 1, objectKey, position, size: b.length, minTimestamp: i, maxTimestamp: i, createdAt }));
    position += b.length;
  }
  const items = [];
  for (let base = 0; base < records; base += TAIL_MAX_ENTRIES) items.push(spillItem(ctx, base, entries.slice(base, base + TAIL_MAX_ENTRIES)));
  for (let i = 0; i < items.length; i += 25) await Promise.all(items.slice(i, i + 25).map((item) => putSpillItem(ctx, topic, 0, item)));
  await setLogEnd(ctx, topic, records);
}

/** One merged segment of `records` batches with a sparse offset index, as a merge writes it. */
async function writeMergedSegment(ctx: SluiceContext, topic: TopicRef, records: number): Promise<void> {
  const batches = Array.from({ length: records }, (_, i) => batchOf(i, i));
  const index = new OffsetIndexBuilder(0, 1024);
  batches.forEach((b, i) => index.append(i, b.length));
  expect(index.entryCount).toBeGreaterThan(10);
  const id = newSegmentId(1);
  const objectKey = segmentObjectKey(ctx.prefix, topic, 0, 0, id, '.log');
  const indexKey = segmentObjectKey(ctx.prefix, topic, 0, 0, id, '.index');
  const log = Buffer.concat(batches);
  await Promise.all([putObject(ctx, objectKey, log), putObject(ctx, indexKey, index.toBuffer())]);
  await putMergedItem(ctx, topic, 0, {
    baseOffset: 0,
    lastOffset: records - 1,
    count: records,
    objectKey,
    position: 0,
    size: log.length,
    indexKey,
    minTimestamp: 0,
    maxTimestamp: records - 1,
    createdAt: ctx.now(),
    epoch: 1,
    mergedCount: records,
  });
  await setLogEnd(ctx, topic, records);
}

async function fetchCost(ctx: SluiceContext, topic: TopicRef, offset: number, maxBytes = 1 << 20) {
  const counter = countStorageRequests(ctx);
  const read = await readRecords(ctx, topic, 0, { offset, maxBytes });
  expect(read.records[0]).toMatchObject({ offset, value: Buffer.from(`v${offset}`) });
  return { kinds: counter.byKind(), total: counter.total(), read };
}

const IN_ITEM = { 'ddb:GetItem': 1, 'ddb:Query': 1, 's3:GetObject': 1 };

describe('fetch cost', () => {
  it('is 3 requests anywhere in appended ranges: SEG items below tailBase, STATE\'s tail (two ranges per fetch) above', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    const APPENDS = 5 * TAIL_MAX_ENTRIES + 3;
    for (let i = 0; i < APPENDS; i++) await appendToPartitions(ctx, t, [{ partition: 0, records: [{ timestamp: i, key: null, value: Buffer.from(`v${i}`) }] }]);
    const { tailBase, tail } = await getPartitionState(ctx, t, 0);
    expect(tail.length).toBeGreaterThan(1);
    for (const offset of [0, 3, 17, tailBase - 1]) expect((await fetchCost(ctx, t, offset)).kinds, `offset ${offset}`).toEqual(IN_ITEM);
    const inTail = await fetchCost(ctx, t, tailBase);
    expect(inTail.kinds).toEqual({ 'ddb:GetItem': 1, 's3:GetObject': 2 });
    expect(inTail.read.records.map((r) => r.offset)).toEqual([tailBase, tailBase + 1]);
    // Only the range holding the offset when the next one does not fit maxBytes; one at the end.
    expect((await fetchCost(ctx, t, tailBase, 1)).kinds).toEqual({ 'ddb:GetItem': 1, 's3:GetObject': 1 });
    expect((await fetchCost(ctx, t, APPENDS - 1)).kinds).toEqual({ 'ddb:GetItem': 1, 's3:GetObject': 1 });
  });

  it('stays 3 requests in a log ten times longer (400 ranges in 50 SEG items), at its start, middle and end', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    await writeSpilledLog(ctx, t, 400);
    for (const offset of [0, 201, 399]) {
      const cost = await fetchCost(ctx, t, offset);
      expect(cost.kinds, `offset ${offset}`).toEqual(IN_ITEM);
      expect(cost.read.nextFetchOffset).toBe(offset + 1); // one range per fetch: each range is its own batch
    }
  });

  it('is 3 requests in a 300-batch merged segment once its immutable index is cached, and returns up to maxBytes in one GET', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    await writeMergedSegment(ctx, t, 300);
    const cold = await fetchCost(ctx, t, 150);
    expect(cold.kinds).toEqual({ 'ddb:GetItem': 1, 'ddb:Query': 1, 's3:GetObject': 2 }); // + the .index, once per process
    for (const offset of [3, 150, 290]) {
      const cost = await fetchCost(ctx, t, offset);
      expect(cost.kinds, `offset ${offset}`).toEqual(IN_ITEM);
      expect(cost.read.nextFetchOffset).toBe(300);
    }
  });
});
