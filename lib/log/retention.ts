// Retention (Kafka's deleteOldSegments) for one partition: whole committed segments go, oldest
// first, while the oldest is past `retention.ms` (its largest timestamp is older than now minus
// retention.ms) or while the partition stays at least `retention.bytes` without it (Kafka's
// size rule: delete while size - segment.size >= retention.bytes). The newest committed segment
// is never deleted, so the log end always has a segment (and the leader's is never touched): the
// ranges STATE's tail lists are the leader's, and when it lists any, the newest segment is there.
//
// Order, so that a crash anywhere leaves a consistent log and the next run finishes:
//   1. advance logStartOffset on STATE to the first kept offset, conditioned on the value read
//      (never backwards, exactly once) and, in the same update, subtract the deleted segments'
//      bytes and count from the `bytes` / `segments` counters. The leader's commit conditions on
//      epoch, owner and nextOffset only, so this never fails or delays an append.
//   2. delete the manifest items below logStartOffset, each only if it is still the item seen.
//      Readers check logStartOffset first, so items below it are already invisible.
//   3. objects are NOT deleted here: the sweep (cleanup.ts) deletes objects no item references
//      any more, a grace period after it first saw them unreferenced, which keeps in-flight
//      fetches safe and never deletes an object another partition's item still shares.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';
import { isConditionalCheckFailed } from '../metadata/aws-errors.js';
import { stateKey } from '../metadata/keys.js';
import {
  type PartitionSnapshot,
  type StoredSegmentItem,
  deleteSegmentItemsIfUnchanged,
  splitLeftovers,
} from './partition-snapshot.js';
import { decodeRanges } from './segment-range.js';

export interface RetentionConfig {
  /** -1 = keep forever. */
  readonly retentionMs: number;
  /** -1 = unlimited. */
  readonly retentionBytes: number;
}

export interface RetentionResult {
  /** Segments deleted by this call (step 1 applied). */
  readonly deletedSegments: number;
  readonly deletedBytes: number;
  /** Manifest items removed (including ones below logStartOffset left by an earlier, interrupted run). */
  readonly removedItems: number;
  readonly logStartOffset: number;
}

/**
 * The oldest segments retention deletes now: a prefix of the chain, never the newest segment of
 * the log. `tailBytes` is what STATE's tail lists after the chain: when it lists anything, the
 * log's newest segment is there, so the chain's last item may go too.
 */
export function segmentsToDelete(
  chain: readonly StoredSegmentItem[],
  config: RetentionConfig,
  now: number,
  tailBytes = 0,
  tailListsRanges = false,
): StoredSegmentItem[] {
  let size = tailBytes;
  for (const item of chain) size += item.size;
  const doomed: StoredSegmentItem[] = [];
  for (let i = 0; i < chain.length - (tailListsRanges ? 0 : 1); i++) {
    const item = chain[i];
    const expired = config.retentionMs >= 0 && item.maxTimestamp < now - config.retentionMs;
    const oversized = config.retentionBytes >= 0 && size - item.size >= config.retentionBytes;
    if (!expired && !oversized) break;
    doomed.push(item);
    size -= item.size;
  }
  return doomed;
}

export async function applyRetention(ctx: SluiceContext, snapshot: PartitionSnapshot, config: RetentionConfig): Promise<RetentionResult> {
  const { topic, partition, state } = snapshot;
  const { chain: items } = splitLeftovers(snapshot.items.filter((i) => i.lastOffset >= state.logStartOffset));
  // Ranges still in STATE's tail are the leader's: only the items below them are retention's.
  const tail = decodeRanges(ctx, topic, partition, state.tail);
  const tailBase = tail[0]?.baseOffset ?? state.nextOffset;
  const chain = items.filter((i) => i.lastOffset < tailBase);
  const tailBytes = tail.reduce((n, r) => n + r.size, 0);
  const doomed = segmentsToDelete(chain, config, ctx.now(), tailBytes, tail.length > 0);

  let logStartOffset = state.logStartOffset;
  let deletedBytes = 0;
  if (doomed.length > 0) {
    const newStart = doomed[doomed.length - 1].lastOffset + 1;
    for (const item of doomed) deletedBytes += item.size;
    try {
      await ctx.ddb.send(
        new UpdateCommand({
          TableName: ctx.table,
          Key: stateKey(topic, partition),
          ConditionExpression: '#logStartOffset = :seen AND #nextOffset >= :new',
          UpdateExpression: 'SET #logStartOffset = :new ADD #bytes :minusBytes, #segments :minusSegments',
          ExpressionAttributeNames: {
            '#logStartOffset': 'logStartOffset',
            '#nextOffset': 'nextOffset',
            '#bytes': 'bytes',
            '#segments': 'segments',
          },
          ExpressionAttributeValues: {
            ':seen': state.logStartOffset,
            ':new': newStart,
            ':minusBytes': -deletedBytes,
            ':minusSegments': -doomed.length,
          },
        }),
      );
    } catch (e) {
      // Someone else moved logStartOffset (or the partition was deleted): decide again next run.
      if (isConditionalCheckFailed(e)) return { deletedSegments: 0, deletedBytes: 0, removedItems: 0, logStartOffset: state.logStartOffset };
      throw e;
    }
    logStartOffset = newStart;
  }

  // Everything wholly below the (new) log start, including swap leftovers inside deleted ranges.
  const removable = snapshot.items.filter((i) => i.lastOffset < logStartOffset);
  const removedItems = await deleteSegmentItemsIfUnchanged(ctx, topic, partition, removable);
  return { deletedSegments: doomed.length, deletedBytes, removedItems, logStartOffset };
}
