// Appending a produce request to its partitions: the append protocol of design.md, for all the
// request's partitions at once, with ONE data object (produce-object.ts) per round.
//
//   cold:  acquire each missing lease (lease.ts), in parallel: one conditional UpdateItem each
//   warm:  1. PUT the produce object  ∥  for a partition whose STATE tail is full, put the SEG
//             item its tail spills into (partition-tail.ts; conditional: absent or written by an
//             epoch <= mine)
//          2. in parallel, one commit per partition: update its STATE if epoch = mine AND
//             nextOffset = base AND owner = me (AND the producer's entry is as validated),
//             SET nextOffset = base + count, tail = the tail listing this range, renew the lease
//
// Each partition is acknowledged only after its own commit succeeds; one partition's failure is
// reported in its result while the others commit. How a refused or unknown commit is resolved (a
// strongly consistent read of STATE before anything else) is in append-commit.ts; if it stays
// unresolved, or a spill put failed (it may still land), the writer forgets its view, so its
// next append takes a new epoch, which fences the request that may still be in flight. A writer
// that finds a newer epoch has lost leadership: it waits for the lease up to ctx.leaseWaitMs, then
// fails that partition with retriable NOT_LEADER_OR_FOLLOWER.
// Partitions that must go round again (leadership changed, producer entry moved) are written in a
// new object with the others still pending; object keys are unique, so no write is ever replaced.
import { SluiceError } from '../api/errors.js';
import type { SluiceContext } from '../context.js';
import { isConditionalCheckFailed, toSluiceError } from '../metadata/aws-errors.js';
import { acquireLease } from '../metadata/lease.js';
import { getSegmentItem, putSegmentItem, replaceSegmentItem } from '../metadata/manifest.js';
import { getPartitionState } from '../metadata/partition-state.js';
import type { PartitionState, ProducerBatchState, SegmentItem } from '../metadata/types.js';
import { metrics } from '../observability/metrics.js';
import {
  type CompressionType,
  type RecordInput,
  encodeRecordBatch,
} from '../records/index.js';
import { commitPartition } from './append-commit.js';
import {
  type LeaderView,
  forgetLeaderView,
  leaderKey,
  leaderViewOf,
  liveLeaderView,
  lockPartitions,
  rememberLeaderView,
} from './partition-leader.js';
import { type TailLimits, type TailPlan, planTail, stateBytesWithoutTail, tailBudgetBytes, tailLimits } from './partition-tail.js';
import { layoutProduceObject } from './produce-object.js';
import { checkProducerSequence } from './producer-sequence.js';
import { putObject } from './write-segment.js';

/**
 * One partition's part of a produce request: records to encode here, or a RecordBatch a client
 * encoded (Kafka's wire format), already checked by the caller (see EncodedBatch).
 */
export type PartitionAppend = {
  readonly partition: number;
  readonly producer?: { readonly producerId: number; readonly producerEpoch: number; readonly baseSequence: number };
} & ({ readonly records: readonly RecordInput[]; readonly batch?: never } | { readonly batch: EncodedBatch; readonly records?: never });

/**
 * A RecordBatch v2 as a client sent it, stored byte for byte: the leader only stamps its base
 * offset and partition leader epoch, which lie outside the CRC, as a Kafka broker does (in these
 * very bytes when the batch is alone in its object: the caller hands them over). The caller
 * has verified it (CRC, structure, offsets 0..count-1) and read `count` and `minTimestamp` off it;
 * its producer fields must agree with `producer`.
 */
export interface EncodedBatch {
  readonly bytes: Buffer;
  readonly count: number;
  readonly minTimestamp: number;
}

export type PartitionAppendResult =
  | { readonly partition: number; readonly baseOffset: number; readonly count: number; readonly duplicate?: boolean }
  | { readonly partition: number; readonly error: SluiceError };

export interface AppendOptions {
  /** @default 'none' */
  readonly compression?: CompressionType;
  /**
   * Kafka's `index.interval.bytes`. Unused by produce: each partition's range is one batch, which
   * Kafka's index rule never indexes (compaction applies it when it merges batches).
   */
  readonly indexIntervalBytes?: number;
  /**
   * Topic `segment.ms` and `segment.bytes`: STATE's tail is spilled into a SEG item before it
   * would span more (partition-tail.ts; the age at most TAIL_MAX_AGE_MS), as Kafka rolls its
   * active segment. @default no limit but partition-tail.ts's own
   */
  readonly segmentMs?: number;
  readonly segmentBytes?: number;
}

