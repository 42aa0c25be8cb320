// lib/metadata/manifest.ts: SEG item parsing, the exact conditions of every manifest write
// (create-only spill, touch / swap / delete only the exact item seen) and what a refusal means,
// the floor query's merge-race defence, and the queries against the emulator.
import { BatchWriteCommand, DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  allSegmentItems,
  deleteAllSegmentItems,
  deleteSegmentItem,
  firstSegmentItemWithMaxTimestampAtLeast,
  floorSegmentItem,
  getSegmentItem,
  putSpillItem,
  replaceSegmentItem,
  segmentFromItem,
  segmentItemsDownFrom,
  touchSpillItem,
} from '../../lib/metadata/manifest.js';
import type { ManifestEntry, MergedSegmentItem, SegmentItem, SpilledItem, TopicRef } from '../../lib/metadata/types.js';
import { conditionFailed, mockedDdbContext } from '../support/mock-ddb.js';
import { createTestContext } from '../support/storage.js';

const topic: TopicRef = { name: 't', id: 'TID' };
const entry = (e: string) => e as ManifestEntry;
/** A merged segment's item (or any item, stored raw). */
const seg = (baseOffset: number, over: Partial<MergedSegmentItem> = {}): MergedSegmentItem => ({
  baseOffset,
  lastOffset: baseOffset + 9,
  count: 10,
  objectKey: `obj-${baseOffset}`,
  position: 0,
  size: 100,
  minTimestamp: 1000 + baseOffset,
  maxTimestamp: 1000 + baseOffset + 9,
  createdAt: 1,
  epoch: 0,
  ...over,
});
/** A spilled item: the same summary, listing entries. */
const spill = (baseOffset: number, over: Partial<SpilledItem> = {}): SpilledItem => {
  const { indexKey: _i, timeIndexKey: _t, mergedCount: _m, cleanedThrough: _c, deleteHorizonMs: _d, ...summary } = seg(baseOffset);
  return { ...summary, entries: [entry(`e${baseOffset}`)], ...over };
};
const stored = (s: SegmentItem) => ({ pk: 'PART#t#TID#0', sk: `SEG#${String(s.baseOffset).padStart(20, '0')}`, ...s });

