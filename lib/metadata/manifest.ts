// The segment manifest below STATE's tail: `SEG#<baseOffset, 20 digits>` items (keys.ts), each a
// spilled part of the tail (its entries, lib/log/manifest-entry.ts) or a merged segment. Every
// write to them is a named function here:
//
//   putSpillItem           a spill (any process): create only, never overwrite (docs/ARCHITECTURE.md rule 2)
//   touchSpillItem         adopting an old spill (any process): its createdAt only
//   replaceSegmentItem     a merge's or a cleaning's swap (partition leader): only the exact item seen
//   markSegmentCleaned     a cleaning that left a segment's bytes as they were (partition leader): only the exact item seen
//   deleteSegmentItem      a merge or retention (partition leader): only the exact item seen
//   deleteAllSegmentItems  topic deletion, after STATE is gone: every item of the partition
//
// Items below the tailBase a reader saw are committed; an item at or above it may be a pending
// spill, which readers never use (they take those offsets from the tail). All reads are strongly
// consistent.
import { setTimeout as sleep } from 'node:timers/promises';
import { BatchWriteCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';
import { isConditionalCheckFailed } from './aws-errors.js';
import { SEGMENT_PREFIX, partitionPk, segmentKey, segmentSk } from './keys.js';
import { queryAll } from './query-all.js';
import type { ManifestEntry, MergedSegmentItem, SegmentItem, SpilledItem, TopicRef } from './types.js';

const int = (item: Record<string, unknown>, name: string): number => {
  const v = item[name];
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new Error(`SEG item ${String(item.sk)}: '${name}' is not an integer`);
  return v;
};

/** Parses a stored SEG item; a malformed one is a clear error, never undefined behaviour. */
export function segmentFromItem(item: Record<string, unknown>): SegmentItem {
  const entries = item.entries;
  if (entries !== undefined && (!Array.isArray(entries) || entries.some((e) => typeof e !== 'string'))) {
    throw new Error(`SEG item ${String(item.sk)}: entries is not a list of strings`);
  }
  if (typeof item.objectKey !== 'string') throw new Error(`SEG item ${String(item.sk)}: objectKey is missing`);
  for (const name of ['indexKey', 'timeIndexKey'] as const) {
    if (item[name] !== undefined && typeof item[name] !== 'string') throw new Error(`SEG item ${String(item.sk)}: ${name} is not a string (${JSON.stringify(item[name])})`);
  }
  for (const name of ['mergedCount', 'cleanedThrough', 'deleteHorizonMs'] as const) {
    if (item[name] !== undefined && !Number.isSafeInteger(item[name])) throw new Error(`SEG item ${String(item.sk)}: ${name} is not an integer`);
  }
  const summary = {
    baseOffset: int(item, 'baseOffset'),
    lastOffset: int(item, 'lastOffset'),
    count: int(item, 'count'),
    objectKey: item.objectKey,
    position: int(item, 'position'),
    size: int(item, 'size'),
    minTimestamp: int(item, 'minTimestamp'),
    maxTimestamp: int(item, 'maxTimestamp'),
    createdAt: int(item, 'createdAt'),
    epoch: int(item, 'epoch'),
  };
  if (entries !== undefined) {
    if (item.indexKey !== undefined || item.timeIndexKey !== undefined || item.mergedCount !== undefined || item.cleanedThrough !== undefined) {
      throw new Error(`SEG item ${String(item.sk)}: a spilled item (entries) with a merged segment's fields`);
    }
    return { ...summary, entries: entries as ManifestEntry[] } satisfies SpilledItem;
  }
  return {
    ...summary,
    indexKey: typeof item.indexKey === 'string' ? item.indexKey : undefined,
    timeIndexKey: typeof item.timeIndexKey === 'string' ? item.timeIndexKey : undefined,
    mergedCount: typeof item.mergedCount === 'number' ? item.mergedCount : undefined,
    cleanedThrough: typeof item.cleanedThrough === 'number' ? item.cleanedThrough : undefined,
    deleteHorizonMs: typeof item.deleteHorizonMs === 'number' ? item.deleteHorizonMs : undefined,
  } satisfies MergedSegmentItem;
}

function toItem(topic: TopicRef, partition: number, item: SegmentItem): Record<string, unknown> {
  return { ...segmentKey(topic, partition, item.baseOffset), ...item };
}

/**
 * The first half of a spill: creates SEG#<base> listing the tail's oldest entries. Never replaces
 * an item: false when one exists (another spiller's, perhaps listing fewer entries, which the
 * caller then adopts; lib/log/spill.ts).
 */
export async function putSpillItem(ctx: SluiceContext, topic: TopicRef, partition: number, item: SpilledItem): Promise<boolean> {
  try {
    await ctx.ddb.send(
      new PutCommand({ TableName: ctx.table, Item: toItem(topic, partition, item), ConditionExpression: 'attribute_not_exists(pk)' }),
    );
    return true;
  } catch (e) {
    if (isConditionalCheckFailed(e)) return false;
    throw e;
  }
}

/**
 * Moves a spilled item's `createdAt` to `now` if it is still exactly `seen`: an adopter of an old
 * spill (lib/log/spill.ts) does so before its entries leave the tail, because merges wait a grace
 * period from createdAt before they may delete the item's key, and a spill put still in flight
 * from before the adoption must meet the key occupied. False when the item changed or is gone.
 */
export async function touchSpillItem(ctx: SluiceContext, topic: TopicRef, partition: number, seen: SpilledItem, now: number): Promise<boolean> {
  try {
    await ctx.ddb.send(
      new UpdateCommand({
        TableName: ctx.table,
        Key: segmentKey(topic, partition, seen.baseOffset),
        ConditionExpression: 'objectKey = :seen AND lastOffset = :seenLast',
        UpdateExpression: 'SET createdAt = :now',
        ExpressionAttributeValues: { ':seen': seen.objectKey, ':seenLast': seen.lastOffset, ':now': now },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionalCheckFailed(e)) return false;
    throw e;
  }
}

/** The parts of an item a swap or delete is conditioned on: it is still exactly the item seen. */
export type SeenItem = Pick<SegmentItem, 'objectKey' | 'lastOffset'>;

/** Replaces the item at `item.baseOffset` only if it is still exactly `seen`; false when it changed or is gone. */
export async function replaceSegmentItem(
  ctx: SluiceContext,
  topic: TopicRef,
  partition: number,
  item: MergedSegmentItem,
  seen: SeenItem,
): Promise<boolean> {
  try {
    await ctx.ddb.send(
      new PutCommand({
        TableName: ctx.table,
        Item: toItem(topic, partition, item),
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

/**
 * The log cleaner checked a merged segment against a key map and dropped nothing: it records the
 * map's last offset on the item (its batches and their delete horizons stay as they were), only
 * if it is still exactly `seen`, rather than rewriting the same bytes. False when it changed or is gone.
 */
export async function markSegmentCleaned(
  ctx: SluiceContext,
  topic: TopicRef,
  partition: number,
  seen: MergedSegmentItem,
  cleanedThrough: number,
): Promise<boolean> {
  try {
    await ctx.ddb.send(
      new UpdateCommand({
        TableName: ctx.table,
        Key: segmentKey(topic, partition, seen.baseOffset),
        ConditionExpression: 'objectKey = :seen AND lastOffset = :seenLast',
        UpdateExpression: 'SET cleanedThrough = :through',
        ExpressionAttributeValues: { ':seen': seen.objectKey, ':seenLast': seen.lastOffset, ':through': cleanedThrough },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionalCheckFailed(e)) return false;
    throw e;
  }
}

/** Deletes the item at `baseOffset` only if it is still exactly `seen`; false when it changed or is gone. */
export async function deleteSegmentItem(
  ctx: SluiceContext,
  topic: TopicRef,
  partition: number,
  baseOffset: number,
  seen: SeenItem,
): Promise<boolean> {
  try {
    await ctx.ddb.send(
      new DeleteCommand({
        TableName: ctx.table,
        Key: segmentKey(topic, partition, baseOffset),
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

export async function getSegmentItem(ctx: SluiceContext, topic: TopicRef, partition: number, baseOffset: number): Promise<SegmentItem | undefined> {
  const got = await ctx.ddb.send(
    new GetCommand({ TableName: ctx.table, Key: segmentKey(topic, partition, baseOffset), ConsistentRead: true }),
  );
  return got.Item ? segmentFromItem(got.Item) : undefined;
}

/**
 * The item holding `offset` (a committed offset below tailBase): the one with the greatest base <=
 * offset, unless the item just before it also holds the offset and was merged later. That happens
 * while a merge swaps in (both hold the same bytes): the newer merge wins. Both come from one
 * Query (Limit 2), so the defence costs no request.
 */
export async function floorSegmentItem(ctx: SluiceContext, topic: TopicRef, partition: number, offset: number): Promise<SegmentItem | undefined> {
  const items = await segmentItemsDownFrom(ctx, topic, partition, offset, 2);
  const [floor, before] = items;
  if (floor && before && before.lastOffset >= offset && before.createdAt > floor.createdAt) return before;
  return floor;
}

/** Up to `limit` items with base <= `offset`, newest base first (one Query). */
export async function segmentItemsDownFrom(
  ctx: SluiceContext,
  topic: TopicRef,
  partition: number,
  offset: number,
  limit: number,
): Promise<SegmentItem[]> {
  const out = await ctx.ddb.send(
    new QueryCommand({
      TableName: ctx.table,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
      ExpressionAttributeValues: { ':pk': partitionPk(topic, partition), ':lo': SEGMENT_PREFIX, ':hi': segmentSk(offset) },
      ScanIndexForward: false,
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map(segmentFromItem);
}

/** The first item with base >= fromBase whose maxTimestamp >= timestamp (paged through the manifest). */
export async function firstSegmentItemWithMaxTimestampAtLeast(
  ctx: SluiceContext,
  topic: TopicRef,
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

/** Every item of the partition (below tailBase or not), page by page, in offset order. */
export async function* allSegmentItems(ctx: SluiceContext, topic: TopicRef, partition: number): AsyncGenerator<SegmentItem> {
  const items = queryAll(ctx, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :seg)',
    ExpressionAttributeValues: { ':pk': partitionPk(topic, partition), ':seg': SEGMENT_PREFIX },
    ConsistentRead: true,
  });
  for await (const item of items) yield segmentFromItem(item);
}

/** Items per BatchWriteItem request (DynamoDB's limit). */
const BATCH_WRITE_LIMIT = 25;
/** Rounds of resending the items DynamoDB left unprocessed before giving up. */
const UNPROCESSED_ROUNDS = 10;

/** Deletes the items at `keys` (at most BATCH_WRITE_LIMIT), resending what DynamoDB leaves unprocessed. */
async function deleteItemBatch(ctx: SluiceContext, keys: readonly { pk: string; sk: string }[]): Promise<void> {
  let pending = keys.map((Key) => ({ DeleteRequest: { Key } }));
  for (let round = 0; pending.length > 0; round++) {
    if (round > UNPROCESSED_ROUNDS) throw new Error(`could not delete ${pending.length} manifest items`);
    if (round > 0) await sleep(Math.min(1000, 50 * 2 ** round));
    const out = await ctx.ddb.send(new BatchWriteCommand({ RequestItems: { [ctx.table]: pending } }));
    pending = (out.UnprocessedItems?.[ctx.table] ?? []) as typeof pending;
  }
}

/**
 * Topic deletion, once the partition's STATE is gone (deletePartitionState): removes every SEG item
 * of the partition, unconditionally. Returns how many there were.
 */
export async function deleteAllSegmentItems(ctx: SluiceContext, topic: TopicRef, partition: number): Promise<number> {
  let keys: { pk: string; sk: string }[] = [];
  let deleted = 0;
  for await (const item of allSegmentItems(ctx, topic, partition)) {
    keys.push(segmentKey(topic, partition, item.baseOffset));
    if (keys.length === BATCH_WRITE_LIMIT) {
      await deleteItemBatch(ctx, keys);
      deleted += keys.length;
      keys = [];
    }
  }
  if (keys.length > 0) await deleteItemBatch(ctx, keys);
  return deleted + keys.length;
}
