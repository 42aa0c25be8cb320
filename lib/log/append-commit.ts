// Step 2 of the append protocol for one partition: the conditional commit of a stamped batch
// (partition-state.ts commitAppend: epoch = mine AND nextOffset = base AND owner = me, plus the
// producer entry as validated) and the resolution of any outcome the reply does not settle.
//
// A refused or unknown outcome is decided by a strongly consistent read of STATE, before anything
// else: nextOffset past base under my epoch means the commit landed. Otherwise, while I still lead
// at this base, an unknown outcome is re-sent (the SAME batch at the SAME base) up to
// COMMIT_ATTEMPTS times. When a newer leader moved on, the commit landed only if an attempt may have
// been applied and the manifest (STATE's tail, else the SEG item holding base) still lists my range
// there; if it does not, the outcome is reported as unknown (retriable), never as a refusal. The commit doubles as the lease renewal
// and drops up to EXPIRED_PRODUCERS_PER_COMMIT expired producer entries.
import type { SluiceContext } from '../context.js';
import { isConditionalCheckFailed } from '../metadata/aws-errors.js';
import { floorSegmentItem } from '../metadata/manifest.js';
import { commitAppend, getPartitionState } from '../metadata/partition-state.js';
import type { PartitionState, ProducerBatchState } from '../metadata/types.js';
import { type LeaderView, leaderViewOf } from './partition-leader.js';
import { decodeRanges, rangeHolding, rangesOf } from './segment-range.js';

/** How many times one append re-sends an unresolved commit before giving up (retriably). */
const COMMIT_ATTEMPTS = 3;
/**
 * Kafka's producer.id.expiration.ms default: a producer silent this long loses its sequence entry,
 * which keeps the STATE item (400 KB at most) from growing with every producer ever seen.
 */
export const PRODUCER_ID_EXPIRATION_MS = 86_400_000;
/** Expired entries removed per commit, so one commit stays small. */
const EXPIRED_PRODUCERS_PER_COMMIT = 16;

/**
 * committed: acknowledge (no view when a newer leader has since moved on); refused: still leading at
 * this base but the producer entry moved, re-validate on `view`; lostLeadership: a newer epoch holds
 * the partition; unresolved: unknown after every attempt and read.
 */
export type CommitOutcome =
  | { readonly kind: 'committed'; readonly view?: LeaderView }
  | { readonly kind: 'refused'; readonly view: LeaderView }
  | { readonly kind: 'lostLeadership' }
  | { readonly kind: 'unresolved'; readonly error: unknown };

export interface PartitionCommit {
  readonly topic: string;
  readonly partition: number;
  /** The view the batch was stamped on: its epoch, and the producer entries the commit keeps. */
  readonly leader: LeaderView;
  readonly baseOffset: number;
  readonly count: number;
  readonly bytes: number;
  /** The object holding the batch (how a commit that landed is told apart). */
  readonly objectKey: string;
  /** STATE's tail after the commit, and the change of its `segments` counter (partition-tail.ts planTail). */
  readonly tail: readonly string[];
  readonly segmentsDelta: number;
  readonly producer: { producerId?: number; expected?: ProducerBatchState; next?: ProducerBatchState };
}

/** Commits one partition's stamped batch and resolves any outcome it cannot read off the reply. */
export async function commitPartition(ctx: SluiceContext, req: PartitionCommit): Promise<CommitOutcome> {
  const { topic, partition, leader, baseOffset, count, bytes, objectKey, producer, tail, segmentsDelta } = req;
  const horizon = ctx.now() - PRODUCER_ID_EXPIRATION_MS;
  const expiredProducerIds = Object.entries(leader.producers)
    .filter(([id, entry]) => entry.lastUpdated < horizon && id !== String(producer.producerId))
    .slice(0, EXPIRED_PRODUCERS_PER_COMMIT)
    .map(([id]) => id);
  let lastError: unknown;
  /** Whether an attempt failed without a definite refusal, so it may have been applied. */
  let mayHaveLanded = false;
  for (let attempt = 0; attempt < COMMIT_ATTEMPTS; attempt++) {
    const expiresAt = ctx.now() + ctx.leaseMs;
    try {
      await commitAppend(ctx, {
        topic,
        partition,
        epoch: leader.epoch,
        baseOffset,
        count,
        bytes,
        expiresAt,
        tail,
        segmentsDelta,
        producer:
          producer.next && producer.producerId !== undefined
            ? { producerId: producer.producerId, expected: producer.expected, next: producer.next }
            : undefined,
        expiredProducerIds,
      });
      const producers: Record<string, ProducerBatchState> = { ...leader.producers };
      for (const id of expiredProducerIds) delete producers[id];
      if (producer.next) producers[String(producer.producerId)] = producer.next;
      return { kind: 'committed', view: { epoch: leader.epoch, nextOffset: baseOffset + count, expiresAt, producers, tail } };
    } catch (e) {
      lastError = e;
      mayHaveLanded ||= !isConditionalCheckFailed(e);
    }
    // Refused or unknown: the stored state decides, before anything else.
    let state: PartitionState;
    try {
      state = await getPartitionState(ctx, topic, partition);
    } catch {
      return { kind: 'unresolved', error: lastError };
    }
    const mine = state.epoch === leader.epoch && state.owner === ctx.ownerId;
    if (state.nextOffset > baseOffset) {
      if (mine) return { kind: 'committed', view: leaderViewOf(state) };
      // Every attempt was refused: not committed, whatever the manifest holds (a spill of mine may
      // have landed late and recreated an item after retention or compaction removed a newer one).
      if (!mayHaveLanded) return { kind: 'lostLeadership' };
      // A newer leader took over. The manifest still listing my range at base proves my commit
      // landed; anything else proves nothing (compaction or retention may have replaced it since),
      // so the outcome stays unknown rather than a refusal the producer would take as "not written".
      try {
        if (await listsMyRange(ctx, state, baseOffset, objectKey)) return { kind: 'committed' };
      } catch {
        // unknown, as below
      }
      return { kind: 'unresolved', error: lastError };
    }
    if (!mine || state.nextOffset !== baseOffset) return { kind: 'lostLeadership' };
    if (isConditionalCheckFailed(lastError)) return { kind: 'refused', view: leaderViewOf(state) };
    // Not applied (or not yet): re-send the same batch at the same base.
  }
  return { kind: 'unresolved', error: lastError };
}

/** Whether STATE's tail, or else the SEG item holding `baseOffset`, lists a range of `objectKey` starting there. */
async function listsMyRange(ctx: SluiceContext, state: PartitionState, baseOffset: number, objectKey: string): Promise<boolean> {
  const { topic, partition } = state;
  const mine = (ranges: ReturnType<typeof decodeRanges>) => {
    const range = rangeHolding(ranges, baseOffset);
    return range?.baseOffset === baseOffset && range.objectKey === objectKey;
  };
  if (mine(decodeRanges(ctx, topic, partition, state.tail))) return true;
  const item = await floorSegmentItem(ctx, topic, partition, baseOffset);
  return item !== undefined && mine(rangesOf(ctx, topic, partition, item));
}