describe('segmentFromItem', () => {
  it('reads every field; optional ones stay undefined', () => {
    const s = segmentFromItem(stored(seg(5, { indexKey: 'i', timeIndexKey: 'ti', mergedCount: 3 })));
    expect(s).toEqual(seg(5, { indexKey: 'i', timeIndexKey: 'ti', mergedCount: 3 }));
    expect(segmentFromItem(stored(spill(5, { entries: [entry('a')] })))).toEqual(spill(5, { entries: [entry('a')] }));
    const plain = segmentFromItem(stored(seg(5)));
    expect(plain.indexKey).toBeUndefined();
    expect(plain.entries).toBeUndefined();
  });
  it.each([
    ['entries not strings', { entries: [1] }, /entries/],
    ['entries beside a merged segment\'s fields', { entries: ['a'], indexKey: 'i' }, /merged segment/],
    ['objectKey missing', { objectKey: undefined }, /objectKey/],
    ['a non-integer offset', { baseOffset: '5' }, /baseOffset/],
    ['a missing size', { size: undefined }, /size/],
  ])('%s is a clear error naming the item', (_w, over, message) => {
    expect(() => segmentFromItem({ ...stored(seg(5)), ...over })).toThrow(message);
    expect(() => segmentFromItem({ ...stored(seg(5)), ...over })).toThrow(/SEG#00000000000000000005/);
  });
});

describe('writes', () => {
  it('putSpillItem: create-only; refused = false', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(PutCommand).resolvesOnce({}).rejects(conditionFailed());
    const item = spill(5, { entries: [entry('x')] });
    expect(await putSpillItem(ctx, topic, 0, item)).toBe(true);
    const input = mock.commandCalls(PutCommand)[0].args[0].input;
    expect(input.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(input.Item).toMatchObject({ pk: 'PART#t#TID#0', sk: 'SEG#00000000000000000005', objectKey: 'obj-5', entries: ['x'] });
    expect(await putSpillItem(ctx, topic, 0, item)).toBe(false);
  });

  it('touchSpillItem: only createdAt, only if still the item seen', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(UpdateCommand).resolvesOnce({}).rejects(conditionFailed());
    expect(await touchSpillItem(ctx, topic, 0, spill(5), 777)).toBe(true);
    const input = mock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(input.Key).toEqual({ pk: 'PART#t#TID#0', sk: 'SEG#00000000000000000005' });
    expect(input.ConditionExpression).toBe('objectKey = :seen AND lastOffset = :seenLast');
    expect(input.UpdateExpression).toBe('SET createdAt = :now');
    expect(input.ExpressionAttributeValues).toEqual({ ':seen': 'obj-5', ':seenLast': 14, ':now': 777 });
    expect(await touchSpillItem(ctx, topic, 0, spill(5), 777)).toBe(false);
  });

  it('replaceSegmentItem: a put conditioned on the exact item seen; refused = false', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(PutCommand).resolvesOnce({}).rejects(conditionFailed());
    const merged = seg(0, { lastOffset: 29, count: 30, objectKey: 'merged' });
    expect(await replaceSegmentItem(ctx, topic, 0, merged, { objectKey: 'obj-0', lastOffset: 9 })).toBe(true);
    const input = mock.commandCalls(PutCommand)[0].args[0].input;
    expect(input.ConditionExpression).toBe('objectKey = :seen AND lastOffset = :seenLast');
    expect(input.ExpressionAttributeValues).toEqual({ ':seen': 'obj-0', ':seenLast': 9 });
    expect(input.Item).toMatchObject({ sk: 'SEG#00000000000000000000', objectKey: 'merged', lastOffset: 29 });
    expect(await replaceSegmentItem(ctx, topic, 0, merged, { objectKey: 'obj-0', lastOffset: 9 })).toBe(false);
  });

  it('deleteSegmentItem: conditioned on the exact item seen; refused = false; other failures thrown', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(DeleteCommand).resolvesOnce({}).rejectsOnce(conditionFailed()).rejects(Object.assign(new Error('x'), { name: 'InternalServerError' }));
    expect(await deleteSegmentItem(ctx, topic, 0, 10, { objectKey: 'obj-10', lastOffset: 19 })).toBe(true);
    const input = mock.commandCalls(DeleteCommand)[0].args[0].input;
    expect(input.Key).toEqual({ pk: 'PART#t#TID#0', sk: 'SEG#00000000000000000010' });
    expect(input.ConditionExpression).toBe('objectKey = :seen AND lastOffset = :seenLast');
    expect(input.ExpressionAttributeValues).toEqual({ ':seen': 'obj-10', ':seenLast': 19 });
    expect(await deleteSegmentItem(ctx, topic, 0, 10, { objectKey: 'obj-10', lastOffset: 19 })).toBe(false);
    await expect(deleteSegmentItem(ctx, topic, 0, 10, { objectKey: 'obj-10', lastOffset: 19 })).rejects.toMatchObject({ name: 'InternalServerError' });
  });
});

describe('floorSegmentItem (one Query, Limit 2, newest base first)', () => {
  it('query shape', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(QueryCommand).resolves({ Items: [] });
    expect(await floorSegmentItem(ctx, topic, 0, 42)).toBeUndefined();
    const input = mock.commandCalls(QueryCommand)[0].args[0].input;
    expect(input).toMatchObject({
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
      ExpressionAttributeValues: { ':pk': 'PART#t#TID#0', ':lo': 'SEG#', ':hi': 'SEG#00000000000000000042' },
      ScanIndexForward: false,
      Limit: 2,
      ConsistentRead: true,
    });
  });
  it('the floor wins, unless the item before also covers the offset and was merged later', async () => {
    const { ctx, mock } = mockedDdbContext();
    const floor = seg(10, { createdAt: 5 });
    const beforeCovering = seg(0, { lastOffset: 19, createdAt: 9, objectKey: 'newer-merge' });
    mock
      .on(QueryCommand)
      .resolvesOnce({ Items: [stored(floor), stored(beforeCovering)] })
      .resolvesOnce({ Items: [stored(floor), stored({ ...beforeCovering, createdAt: 1 })] })
      .resolvesOnce({ Items: [stored(floor), stored(seg(0, { createdAt: 9 }))] }); // the last ends at 9: does not cover 12
    expect((await floorSegmentItem(ctx, topic, 0, 12))?.objectKey).toBe('newer-merge');
    expect((await floorSegmentItem(ctx, topic, 0, 12))?.objectKey).toBe('obj-10');
    expect((await floorSegmentItem(ctx, topic, 0, 12))?.objectKey).toBe('obj-10');
  });
});

