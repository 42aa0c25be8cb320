// Retention (Kafka's deleteOldSegments) for one partition, by its leader (the lease holder): whole
// SEG items wholly below the tailBase read go, oldest first, while the oldest is past
// `retention.ms` (its largest timestamp is older than now minus retention.ms) or while the
// partition stays at least `retention.bytes` without it (Kafka's size rule: delete while
// size - segment.size >= retention.bytes; the tail's entries count towards the size). The newest
// segment of the log is never deleted: when the tail lists entries they are the newest, otherwise
// the last item is kept. Offsets at or above tailBase are never retention's (docs/ARCHITECTURE.md rule 4).
//
// Order, so that a crash anywhere leaves a consistent log and the next run finishes:
//   1. advance logStartOffset to the first kept offset (partition-state.ts advanceLogStartOffset:
//      conditioned on the leader's epoch, never backwards, never past tailBase), taking the
//      deleted items' bytes off the counter. Readers check logStartOffset first, so items below it
//      are invisible from here on.
//   2. delete EVERY item wholly below logStartOffset, each only if it is still the item seen: the
//      ones just retired, those an interrupted run left, and late spill puts that landed there
//      (docs/ARCHITECTURE.md rules 3 and 4).
//   3. objects are NOT deleted here: the sweep (cleanup.ts) deletes objects no item references,
//      a grace period after it first saw them unreferenced.
import type { SluiceContext } from '../context.js';
import { type PartitionLease, advanceLogStartOffset } from '../metadata/partition-state.js';
import type { SegmentItem } from '../metadata/types.js';
import { decodeEntries } from './manifest-entry.js';
import { type PartitionSnapshot, deleteItemsIfUnchanged, itemsBelowTail, splitLeftovers } from './partition-snapshot.js';

export interface RetentionConfig {
  /** -1 = keep forever. */
  readonly retentionMs: number;
  /** -1 = unlimited. */
  readonly retentionBytes: number;
}

export interface RetentionResult {
  /** Items retired by advancing logStartOffset in this call. */
  readonly deletedSegments: number;
  readonly deletedBytes: number;
  /** Items removed (the retired ones, and any left below logStartOffset earlier). */
  readonly removedItems: number;
  readonly logStartOffset: number;
}

/**
 * The oldest items retention retires now: a prefix of `chain` (items wholly below tailBase, from
 * logStartOffset, in offset order), never the log's newest segment. `tailBytes` is what STATE's
 * tail lists after the chain; when it lists anything, the log's newest segment is there and the
 * chain's last item may go too.
 */
export function segmentsToDelete<T extends SegmentItem>(
  chain: readonly T[],
  config: RetentionConfig,
  now: number,
  tailBytes = 0,
  tailHasEntries = false,
): T[] {
  let size = tailBytes;
  for (const item of chain) size += item.size;
  const doomed: T[] = [];
  for (let i = 0; i < chain.length - (tailHasEntries ? 0 : 1); i++) {
    const item = chain[i];
    const expired = config.retentionMs >= 0 && item.maxTimestamp < now - config.retentionMs;
    const oversized = config.retentionBytes >= 0 && size - item.size >= config.retentionBytes;
    if (!expired && !oversized) break;
    doomed.push(item);
    size -= item.size;
  }
  return doomed;
}

export async function applyRetention(
  ctx: SluiceContext,
  lease: PartitionLease,
  snapshot: PartitionSnapshot,
  config: RetentionConfig,
): Promise<RetentionResult> {
  const { topic, partition, state } = snapshot;
  const below = itemsBelowTail(snapshot);
  const { chain } = splitLeftovers(below.filter((i) => i.lastOffset >= state.logStartOffset));
  // A chain from logStartOffset: an item straddling it (never made by retention itself) counts whole.
  const tail = decodeEntries(ctx, state.tailBase, state.tail);
  const tailBytes = tail.reduce((n, r) => n + r.size, 0);
  const doomed = segmentsToDelete(chain, config, ctx.now(), tailBytes, tail.length > 0);

  let logStartOffset = state.logStartOffset;
  let deletedBytes = 0;
  if (doomed.length > 0) {
    const newStart = doomed[doomed.length - 1].lastOffset + 1;
    for (const item of doomed) deletedBytes += item.size;
    // Fenced (another leader) or raced: nothing changed, decide again next run.
    if (newStart <= state.tailBase && (await advanceLogStartOffset(ctx, lease, newStart, deletedBytes))) {
      logStartOffset = newStart;
    } else {
      deletedBytes = 0;
    }
  }
  const retired = logStartOffset === state.logStartOffset ? 0 : doomed.length;

  // Every item wholly below the log start: retired ones, an earlier run's, late spill puts.
  const removable = snapshot.items.filter((i) => i.lastOffset < logStartOffset);
  const removedItems = await deleteItemsIfUnchanged(ctx, topic, partition, removable);
  return { deletedSegments: retired, deletedBytes, removedItems, logStartOffset };
}
