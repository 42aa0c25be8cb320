// Spilling STATE's tail: the tail holds at most TAIL_ROOM_ENTRIES entries (STATE is rewritten by
// every append and billed by its size). The appender that brings it to TAIL_MAX_ENTRIES moves
// those entries into a SEG item while concurrent appends use the room left; so does an appender
// refused for room, and the partition leader for an idle tail:
//
//   1. put SEG#<tailBase> listing the entries, only if absent (manifest.ts putSpillItem);
//      if it exists, another spiller got there first: adopt ITS entries, which are the first
//      entries of the tail at that base (only a spill moves tailBase, and appends only add to the
//      end), perhaps fewer than ours;
//   2. remove exactly those entries and advance tailBase past them, if tailBase is unchanged
//      (partition-state.ts removeSpilledEntries).
//
// Concurrent spillers therefore settle on one item, nothing is lost (an entry leaves the tail only
// after an item lists it) and nothing is listed twice (the offsets of tail and items never overlap:
// readers take offsets >= tailBase from the tail, below it from items). A spiller that dies
// between 1 and 2 leaves an item the next spiller adopts (moving its createdAt to the adoption when
// it is old: merges wait a grace period from createdAt before they may free its key).
import type { SluiceContext } from '../context.js';
import { getSegmentItem, putSpillItem, touchSpillItem } from '../metadata/manifest.js';
import { removeSpilledEntries } from '../metadata/partition-state.js';
import type { ManifestEntry, PartitionState, SpilledItem, TopicRef } from '../metadata/types.js';
import { decodeEntries, entriesCount } from './manifest-entry.js';

/**
 * Entries at which the appender that brings the tail to this length spills them: each spill
 * (1 PutItem + 1 UpdateItem) then serves this many appends.
 */
export const TAIL_MAX_ENTRIES = 8;
/**
 * Entries the tail may hold at most (appendEntry's room condition): the room beyond
 * TAIL_MAX_ENTRIES lets concurrent appenders go on appending while the filler's spill is in
 * flight (two round trips), instead of being refused and racing to spill. About 60 bytes each, so
 * with the most producer entries and the longest topic name STATE stays within its 2 KB budget
 * (docs/ARCHITECTURE.md rule 6).
 */
export const TAIL_ROOM_ENTRIES = 14;

/** An adopted spill older than this has its createdAt moved to the adoption (see spillTail). */
const ADOPTION_REFRESH_MS = 10_000;

/** The SEG item standing for `entries` at `baseOffset`. */
export function spillItem(ctx: SluiceContext, baseOffset: number, entries: readonly ManifestEntry[]): SpilledItem {
  const ranges = decodeEntries(ctx, baseOffset, entries);
  const first = ranges[0];
  const last = ranges[ranges.length - 1];
  return {
    baseOffset,
    lastOffset: last.lastOffset,
    count: last.lastOffset - baseOffset + 1,
    objectKey: first.objectKey,
    position: first.position,
    size: ranges.reduce((n, r) => n + r.size, 0),
    minTimestamp: Math.min(...ranges.map((r) => r.minTimestamp)),
    maxTimestamp: Math.max(...ranges.map((r) => r.maxTimestamp)),
    // The spill time: a merge waits a grace period from it (docs/ARCHITECTURE.md rule 3), and the search for an
    // append whose reply was lost stops at items spilled before the append started.
    createdAt: ctx.now(),
    epoch: 0,
    entries: [...entries],
  };
}

/**
 * Spills the oldest entries of the tail `state` shows (all of them unless `max` says fewer).
 * Returns whether this call moved tailBase; false also when someone else spilled first (the
 * caller re-reads STATE either way).
 */
export async function spillTail(ctx: SluiceContext, topic: TopicRef, state: PartitionState, max = state.tail.length): Promise<boolean> {
  const { partition, tailBase } = state;
  let entries: readonly ManifestEntry[] = state.tail.slice(0, max);
  if (entries.length === 0) return false;
  if (!(await putSpillItem(ctx, topic, partition, spillItem(ctx, tailBase, entries)))) {
    const existing = await getSegmentItem(ctx, topic, partition, tailBase);
    // Gone again: tailBase moved on and retention removed it; nothing to do at this base.
    if (!existing?.entries) return false;
    // Left by a spiller that died before removing its entries: restart the grace period merges
    // wait from it, so a spill put that read this tailBase cannot land after a merge freed the key.
    if (ctx.now() - existing.createdAt > ADOPTION_REFRESH_MS && !(await touchSpillItem(ctx, topic, partition, existing, ctx.now()))) return false;
    entries = existing.entries;
  }
  return removeSpilledEntries(ctx, topic, partition, tailBase, entries, entriesCount(entries));
}
