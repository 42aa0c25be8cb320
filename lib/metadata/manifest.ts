// The segment manifest: `PART#<topic>#<partition>` / `SEG#<baseOffset, 20 digits>` items (see
// keys.ts and SegmentItem in types.ts), one per run of RecordBatches in an S3 object, holding the
// object key and byte range [position, position + size), or one per spilled tail listing several
// such ranges (lib/log/partition-tail.ts). The newest ranges are listed on STATE itself (its tail).
//
// An item is visible to readers only when its base is below the partition's nextOffset: items are
// written *before* the commit that makes them visible, so a crashed or stale writer leaves items
// at or above nextOffset, which the next append at that base overwrites. A writer may overwrite an
// item only if the item was written by the same or an older leader epoch, so a stale leader can
// never replace what a newer leader wrote. (Whoever rewrites items later, e.g. compaction, must
// keep `epoch` >= the epochs of the items it replaces. Whoever deletes an item frees its key for
// a late put of ANY epoch: see compaction.ts for which keys must stay.) All reads are strongly
// consistent.
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';
import { isConditionalCheckFailed } from './aws-errors.js';
import { SEGMENT_PREFIX, partitionPk, segmentKey, segmentSk } from './keys.js';
import { queryAll } from './query-all.js';
import type { SegmentItem } from './types.js';

function segmentFromItem(item: Record<string, unknown>): SegmentItem {
  const { pk: _pk, sk: _sk, ...rest } = item;
  return rest as unknown as SegmentItem;
}

/**
 * Puts an item unless a newer leader epoch already wrote one at its base (then throws
 * ConditionalCheckFailedException): the spill of a STATE tail (lib/log/partition-tail.ts), in
 * step 1 of the append protocol or by maintenance.
 */
export async function putSegmentItem(ctx: SluiceContext, topic: string, partition: number, item: SegmentItem): Promise<void> {
  await ctx.ddb.send(
    new PutCommand({
      TableName: ctx.table,
      Item: { ...segmentKey(topic, partition, item.baseOffset), ...item },
      ConditionExpression: 'attribute_not_exists(pk) OR #epoch <= :epoch',
      ExpressionAttributeNames: { '#epoch': 'epoch' },
      ExpressionAttributeValues: { ':epoch': item.epoch },
    }),
  );
}

/**
 * Replaces the item at `item.baseOffset` only if it is still exactly the item seen (its object key
 * and last offset: a spilled tail's item names its first range's object, and a later spill at the
 * same base may list more ranges); false when it changed or is gone. Compaction swaps merged items in with it; a leader replaces an
 * item left above nextOffset by a writer of a deleted incarnation of the partition.
 */
export async function replaceSegmentItem(
  ctx: SluiceContext,
  topic: string,
  partition: number,
  item: SegmentItem,
  seen: Pick<SegmentItem, 'objectKey' | 'lastOffset'>,
): Promise<boolean> {
  try {
    await ctx.ddb.send(
      new PutCommand({
        TableName: ctx.table,
        Item: { ...segmentKey(topic, partition, item.baseOffset), ...item },
        ConditionExpression: 'objectKey = :seen AND lastOffset = :seenLast',
        ExpressionAttributeValues: { ':seen': seen.objectKey, ':seenLast': seen.lastOffset },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionalCheckFailed(e)) return false;
    throw e;
  }
}

export async function getSegmentItem(
  ctx: SluiceContext,
  topic: string,
  partition: number,
  baseOffset: number,
): Promise<SegmentItem | undefined> {
  const got = await ctx.ddb.send(
    new GetCommand({ TableName: ctx.table, Key: segmentKey(topic, partition, baseOffset), ConsistentRead: true }),
  );
  return got.Item ? segmentFromItem(got.Item) : undefined;
}

/**
 * The item holding `offset` (for a committed offset): the one with the greatest base <= offset —
 * unless the item just before it also holds the offset under a higher leader epoch. That happens
 * while compaction swaps a merged item in (both hold the same bytes), and when a stale leader's
 * delayed put recreated a key compaction had merged away: the stale item has the older epoch, so
 * the merged item wins. Both come from one Query (Limit 2), so the defence costs no request.
 */
export async function floorSegmentItem(
  ctx: SluiceContext,
  topic: string,
  partition: number,
  offset: number,
): Promise<SegmentItem | undefined> {
  const out = await ctx.ddb.send(
    new QueryCommand({
      TableName: ctx.table,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
      ExpressionAttributeValues: { ':pk': partitionPk(topic, partition), ':lo': SEGMENT_PREFIX, ':hi': segmentSk(offset) },
      ScanIndexForward: false,
      Limit: 2,
      ConsistentRead: true,
    }),
  );
  const [floor, before] = (out.Items ?? []).map(segmentFromItem);
  if (floor && before && before.lastOffset >= offset && before.epoch > floor.epoch) return before;
  return floor;
}

/** The first item with base >= fromBase whose maxTimestamp >= timestamp (paged through the manifest). */
export async function firstSegmentItemWithMaxTimestampAtLeast(
  ctx: SluiceContext,
  topic: string,
  partition: number,
  fromBase: number,
  timestamp: number,
): Promise<SegmentItem | undefined> {
  const items = queryAll(ctx, {
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    FilterExpression: 'maxTimestamp >= :ts',
    ExpressionAttributeValues: {
      ':pk': partitionPk(topic, partition),
      ':from': segmentSk(fromBase),
      ':to': `${SEGMENT_PREFIX}~`,
      ':ts': timestamp,
    },
    ScanIndexForward: true,
    ConsistentRead: true,
  });
  for await (const item of items) return segmentFromItem(item);
  return undefined;
}

/** Every item of the partition (committed or not), page by page. */
export async function* allSegmentItems(ctx: SluiceContext, topic: string, partition: number): AsyncGenerator<SegmentItem> {
  const items = queryAll(ctx, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :seg)',
    ExpressionAttributeValues: { ':pk': partitionPk(topic, partition), ':seg': SEGMENT_PREFIX },
    ConsistentRead: true,
  });
  for await (const item of items) yield segmentFromItem(item);
}
