// Appending a RecordBatch to a partition: the append protocol of design.md.
//
//   cold:  acquire the lease (lease.ts): one conditional UpdateItem, new epoch, returns STATE
//   warm:  1. in parallel: PUT <base>-<id>.log (+ .index)  ∥  put SEG#<base> (absent or epoch <= mine)
//          2. commit: update STATE if epoch = mine AND nextOffset = base AND owner = me
//             (AND the producer's entry is as validated), SET nextOffset = base + count, renew lease
//
// The produce is acknowledged only after step 2 succeeds. A commit whose outcome is unknown
// (timeout, network error, throttling, 5xx) or that was refused is resolved by a strongly
// consistent read of STATE before anything else: nextOffset past base under my epoch means it
// committed. An unresolved commit is retried with the SAME batch at the SAME base; if it stays
// unresolved the writer forgets its view, so its next append takes a new epoch, which fences the
// request that may still be in flight. A writer that finds a newer epoch has lost leadership: it
// waits for the lease up to ctx.leaseWaitMs, then fails with retriable NOT_LEADER_OR_FOLLOWER.
import { SluiceError } from '../api/errors.js';
import type { SluiceContext } from '../context.js';
import { isConditionalCheckFailed, toSluiceError } from '../metadata/aws-errors.js';
import { acquireLease } from '../metadata/lease.js';
import { getSegmentItem, replaceOrphanSegmentItem } from '../metadata/manifest.js';
import { commitAppend, getPartitionState } from '../metadata/partition-state.js';
import type { PartitionState, ProducerBatchState, SegmentItem } from '../metadata/types.js';
import {
  type CompressionType,
  type RecordInput,
  encodeRecordBatch,
  setBaseOffset,
  setPartitionLeaderEpoch,
} from '../records/index.js';
import {
  type LeaderView,
  forgetLeaderView,
  leaderKey,
  liveLeaderView,
  rememberLeaderView,
  withPartitionQueue,
} from './partition-leader.js';
import { checkProducerSequence } from './producer-sequence.js';
import { planSegment, writeSegment } from './write-segment.js';

export interface PartitionAppend {
  readonly partition: number;
  readonly records: readonly RecordInput[];
  readonly producer?: { readonly producerId: number; readonly producerEpoch: number; readonly baseSequence: number };
}

export type PartitionAppendResult =
  | { readonly partition: number; readonly baseOffset: number; readonly count: number; readonly duplicate?: boolean }
  | { readonly partition: number; readonly error: SluiceError };

export interface AppendOptions {
  /** @default 'none' */
  readonly compression?: CompressionType;
  /** Kafka's `index.interval.bytes`. @default 4096 */
  readonly indexIntervalBytes?: number;
}

/** How many times one append re-sends an unresolved commit before giving up (retriably). */
const COMMIT_ATTEMPTS = 3;
/**
 * Kafka's producer.id.expiration.ms default: a producer silent this long loses its sequence entry,
 * which keeps the STATE item (400 KB at most) from growing with every producer ever seen.
 */
export const PRODUCER_ID_EXPIRATION_MS = 86_400_000;
/** Expired entries removed per commit, so one commit stays small. */
const EXPIRED_PRODUCERS_PER_COMMIT = 16;
/** Bound on protocol rounds (leadership changes, refreshed views) within one append. */
const MAX_ROUNDS = 20;

/**
 * Appends one RecordBatch per entry; partitions are appended concurrently and each is committed
 * on its own, so one partition's failure is reported in its result without failing the others.
 * Assumes the topic and partitions exist (the API layer validates).
 */
export async function appendToPartitions(
  ctx: SluiceContext,
  topic: string,
  appends: readonly PartitionAppend[],
  options: AppendOptions = {},
): Promise<PartitionAppendResult[]> {
  return Promise.all(
    appends.map(async (append): Promise<PartitionAppendResult> => {
      try {
        const key = leaderKey(ctx, topic, append.partition);
        return await withPartitionQueue(key, () => appendToPartition(ctx, topic, append, options, key));
      } catch (e) {
        return { partition: append.partition, error: toSluiceError(e, `append to ${topic}-${append.partition}`) };
      }
    }),
  );
}