/** Bound on protocol rounds (leadership changes, refreshed views) within one append. */
const MAX_ROUNDS = 20;

/** One partition's part of a produce request, across protocol rounds. */
interface PartitionWrite {
  readonly index: number;
  readonly append: PartitionAppend;
  readonly key: string;
  readonly count: number;
  /**
   * Encoded once; each round's object stamps its base offset and leader epoch (both outside the
   * CRC) on its copy, or on this buffer itself when it is the object's only batch.
   */
  readonly unstamped: Buffer;
  readonly minTimestamp: number;
  /** Undefined when the next round must (re)take the lease. */
  leader?: LeaderView;
  round?: {
    readonly baseOffset: number;
    readonly producerEntry?: { readonly expected: ProducerBatchState | undefined; readonly lastSequence: number };
  };
  result?: PartitionAppendResult;
}

/**
 * Appends one RecordBatch per entry, all in one object per round; each partition is committed on
 * its own, so one partition's failure is reported in its result without failing the others.
 * Results are in the order of `appends`. Assumes the topic and partitions exist (the API layer
 * validates).
 */
export async function appendToPartitions(
  ctx: SluiceContext,
  topic: string,
  appends: readonly PartitionAppend[],
  options: AppendOptions = {},
): Promise<PartitionAppendResult[]> {
  const results: PartitionAppendResult[] = new Array(appends.length);
  const writes: PartitionWrite[] = [];
  const seen = new Set<number>();
  appends.forEach((append, index) => {
    try {
      if (append.records?.length === 0) throw new SluiceError('INVALID_REQUEST', 'an append needs at least one record');
      if (seen.has(append.partition)) {
        throw new SluiceError('INVALID_REQUEST', `partition ${append.partition} appears twice in one append`);
      }
      seen.add(append.partition);
      writes.push(prepareWrite(ctx, topic, append, options, index));
    } catch (e) {
      results[index] = { partition: append.partition, error: toSluiceError(e, `append to ${topic}-${append.partition}`) };
    }
  });
  const started = performance.now();
  if (writes.length > 0) {
    const release = await lockPartitions(writes.map((w) => w.key));
    try {
      for (const w of writes) w.leader = liveLeaderView(ctx, w.key);
      await appendLocked(ctx, topic, writes, ctx.now() + ctx.leaseWaitMs, tailLimits(options));
    } finally {
      release();
    }
  }
  for (const w of writes) results[w.index] = w.result!;
  recordMetrics(writes, performance.now() - started);
  return results;
}

function recordMetrics(writes: readonly PartitionWrite[], latencyMs: number): void {
  for (const w of writes) {
    const result = w.result!;
    if ('error' in result) {
      if (result.error.code === 'NOT_LEADER_OR_FOLLOWER') metrics.leaseContention();
    } else if (!result.duplicate) {
      metrics.appended(result.count, w.unstamped.length, latencyMs);
    }
  }
}

function prepareWrite(
  ctx: SluiceContext,
  topic: string,
  append: PartitionAppend,
  options: AppendOptions,
  index: number,
): PartitionWrite {
  const key = leaderKey(ctx, topic, append.partition);
  const { records, batch, producer } = append;
  if (batch) return { index, append, key, count: batch.count, unstamped: batch.bytes, minTimestamp: batch.minTimestamp };
  let minTimestamp = records[0].timestamp;
  for (const r of records) if (r.timestamp < minTimestamp) minTimestamp = r.timestamp;
  const unstamped = encodeRecordBatch(records, {
    baseOffset: 0,
    compression: options.compression,
    producerId: producer?.producerId,
    producerEpoch: producer?.producerEpoch,
    baseSequence: producer?.baseSequence,
  });
  return { index, append, key, count: records.length, unstamped, minTimestamp };
}

function fail(topic: string, w: PartitionWrite, e: unknown): void {
  w.result = { partition: w.append.partition, error: toSluiceError(e, `append to ${topic}-${w.append.partition}`) };
}

