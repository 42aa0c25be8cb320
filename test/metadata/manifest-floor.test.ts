import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { segmentKey } from '../../lib/metadata/keys.js';
import { floorSegmentItem } from '../../lib/metadata/manifest.js';
import type { SegmentItem } from '../../lib/metadata/types.js';
import { createTestContext } from '../support/storage.js';

let ctx: SluiceContext;
let topicSeq = 0;

async function putItems(items: Array<Pick<SegmentItem, 'baseOffset' | 'lastOffset' | 'epoch' | 'objectKey'>>): Promise<string> {
  const topic = `floor-${topicSeq++}`;
  for (const i of items) {
    const item: SegmentItem = { ...i, count: i.lastOffset - i.baseOffset + 1, position: 0, size: 100, minTimestamp: 0, maxTimestamp: 0, createdAt: 0 };
    await ctx.ddb.send(new PutCommand({ TableName: ctx.table, Item: { ...segmentKey(topic, 0, i.baseOffset), ...item } }));
  }
  return topic;
}

describe('manifest floor lookup', () => {
  beforeAll(async () => {
    ctx = await createTestContext();
  });

  it('returns the item with the greatest base at or below the offset', async () => {
    const topic = await putItems([
      { baseOffset: 0, lastOffset: 4, epoch: 1, objectKey: 'a' },
      { baseOffset: 5, lastOffset: 9, epoch: 1, objectKey: 'b' },
    ]);
    expect((await floorSegmentItem(ctx, topic, 0, 7))?.objectKey).toBe('b');
    expect((await floorSegmentItem(ctx, topic, 0, 4))?.objectKey).toBe('a');
  });

  it("prefers a merged item of a newer epoch over a stale leader's item recreated inside it", async () => {
    // Compaction merged 0..2 (epoch 2) and deleted SEG#1; a stale epoch-1 put then recreated SEG#1.
    const topic = await putItems([
      { baseOffset: 0, lastOffset: 2, epoch: 2, objectKey: 'merged' },
      { baseOffset: 1, lastOffset: 1, epoch: 1, objectKey: 'stale' },
    ]);
    expect((await floorSegmentItem(ctx, topic, 0, 1))?.objectKey).toBe('merged');
  });

  it("keeps a newer leader's item over an older item before it that claims the same offsets", async () => {
    const topic = await putItems([
      { baseOffset: 1, lastOffset: 3, epoch: 1, objectKey: 'stale' },
      { baseOffset: 2, lastOffset: 4, epoch: 2, objectKey: 'newer' },
    ]);
    expect((await floorSegmentItem(ctx, topic, 0, 2))?.objectKey).toBe('newer');
  });
});