function viewOf(state: PartitionState): LeaderView {
  return { epoch: state.epoch, nextOffset: state.nextOffset, expiresAt: state.expiresAt, producers: state.producers ?? {} };
}

async function appendToPartition(
  ctx: SluiceContext,
  topic: string,
  append: PartitionAppend,
  options: AppendOptions,
  key: string,
): Promise<PartitionAppendResult> {
  const { partition, records, producer } = append;
  if (records.length === 0) throw new SluiceError('INVALID_REQUEST', 'an append needs at least one record');
  const count = records.length;
  const deadline = ctx.now() + ctx.leaseWaitMs;
  // Encoded once; each attempt stamps its base offset and leader epoch (both outside the CRC).
  const unstamped = encodeRecordBatch(records, {
    baseOffset: 0,
    compression: options.compression,
    producerId: producer?.producerId,
    producerEpoch: producer?.producerEpoch,
    baseSequence: producer?.baseSequence,
  });
  let minTimestamp = records[0].timestamp;
  for (const r of records) if (r.timestamp < minTimestamp) minTimestamp = r.timestamp;

  const takeLeadership = async (): Promise<LeaderView> => {
    forgetLeaderView(key);
    const view = viewOf(await acquireLease(ctx, topic, partition, deadline));
    rememberLeaderView(key, view);
    return view;
  };
  let leader = liveLeaderView(ctx, key) ?? (await takeLeadership());

  for (let round = 0; ; round++) {
    if (round === MAX_ROUNDS) {
      throw new SluiceError('NOT_LEADER_OR_FOLLOWER', `append to ${topic}-${partition} did not settle after ${round} rounds`);
    }
    let producerEntry: { expected: ProducerBatchState | undefined; lastSequence: number } | undefined;
    if (producer) {
      const expected = leader.producers[String(producer.producerId)];
      const check = checkProducerSequence(expected, producer, count);
      if (check.kind === 'duplicate') return { partition, baseOffset: check.baseOffset, count: check.count, duplicate: true };
      if (check.kind === 'error') {
        // Refuse only on the stored truth: a view that lags a newer leader must not reject a good batch.
        const stored = await getPartitionState(ctx, topic, partition);
        if (stored.epoch === leader.epoch && stored.owner === ctx.ownerId && stored.nextOffset === leader.nextOffset) {
          throw check.error;
        }
        leader = await takeLeadership();
        continue;
      }
      producerEntry = { expected, lastSequence: check.lastSequence };
    }

    const baseOffset = leader.nextOffset;
    const batch = setPartitionLeaderEpoch(setBaseOffset(unstamped, baseOffset), leader.epoch);
    const plan = planSegment(ctx, {
      topic,
      partition,
      epoch: leader.epoch,
      baseOffset,
      batches: [batch],
      minTimestamp,
      indexIntervalBytes: options.indexIntervalBytes,
    });

    try {
      await writeSegment(ctx, topic, partition, plan);
    } catch (e) {
      if (!isConditionalCheckFailed(e)) throw e; // nothing visible changed; the view stays valid
      const state = await getPartitionState(ctx, topic, partition);
      if (!(await isOrphanAtBase(ctx, topic, partition, leader, state, plan.item))) {
        leader = await takeLeadership();
        continue;
      }
    }

    const next: ProducerBatchState | undefined =
      producer && producerEntry
        ? {
            producerEpoch: producer.producerEpoch,
            baseSequence: producer.baseSequence,
            lastSequence: producerEntry.lastSequence,
            baseOffset,
            count,
            lastUpdated: ctx.now(),
          }
        : undefined;
    const outcome = await commit(ctx, topic, partition, leader, baseOffset, count, batch.length, plan.item.objectKey, {
      producerId: producer?.producerId,
      expected: producerEntry?.expected,
      next,
    });
    if (outcome.kind === 'committed') {
      if (outcome.view) rememberLeaderView(key, outcome.view);
      else forgetLeaderView(key);
      return { partition, baseOffset, count };
    }
    if (outcome.kind === 'refused') {
      // Still the leader at this base, but the producer entry moved: re-validate on fresh state.
      leader = outcome.view;
      rememberLeaderView(key, leader);
      continue;
    }
    if (outcome.kind === 'unresolved') {
      forgetLeaderView(key);
      throw toSluiceError(outcome.error, `append to ${topic}-${partition}: commit outcome unknown`);
    }
    leader = await takeLeadership();
  }
}