/** Runs `fn` for every write in parallel; a thrown error becomes that partition's result. */
async function forEachWrite(topic: string, writes: readonly PartitionWrite[], fn: (w: PartitionWrite) => Promise<void>): Promise<void> {
  await Promise.all(
    writes.map(async (w) => {
      try {
        await fn(w);
      } catch (e) {
        fail(topic, w, e);
      }
    }),
  );
}

async function appendLocked(
  ctx: SluiceContext,
  topic: string,
  writes: readonly PartitionWrite[],
  deadline: number,
  limits: TailLimits,
): Promise<void> {
  for (let round = 0; ; round++) {
    const active = writes.filter((w) => !w.result);
    if (active.length === 0) return;
    if (round === MAX_ROUNDS) {
      for (const w of active) {
        fail(topic, w, new SluiceError('NOT_LEADER_OR_FOLLOWER', `append to ${topic}-${w.append.partition} did not settle after ${round} rounds`));
      }
      return;
    }
    await forEachWrite(topic, active, (w) => stampRound(ctx, topic, w, deadline));
    const ready = active.filter((w) => !w.result && w.round);
    if (ready.length > 0) await writeAndCommit(ctx, topic, ready, limits);
  }
}

async function takeLeadership(ctx: SluiceContext, topic: string, w: PartitionWrite, deadline: number): Promise<LeaderView> {
  forgetLeaderView(w.key);
  const view = leaderViewOf(await acquireLease(ctx, topic, w.append.partition, deadline));
  rememberLeaderView(w.key, view);
  return view;
}

/**
 * Makes sure the partition has a leader view, validates the producer sequence against it, and
 * fixes the base of this round (layoutProduceObject stamps it and the epoch on the batch). Leaves `round` unset when the partition
 * is done (a duplicate) or must go round again on a fresh lease.
 */
async function stampRound(ctx: SluiceContext, topic: string, w: PartitionWrite, deadline: number): Promise<void> {
  w.round = undefined;
  const leader = (w.leader ??= await takeLeadership(ctx, topic, w, deadline));
  const { partition, producer } = w.append;
  let producerEntry: { expected: ProducerBatchState | undefined; lastSequence: number } | undefined;
  if (producer) {
    const expected = leader.producers[String(producer.producerId)];
    const check = checkProducerSequence(expected, producer, w.count);
    if (check.kind === 'duplicate') {
      w.result = { partition, baseOffset: check.baseOffset, count: check.count, duplicate: true };
      return;
    }
    if (check.kind === 'error') {
      // Refuse only on the stored truth: a view that lags a newer leader must not reject a good batch.
      const stored = await getPartitionState(ctx, topic, partition);
      if (stored.epoch === leader.epoch && stored.owner === ctx.ownerId && stored.nextOffset === leader.nextOffset) {
        throw check.error;
      }
      w.leader = undefined;
      return;
    }
    producerEntry = { expected, lastSequence: check.lastSequence };
  }
  const baseOffset = leader.nextOffset;
  w.round = { baseOffset, producerEntry };
}

/**
 * Steps 1 and 2 for every stamped partition: one object (and, for a partition whose tail is full,
 * the spill of that tail into a SEG item), then one commit per partition.
 */
