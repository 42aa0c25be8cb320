// What the maintenance steps (retention, compaction, their repairs) decide on: the partition's
// STATE read first, then its manifest, both strongly consistent. Reading STATE first means every
// item at or above the nextOffset seen is (or may still become) an in-flight append: maintenance
// never touches it. Items are changed only with conditions on the exact item seen (its object
// key), so a step that lost a race to anyone changes nothing and the next run decides again.
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';
import { isConditionalCheckFailed } from '../metadata/aws-errors.js';
import { segmentKey } from '../metadata/keys.js';
import { allSegmentItems } from '../metadata/manifest.js';
import { getPartitionState } from '../metadata/partition-state.js';
import type { PartitionState, SegmentItem } from '../metadata/types.js';

/** A manifest item as compaction writes it: how many items it replaced (absent on appended items). */
export interface StoredSegmentItem extends SegmentItem {
  readonly mergedCount?: number;
}

export interface PartitionSnapshot {
  readonly topic: string;
  readonly partition: number;
  readonly state: PartitionState;
  /** Committed items (base below nextOffset), in offset order. */
  readonly items: readonly StoredSegmentItem[];
}

export async function readPartitionSnapshot(ctx: SluiceContext, topic: string, partition: number): Promise<PartitionSnapshot> {
  const state = await getPartitionState(ctx, topic, partition);
  const items: StoredSegmentItem[] = [];
  if (state.nextOffset > 0) {
    for await (const item of allSegmentItems(ctx, topic, partition)) {
      if (item.baseOffset < state.nextOffset) items.push(item);
    }
  }
  items.sort((a, b) => a.baseOffset - b.baseOffset);
  return { topic, partition, state, items };
}

/**
 * Splits committed items into the chain a reader follows and the leftovers of an interrupted
 * compaction swap: items whose whole range lies inside an earlier item's range (the merged item
 * was put, the items it replaced were not all deleted yet).
 */
export function splitLeftovers(items: readonly StoredSegmentItem[]): {
  chain: StoredSegmentItem[];
  leftovers: { item: StoredSegmentItem; coveredBy: StoredSegmentItem }[];
} {
  const chain: StoredSegmentItem[] = [];
  const leftovers: { item: StoredSegmentItem; coveredBy: StoredSegmentItem }[] = [];
  let cover: StoredSegmentItem | undefined;
  for (const item of items) {
    if (cover && item.lastOffset <= cover.lastOffset) {
      leftovers.push({ item, coveredBy: cover });
      continue;
    }
    chain.push(item);
    cover = item;
  }
  return { chain, leftovers };
}

/** Manifest deletes in flight at once. */
const DELETE_CONCURRENCY = 8;

/** Deletes each manifest item only if it is still exactly the one seen (object key and last offset); returns how many went. */
export async function deleteSegmentItemsIfUnchanged(
  ctx: SluiceContext,
  topic: string,
  partition: number,
  items: readonly SegmentItem[],
): Promise<number> {
  let removed = 0;
  await forEachLimited(items, DELETE_CONCURRENCY, async (item) => {
    if (await deleteSegmentItemIfUnchanged(ctx, topic, partition, item)) removed++;
  });
  return removed;
}

async function deleteSegmentItemIfUnchanged(
  ctx: SluiceContext,
  topic: string,
  partition: number,
  item: SegmentItem,
): Promise<boolean> {
  try {
    await ctx.ddb.send(
      new DeleteCommand({
        TableName: ctx.table,
        Key: segmentKey(topic, partition, item.baseOffset),
        ConditionExpression: 'objectKey = :seen AND lastOffset = :seenLast',
        ExpressionAttributeValues: { ':seen': item.objectKey, ':seenLast': item.lastOffset },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionalCheckFailed(e)) return false;
    throw e;
  }
}

/** Runs `work` over `inputs` with at most `limit` in flight; rejects with the first failure after all settle. */
export async function forEachLimited<T>(inputs: readonly T[], limit: number, work: (input: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    while (next < inputs.length) {
      const input = inputs[next++];
      try {
        await work(input);
      } catch (e) {
        failure ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, inputs.length) }, worker));
  if (failure !== undefined) throw failure;
}
