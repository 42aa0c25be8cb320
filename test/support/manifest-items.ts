// Lays a merged segment's SEG item down directly, as a merge's swap leaves it, for tests that
// write a segment by hand (lib/metadata/manifest.ts has no "put any item": a spill puts spilled
// items only, a merge replaces the item it read).
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../../lib/context.js';
import { segmentKey } from '../../lib/metadata/keys.js';
import type { MergedSegmentItem, TopicRef } from '../../lib/metadata/types.js';

/** Creates the item (never overwrites one: a failed condition throws). */
export async function putMergedItem(ctx: SluiceContext, topic: TopicRef, partition: number, item: MergedSegmentItem): Promise<void> {
  await ctx.ddb.send(
    new PutCommand({
      TableName: ctx.table,
      Item: { ...segmentKey(topic, partition, item.baseOffset), ...item },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}