/**
 * The manifest put was refused: a higher epoch wrote SEG#<base>. If I still hold the lease at this
 * base, that item can only be a leftover of a deleted incarnation of the partition (epochs restart
 * when STATE is recreated); replace it, but only if it is still exactly the item seen.
 */
async function isOrphanAtBase(
  ctx: SluiceContext,
  topic: string,
  partition: number,
  leader: LeaderView,
  state: PartitionState,
  item: SegmentItem,
): Promise<boolean> {
  if (state.epoch !== leader.epoch || state.owner !== ctx.ownerId || state.nextOffset !== item.baseOffset) return false;
  const seen = await getSegmentItem(ctx, topic, partition, item.baseOffset);
  if (!seen) return false;
  try {
    await replaceOrphanSegmentItem(ctx, topic, partition, item, seen.objectKey);
    return true;
  } catch (e) {
    if (isConditionalCheckFailed(e)) return false;
    throw e;
  }
}

type CommitOutcome =
  | { readonly kind: 'committed'; readonly view?: LeaderView }
  | { readonly kind: 'refused'; readonly view: LeaderView }
  | { readonly kind: 'lostLeadership' }
  | { readonly kind: 'unresolved'; readonly error: unknown };

async function commit(
  ctx: SluiceContext,
  topic: string,
  partition: number,
  leader: LeaderView,
  baseOffset: number,
  count: number,
  bytes: number,
  objectKey: string,
  producer: { producerId?: number; expected?: ProducerBatchState; next?: ProducerBatchState },
): Promise<CommitOutcome> {
  const horizon = ctx.now() - PRODUCER_ID_EXPIRATION_MS;
  const expiredProducerIds = Object.entries(leader.producers)
    .filter(([id, entry]) => entry.lastUpdated < horizon && id !== String(producer.producerId))
    .slice(0, EXPIRED_PRODUCERS_PER_COMMIT)
    .map(([id]) => id);
  let lastError: unknown;
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
        producer:
          producer.next && producer.producerId !== undefined
            ? { producerId: producer.producerId, expected: producer.expected, next: producer.next }
            : undefined,
        expiredProducerIds,
      });
      const producers: Record<string, ProducerBatchState> = { ...leader.producers };
      for (const id of expiredProducerIds) delete producers[id];
      if (producer.next) producers[String(producer.producerId)] = producer.next;
      return { kind: 'committed', view: { epoch: leader.epoch, nextOffset: baseOffset + count, expiresAt, producers } };
    } catch (e) {
      lastError = e;
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
      if (mine) return { kind: 'committed', view: viewOf(state) };
      // A newer leader took over; my commit landed first iff SEG#<base> is still my object.
      try {
        const seg = await getSegmentItem(ctx, topic, partition, baseOffset);
        if (seg?.objectKey === objectKey) return { kind: 'committed' };
      } catch {
        return { kind: 'unresolved', error: lastError };
      }
      return { kind: 'lostLeadership' };
    }
    if (!mine || state.nextOffset !== baseOffset) return { kind: 'lostLeadership' };
    if (isConditionalCheckFailed(lastError)) return { kind: 'refused', view: viewOf(state) };
    // Not applied (or not yet): re-send the same batch at the same base.
  }
  return { kind: 'unresolved', error: lastError };
}