async function writeAndCommit(ctx: SluiceContext, topic: string, ready: readonly PartitionWrite[], limits: TailLimits): Promise<void> {
  const object = layoutProduceObject(
    ctx,
    topic,
    ready.map((w) => ({
      partition: w.append.partition,
      epoch: w.leader!.epoch,
      baseOffset: w.round!.baseOffset,
      batch: w.unstamped,
      minTimestamp: w.minTimestamp,
    })),
  );
  const plans = ready.map((w, i) => {
    // STATE as this commit leaves it, but for the tail: the producer's entry may be new.
    const producer = w.append.producer;
    const view: LeaderView = producer
      ? { ...w.leader!, producers: { ...w.leader!.producers, [producer.producerId]: producerState(ctx, w, producer) } }
      : w.leader!;
    const maxTailBytes = tailBudgetBytes(stateBytesWithoutTail(ctx, topic, w.append.partition, view));
    return planTail(ctx, topic, w.append.partition, w.leader!.tail, object.items[i], w.leader!.epoch, { ...limits, maxTailBytes });
  });
  // allSettled: never leave a request running after we return.
  const [put, ...spills] = await Promise.allSettled([
    putObject(ctx, object.objectKey, object.body),
    ...ready.map((w, i) => {
      const spill = plans[i].spill;
      return spill ? putSegmentItem(ctx, topic, w.append.partition, spill) : Promise.resolve();
    }),
  ]);
  // A spill put that failed may still land later (a timeout is no proof it was not applied). A
  // later spill of mine at the same base in this epoch may list more ranges, and the late put would
  // replace it with fewer: forget the view, so the next append takes a new epoch, which fences it.
  ready.forEach((w, i) => {
    if (spills[i].status === 'rejected') forgetLeaderView(w.key);
  });
  if (put.status === 'rejected') {
    // Nothing visible changed: a spill lists committed ranges only, and STATE was not touched.
    for (const w of ready) fail(topic, w, put.reason);
    return;
  }
  const index = new Map(ready.map((w, i) => [w, i]));
  await forEachWrite(topic, ready, async (w) => {
    const i = index.get(w)!;
    const spill = spills[i];
    if (spill.status === 'rejected') {
      if (!isConditionalCheckFailed(spill.reason)) throw spill.reason; // nothing visible changed
      const state = await getPartitionState(ctx, topic, w.append.partition);
      if (!(await isOrphanAtBase(ctx, topic, w.append.partition, w.leader!, state, plans[i].spill!))) {
        w.leader = undefined;
        return;
      }
    }
    await commitRound(ctx, topic, w, object.items[i], plans[i]);
  });
}

/** The idempotent producer's entry this round's commit stores. */
function producerState(ctx: SluiceContext, w: PartitionWrite, producer: NonNullable<PartitionAppend['producer']>): ProducerBatchState {
  return {
    producerEpoch: producer.producerEpoch,
    baseSequence: producer.baseSequence,
    lastSequence: w.round!.producerEntry?.lastSequence ?? producer.baseSequence + w.count - 1,
    baseOffset: w.round!.baseOffset,
    count: w.count,
    lastUpdated: ctx.now(),
  };
}

async function commitRound(ctx: SluiceContext, topic: string, w: PartitionWrite, item: SegmentItem, plan: TailPlan): Promise<void> {
  const { partition, producer } = w.append;
  const { baseOffset, producerEntry } = w.round!;
  const next: ProducerBatchState | undefined = producer && producerEntry ? producerState(ctx, w, producer) : undefined;
  const outcome = await commitPartition(ctx, {
    topic,
    partition,
    leader: w.leader!,
    baseOffset,
    count: w.count,
    bytes: w.unstamped.length,
    objectKey: item.objectKey,
    tail: plan.tail,
    segmentsDelta: plan.segmentsDelta,
    producer: { producerId: producer?.producerId, expected: producerEntry?.expected, next },
  });
  switch (outcome.kind) {
    case 'committed':
      if (outcome.view) rememberLeaderView(w.key, outcome.view);
      else forgetLeaderView(w.key);
      w.result = { partition, baseOffset, count: w.count };
      return;
    case 'refused':
      // Still the leader at this base, but the producer entry moved: re-validate on fresh state.
      w.leader = outcome.view;
      rememberLeaderView(w.key, outcome.view);
      return;
    case 'unresolved':
      forgetLeaderView(w.key);
      throw toSluiceError(outcome.error, `append to ${topic}-${partition}: commit outcome unknown`);
    case 'lostLeadership':
      w.leader = undefined;
  }
}

/**
 * The spill put was refused: a higher epoch wrote SEG#<base>. If I still hold the lease at this
 * round's base, that item can only be a leftover of a deleted incarnation of the partition (epochs
 * restart when STATE is recreated); replace it, but only if it is still exactly the item seen.
 */
async function isOrphanAtBase(
  ctx: SluiceContext,
  topic: string,
  partition: number,
  leader: LeaderView,
  state: PartitionState,
  item: SegmentItem,
): Promise<boolean> {
  if (state.epoch !== leader.epoch || state.owner !== ctx.ownerId || state.nextOffset !== leader.nextOffset) return false;
  const seen = await getSegmentItem(ctx, topic, partition, item.baseOffset);
  return seen !== undefined && (await replaceSegmentItem(ctx, topic, partition, item, seen));
}
