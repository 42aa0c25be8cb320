// The manifest floor lookup readers use below tailBase (manifest.ts floorSegmentItem): one Query
// (Limit 2, newest base first) for the item holding an offset. While a merge swaps in, the merged
// item (at the run's first base) and the items it replaced (not yet deleted, "leftovers") both hold
// the same offsets: the NEWER item wins, whichever of the two is the floor. Items are keyed by the
// topic id, so a deleted topic's items are never read as its successor's.
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { segmentKey } from '../../lib/metadata/keys.js';
import { floorSegmentItem, segmentItemsDownFrom } from '../../lib/metadata/manifest.js';
import type { SegmentItem, TopicRef } from '../../lib/metadata/types.js';
import { createTestContext } from '../support/storage.js';

let ctx: SluiceContext;
let topicSeq = 0;

type ItemSpec = Pick<SegmentItem, 'baseOffset' | 'lastOffset' | 'objectKey' | 'createdAt'>;

async function putItems(items: ItemSpec[], topic: TopicRef = { name: `floor-${topicSeq++}`, id: `id${topicSeq}` }): Promise<TopicRef> {
  for (const i of items) {
    const item: SegmentItem = { ...i, count: i.lastOffset - i.baseOffset + 1, position: 0, size: 100, minTimestamp: 0, maxTimestamp: 0, epoch: 1 };
    await ctx.ddb.send(new PutCommand({ TableName: ctx.table, Item: { ...segmentKey(topic, 0, i.baseOffset), ...item } }));
  }
  return topic;
}

describe('manifest floor lookup', () => {
  beforeAll(async () => {
    ctx = await createTestContext();
  });

  it('returns the item with the greatest base at or below the offset, and nothing below the first item', async () => {
    const topic = await putItems([
      { baseOffset: 0, lastOffset: 4, objectKey: 'a', createdAt: 1 },
      { baseOffset: 5, lastOffset: 9, objectKey: 'b', createdAt: 2 },
      { baseOffset: 10, lastOffset: 10, objectKey: 'c', createdAt: 3 },
    ]);
    expect((await floorSegmentItem(ctx, topic, 0, 7))?.objectKey).toBe('b');
    expect((await floorSegmentItem(ctx, topic, 0, 5))?.objectKey).toBe('b');
    expect((await floorSegmentItem(ctx, topic, 0, 4))?.objectKey).toBe('a');
    expect((await floorSegmentItem(ctx, topic, 0, 0))?.objectKey).toBe('a');
    expect((await floorSegmentItem(ctx, topic, 0, 99))?.objectKey).toBe('c');
    const empty = await putItems([{ baseOffset: 3, lastOffset: 4, objectKey: 'x', createdAt: 1 }]);
    expect(await floorSegmentItem(ctx, empty, 0, 2)).toBeUndefined();
  });

  it('prefers the merged item over a leftover it replaced (the leftover is the floor, the merge is newer)', async () => {
    // A merge replaced SEG#0..SEG#2 by one item at 0 (newer) and has not deleted SEG#1 yet.
    const topic = await putItems([
      { baseOffset: 0, lastOffset: 2, objectKey: 'merged', createdAt: 200 },
      { baseOffset: 1, lastOffset: 1, objectKey: 'leftover', createdAt: 100 },
    ]);
    expect((await floorSegmentItem(ctx, topic, 0, 1))?.objectKey).toBe('merged');
    expect((await floorSegmentItem(ctx, topic, 0, 2))?.objectKey).toBe('merged');
  });

  it('keeps the floor when it is newer than an older item before it claiming the same offsets', async () => {
    const topic = await putItems([
      { baseOffset: 1, lastOffset: 3, objectKey: 'older', createdAt: 100 },
      { baseOffset: 2, lastOffset: 4, objectKey: 'newer', createdAt: 200 },
    ]);
    expect((await floorSegmentItem(ctx, topic, 0, 2))?.objectKey).toBe('newer');
    expect((await floorSegmentItem(ctx, topic, 0, 1))?.objectKey).toBe('older');
  });

  it('keeps the floor when the item before it ends below the offset, however new', async () => {
    const topic = await putItems([
      { baseOffset: 0, lastOffset: 4, objectKey: 'before', createdAt: 900 },
      { baseOffset: 5, lastOffset: 9, objectKey: 'floor', createdAt: 100 },
    ]);
    expect((await floorSegmentItem(ctx, topic, 0, 6))?.objectKey).toBe('floor');
  });

  it('never reads the items of another incarnation of the topic (same name, other id)', async () => {
    const old = await putItems([{ baseOffset: 0, lastOffset: 9, objectKey: 'old', createdAt: 1 }], { name: 'reborn', id: 'first' });
    const successor: TopicRef = { name: 'reborn', id: 'second' };
    expect((await floorSegmentItem(ctx, old, 0, 3))?.objectKey).toBe('old');
    expect(await floorSegmentItem(ctx, successor, 0, 3)).toBeUndefined();
    expect(await segmentItemsDownFrom(ctx, successor, 0, 100, 8)).toEqual([]);
  });

  it('segmentItemsDownFrom lists newest base first, at most `limit`, none above the offset', async () => {
    const topic = await putItems(Array.from({ length: 6 }, (_, i) => ({ baseOffset: 2 * i, lastOffset: 2 * i + 1, objectKey: `o${i}`, createdAt: i })));
    expect((await segmentItemsDownFrom(ctx, topic, 0, 7, 3)).map((i) => i.objectKey)).toEqual(['o3', 'o2', 'o1']);
  });
});
