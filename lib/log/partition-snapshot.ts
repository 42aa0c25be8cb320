// What the partition leader's maintenance steps (repair, retention, merge) decide on: the
// partition's STATE read first, then its SEG items, both strongly consistent. Reading STATE first
// means every item at or above the tailBase seen may be a pending spill (docs/ARCHITECTURE.md rule 4): maintenance
// never touches it. Items are changed only with conditions on the exact item seen (manifest.ts), so
// a step that lost a race to anyone changes nothing and the next run decides again.
import type { SluiceContext } from '../context.js';
import { allSegmentItems, deleteSegmentItem } from '../metadata/manifest.js';
import { getPartitionState } from '../metadata/partition-state.js';
import type { PartitionState, SegmentItem, TopicRef } from '../metadata/types.js';
import { decodeEntries } from './manifest-entry.js';

export interface PartitionSnapshot {
  readonly topic: TopicRef;
  readonly partition: number;
  readonly state: PartitionState;
  /** Every SEG item of the partition (below tailBase or not), in offset order. */
  readonly items: readonly SegmentItem[];
}

export async function readPartitionSnapshot(ctx: SluiceContext, topic: TopicRef, partition: number, state?: PartitionState): Promise<PartitionSnapshot> {
  const current = state ?? (await getPartitionState(ctx, topic, partition));
  const items: SegmentItem[] = [];
  for await (const item of allSegmentItems(ctx, topic, partition)) items.push(item);
  items.sort((a, b) => a.baseOffset - b.baseOffset);
  return { topic, partition, state: current, items };
}

/** The items wholly below the snapshot's tailBase: the only ones maintenance may replace or delete. */
export function itemsBelowTail(snapshot: PartitionSnapshot): SegmentItem[] {
  return snapshot.items.filter((i) => i.lastOffset < snapshot.state.tailBase);
}

/**
 * Splits items into the chain a reader follows and the leftovers of an interrupted merge swap:
 * items whose whole range lies inside an earlier item's range (the merged item was put, the items
 * it replaced were not all deleted yet).
 */
export function splitLeftovers<T extends SegmentItem>(items: readonly T[]): { chain: T[]; leftovers: { item: T; coveredBy: T }[] } {
  const chain: T[] = [];
  const leftovers: { item: T; coveredBy: T }[] = [];
  let cover: T | undefined;
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

/**
 * SEG items STATE's `segments` counter stands for: the chain's items from logStartOffset, wholly
 * below tailBase (items above it may be pending spills, which count once their spill completes),
 * plus the tail's entries.
 */
export function expectedSegmentCount(snapshot: PartitionSnapshot): number {
  const { state } = snapshot;
  const { chain } = splitLeftovers(itemsBelowTail(snapshot));
  return chain.filter((i) => i.lastOffset >= state.logStartOffset).length + state.tail.length;
}

/**
 * Bytes STATE's `bytes` counter stands for: the chain's items from logStartOffset, wholly below
 * tailBase, plus the tail's ranges (as expectedSegmentCount counts segments).
 */
export function expectedByteCount(ctx: SluiceContext, snapshot: PartitionSnapshot): number {
  const { state } = snapshot;
  const { chain } = splitLeftovers(itemsBelowTail(snapshot));
  let bytes = 0;
  for (const item of chain) if (item.lastOffset >= state.logStartOffset) bytes += item.size;
  for (const range of decodeEntries(ctx, state.tailBase, state.tail)) bytes += range.size;
  return bytes;
}

/** Manifest deletes in flight at once. */
const DELETE_CONCURRENCY = 8;

/** Deletes each item only if it is still exactly the one seen; returns how many went. */
export async function deleteItemsIfUnchanged(
  ctx: SluiceContext,
  topic: TopicRef,
  partition: number,
  items: readonly SegmentItem[],
): Promise<number> {
  let removed = 0;
  await forEachLimited(items, DELETE_CONCURRENCY, async (item) => {
    if (await deleteSegmentItem(ctx, topic, partition, item.baseOffset, item)) removed++;
  });
  return removed;
}

/** Runs `work` over `inputs` with at most `limit` in flight; rejects with the first failure after all settle. */
export async function forEachLimited<T>(inputs: readonly T[], limit: number, work: (input: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    while (next < inputs.length) {
      const index = next++;
      try {
        await work(inputs[index], index);
      } catch (e) {
        failure ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, inputs.length) }, worker));
  if (failure !== undefined) throw failure;
}