describe('deleteAllSegmentItems (exact requests)', () => {
  it('every item of the partition, 25 per BatchWrite, unprocessed ones re-sent; returns the count', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(QueryCommand).resolves({ Items: Array.from({ length: 27 }, (_, i) => stored(seg(i * 10))) });
    mock
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { tbl: [{ DeleteRequest: { Key: { pk: 'PART#t#TID#0', sk: 'SEG#00000000000000000000' } } }] } })
      .resolves({});
    expect(await deleteAllSegmentItems(ctx, topic, 0)).toBe(27);
    const batches = mock.commandCalls(BatchWriteCommand).map((c) => c.args[0].input.RequestItems?.tbl ?? []);
    expect(batches.map((b) => b.length)).toEqual([25, 1, 2]);
    expect(batches[2]).toEqual([
      { DeleteRequest: { Key: { pk: 'PART#t#TID#0', sk: 'SEG#00000000000000000250' } } },
      { DeleteRequest: { Key: { pk: 'PART#t#TID#0', sk: 'SEG#00000000000000000260' } } },
    ]);
  });
});

describe('against the emulator', () => {
  it('queries: get, items down from an offset, first by timestamp, all in order', async () => {
    const ctx = await createTestContext();
    for (const base of [0, 10, 20, 30]) expect(await putSpillItem(ctx, topic, 0, spill(base))).toBe(true);
    expect(await putSpillItem(ctx, topic, 0, spill(10, { objectKey: 'other' }))).toBe(false);
    expect((await getSegmentItem(ctx, topic, 0, 10))?.objectKey).toBe('obj-10');
    expect(await getSegmentItem(ctx, topic, 0, 11)).toBeUndefined();
    expect((await segmentItemsDownFrom(ctx, topic, 0, 25, 3)).map((s) => s.baseOffset)).toEqual([20, 10, 0]);
    expect((await floorSegmentItem(ctx, topic, 0, 29))?.baseOffset).toBe(20);
    expect((await firstSegmentItemWithMaxTimestampAtLeast(ctx, topic, 0, 0, 1015))?.baseOffset).toBe(10);
    expect((await firstSegmentItemWithMaxTimestampAtLeast(ctx, topic, 0, 20, 1000))?.baseOffset).toBe(20);
    expect(await firstSegmentItemWithMaxTimestampAtLeast(ctx, topic, 0, 0, 5000)).toBeUndefined();
    const all: number[] = [];
    for await (const s of allSegmentItems(ctx, topic, 0)) all.push(s.baseOffset);
    expect(all).toEqual([0, 10, 20, 30]);
    // exact-item conditions, for real
    expect(await deleteSegmentItem(ctx, topic, 0, 10, { objectKey: 'obj-10', lastOffset: 18 })).toBe(false);
    expect(await replaceSegmentItem(ctx, topic, 0, seg(0, { lastOffset: 19, objectKey: 'm' }), { objectKey: 'obj-0', lastOffset: 9 })).toBe(true);
    expect(await deleteSegmentItem(ctx, topic, 0, 10, { objectKey: 'obj-10', lastOffset: 19 })).toBe(true);
    expect(await touchSpillItem(ctx, topic, 0, spill(10), 5)).toBe(false); // gone
    expect(await touchSpillItem(ctx, topic, 0, spill(20), 5)).toBe(true);
    expect((await getSegmentItem(ctx, topic, 0, 20))?.createdAt).toBe(5);
    expect(await deleteAllSegmentItems(ctx, topic, 0)).toBe(3);
    const left: SegmentItem[] = [];
    for await (const s of allSegmentItems(ctx, topic, 0)) left.push(s);
    expect(left).toEqual([]);
  });
});
