// Appending a produce request to its partitions: the leaderless append protocol of
// docs/ARCHITECTURE.md (any process, any partition, no lease, no read first):
//
//   1. PUT one intake object (a unique key) holding the request's RecordBatches for all its
//      partitions, each with base offset 0: offsets are not known yet.
//   2. per partition, in parallel, one conditional UpdateItem of STATE (partition-state.ts
//      appendEntry): logEndOffset += count, tail += [this batch's entry], if the topic id matches,
//      the tail has room and (idempotent producer) the sequence continues. The base offset is the
//      logEndOffset this update replaced. A partition is acknowledged only after its update succeeded.
//
// DynamoDB sequences concurrent appends to a partition: two processes never wait for each other.
// A refused update is decided by one consistent read of STATE: a full tail is spilled (spill.ts)
// and the update tried again; an idempotent producer's duplicate is answered with its original
// offsets; a sequence error is the producer's. An update whose outcome is unknown (a timeout, a
// lost reply) is never re-sent: the request's entry (its intake object is unique) is looked for
// in the tail and in SEG items spilled since; not found is a retriable REQUEST_TIMED_OUT, as a
// Kafka broker answers, and only an idempotent producer's retry is then exactly-once.
import { SluiceError, isSluiceError } from '../errors.js';
import type { SluiceContext } from '../context.js';
import { isConditionalCheckFailed, toSluiceError } from '../metadata/aws-errors.js';
import { segmentItemsDownFrom } from '../metadata/manifest.js';
import { appendEntry, readPartitionState, removeIdleProducers } from '../metadata/partition-state.js';
import type { ManifestEntry, PartitionState, ProducerEntry, TopicRef } from '../metadata/types.js';
import { UnknownOutcomeError } from '../metadata/unknown-outcome.js';
import { type RecordInput, encodeRecordBatch, readBatchHeader } from '../records/index.js';
import { encodeEntry, entriesCount } from './manifest-entry.js';
import { PRODUCER_ENTRY_IDLE_MS, MAX_PRODUCERS_PER_PARTITION, classifyRefusedSequence, incrementSequence } from './producer-sequence.js';
import { intakeObjectKey } from './segment-name.js';
import { TAIL_MAX_ENTRIES, TAIL_ROOM_ENTRIES, spillTail } from './spill.js';
import { putObject } from './object-store.js';
import { keylessRecordRefusals } from './compaction/keyless-records.js';

/**
 * One partition's part of a produce request: records to encode here, or a RecordBatch a client
 * encoded (Kafka's wire format), already checked by the caller (see EncodedBatch).
 */
export type PartitionAppend = {
  readonly partition: number;
  readonly producer?: { readonly producerId: number; readonly producerEpoch: number; readonly baseSequence: number };
} & ({ readonly records: readonly RecordInput[]; readonly batch?: never } | { readonly batch: EncodedBatch; readonly records?: never });

/**
 * A RecordBatch v2 as a client sent it, stored byte for byte with base offset 0; a fetch stamps its
 * base offset and partition leader epoch, which lie outside the CRC, as a Kafka broker does. The
 * caller has verified it (CRC, structure, offsets 0..count-1) and read `count` and `minTimestamp`
 * off it; its producer fields must agree with `producer`.
 */
export interface EncodedBatch {
  readonly bytes: Buffer;
  readonly count: number;
  readonly minTimestamp: number;
}

export type PartitionAppendResult =
  | { readonly partition: number; readonly baseOffset: number; readonly count: number; readonly duplicate?: boolean }
  | { readonly partition: number; readonly error: SluiceError };

/** Bound on refused updates (full tails spilled, producer entries expired) within one append. */
const MAX_ROUNDS = 20;

/** One partition's batch in the request. */
interface PartitionWrite {
  readonly index: number;
  readonly append: PartitionAppend;
  readonly count: number;
  readonly batch: Buffer;
  readonly minTimestamp: number;
  readonly maxTimestamp: number;
  result?: PartitionAppendResult;
}

/**
 * Appends one RecordBatch per entry of `appends`, all in one intake object; each partition is
 * committed on its own, so one partition's failure is reported in its result without failing the
 * others. Results are in the order of `appends`. Assumes the topic and partitions exist (the API
 * layer validates; a partition deleted meanwhile is UNKNOWN_TOPIC_OR_PARTITION).
 */
export async function appendToPartitions(
  ctx: SluiceContext,
  topic: TopicRef,
  appends: readonly PartitionAppend[],
): Promise<PartitionAppendResult[]> {
  const results: PartitionAppendResult[] = new Array(appends.length);
  const writes: PartitionWrite[] = [];
  const seen = new Set<number>();
  const refusals = await keylessRecordRefusals(ctx, topic, appends);
  appends.forEach((append, index) => {
    try {
      if (refusals[index]) throw refusals[index];
      if (append.records?.length === 0) throw new SluiceError('INVALID_REQUEST', 'an append needs at least one record');
      if (seen.has(append.partition)) {
        throw new SluiceError('INVALID_REQUEST', `partition ${append.partition} appears twice in one append`);
      }
      seen.add(append.partition);
      writes.push(prepareWrite(append, index));
    } catch (e) {
      results[index] = { partition: append.partition, error: toSluiceError(e, `append to ${topic.name}-${append.partition}`) };
    }
  });
  const started = performance.now();
  if (writes.length > 0) await writeAndCommit(ctx, topic, writes);
  for (const w of writes) results[w.index] = w.result!;
  recordMetrics(ctx, writes, performance.now() - started);
  return results;
}

function recordMetrics(ctx: SluiceContext, writes: readonly PartitionWrite[], latencyMs: number): void {
  for (const w of writes) {
    const result = w.result!;
    if (!('error' in result) && !result.duplicate) ctx.metrics.appended(result.count, w.batch.length, latencyMs);
  }
}

function prepareWrite(append: PartitionAppend, index: number): PartitionWrite {
  const { records, batch, producer } = append;
  if (batch) {
    const header = readBatchHeader(batch.bytes);
    if (header.sizeInBytes !== batch.bytes.length) throw new RangeError('expected exactly one record batch');
    return { index, append, count: batch.count, batch: batch.bytes, minTimestamp: batch.minTimestamp, maxTimestamp: header.maxTimestamp };
  }
  let minTimestamp = records[0].timestamp;
  let maxTimestamp = records[0].timestamp;
  for (const r of records) {
    if (r.timestamp < minTimestamp) minTimestamp = r.timestamp;
    if (r.timestamp > maxTimestamp) maxTimestamp = r.timestamp;
  }
  // Records sent as JSON are stored uncompressed; a client that compresses sends a RecordBatch.
  const bytes = encodeRecordBatch(records, {
    baseOffset: 0,
    producerId: producer?.producerId,
    producerEpoch: producer?.producerEpoch,
    baseSequence: producer?.baseSequence,
  });
  return { index, append, count: records.length, batch: bytes, minTimestamp, maxTimestamp };
}

function fail(topic: TopicRef, w: PartitionWrite, e: unknown): void {
  w.result = { partition: w.append.partition, error: toSluiceError(e, `append to ${topic.name}-${w.append.partition}`) };
}

/** Steps 1 and 2: one intake object, then one update per partition, in parallel. */
async function writeAndCommit(ctx: SluiceContext, topic: TopicRef, writes: readonly PartitionWrite[]): Promise<void> {
  const createdAt = ctx.now();
  const objectKey = intakeObjectKey(ctx.prefix, createdAt);
  // A lone batch IS the body (a 1 MiB produce to one partition copies nothing).
  const body = writes.length === 1 ? writes[0].batch : Buffer.concat(writes.map((w) => w.batch));
  const entries: ManifestEntry[] = [];
  let position = 0;
  for (const w of writes) {
    entries.push(
      encodeEntry(ctx, {
        count: w.count,
        objectKey,
        position,
        size: w.batch.length,
        minTimestamp: w.minTimestamp,
        maxTimestamp: w.maxTimestamp,
        createdAt,
      }),
    );
    position += w.batch.length;
  }
  try {
    await putObject(ctx, objectKey, body);
  } catch (e) {
    // Nothing visible changed: no STATE was touched.
    for (const w of writes) fail(topic, w, e);
    return;
  }
  await Promise.all(
    writes.map(async (w, i) => {
      try {
        w.result = await commit(ctx, topic, w, entries[i], createdAt);
      } catch (e) {
        fail(topic, w, e);
      }
    }),
  );
}

/** Step 2 for one partition, with the decisions a refused or unknown outcome needs. */
async function commit(ctx: SluiceContext, topic: TopicRef, w: PartitionWrite, entry: ManifestEntry, startedAt: number): Promise<PartitionAppendResult> {
  const { partition, producer } = w.append;
  const producerEntry: ProducerEntry | undefined = producer && {
    producerEpoch: producer.producerEpoch,
    baseSequence: producer.baseSequence,
    lastSequence: incrementSequence(producer.baseSequence, w.count - 1),
    count: w.count,
    lastUpdated: startedAt,
  };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let before: PartitionState;
    try {
      before = await appendEntry(ctx, {
        topic,
        partition,
        entry,
        count: w.count,
        bytes: w.batch.length,
        maxTailEntries: TAIL_ROOM_ENTRIES,
        producer: producer && producerEntry && { producerId: producer.producerId, entry: producerEntry, maxProducers: MAX_PRODUCERS_PER_PARTITION },
      });
    } catch (e) {
      if (e instanceof UnknownOutcomeError) {
        // Whatever fails while resolving, the update may have landed: never a definite refusal.
        return resolveUnknownOutcome(ctx, topic, w, entry, startedAt, e).catch((failure: unknown) => {
          throw isSluiceError(failure) && failure.code === 'REQUEST_TIMED_OUT'
            ? failure
            : new SluiceError('REQUEST_TIMED_OUT', `append to ${topic.name}-${partition}: ${e.message}; it may still be applied`);
        });
      }
      if (!isConditionalCheckFailed(e)) throw e; // a definite refusal (throttling...): nothing changed
      const state = await readPartitionState(ctx, topic, partition);
      if (!state) {
        throw new SluiceError('UNKNOWN_TOPIC_OR_PARTITION', `partition ${partition} of topic '${topic.name}' does not exist`, { topic: topic.name, partition });
      }
      // Refused by `NOT contains(tail, entry)`: this very update was applied already (an earlier
      // attempt whose failure was not definite after all). Acknowledge it where it landed.
      const landed = state.tail.indexOf(entry);
      if (landed >= 0) return { partition, baseOffset: state.tailBase + entriesCount(state.tail.slice(0, landed)), count: w.count };
      if (producer && producerEntry) {
        const verdict = classifyRefusedSequence(state, producer, w.count);
        if (verdict.kind === 'duplicate') return { partition, baseOffset: verdict.baseOffset, count: w.count, duplicate: true };
        if (verdict.kind === 'error') throw verdict.error;
        if (verdict.kind === 'producerCapReached') {
          await expireIdleProducers(ctx, topic, state, producer.producerId);
          continue;
        }
      }
      if (state.tail.length >= TAIL_ROOM_ENTRIES) await spillTail(ctx, topic, state, TAIL_MAX_ENTRIES);
      continue; // the condition's inputs moved between the update and the read: try again
    }
    const tailAfter = before.tail.length + 1;
    // The append that brings the tail to TAIL_MAX_ENTRIES spills it, while concurrent appends use
    // the room left; so does the one that takes the last of that room, in case the first spiller
    // died. Not needed for this append's acknowledgement: a failure is left to the next appender
    // or the leader.
    if (tailAfter === TAIL_MAX_ENTRIES || tailAfter === TAIL_ROOM_ENTRIES) {
      await spillTail(ctx, topic, { ...before, tail: [...before.tail, entry] }, TAIL_MAX_ENTRIES).catch(() => undefined);
    }
    return { partition, baseOffset: before.logEndOffset, count: w.count };
  }
  throw new SluiceError('REQUEST_TIMED_OUT', `append to ${topic.name}-${partition} did not settle after ${MAX_ROUNDS} refused updates`);
}

/**
 * The producer cap is reached: remove the entries idle longer than PRODUCER_ENTRY_IDLE_MS (each
 * only if unchanged), or refuse retriably when none is idle.
 */
async function expireIdleProducers(ctx: SluiceContext, topic: TopicRef, state: PartitionState, producerId: number): Promise<void> {
  const horizon = ctx.now() - PRODUCER_ENTRY_IDLE_MS;
  const idle = Object.entries(state.producers)
    .filter(([, e]) => e.lastUpdated < horizon)
    .map(([id, e]) => ({ producerId: id, lastUpdated: e.lastUpdated }));
  if (idle.length === 0) {
    throw new SluiceError(
      'THROTTLING',
      `partition ${state.partition} of topic '${topic.name}' already has ${MAX_PRODUCERS_PER_PARTITION} active idempotent producers; producer ${producerId} must wait until one is idle for ${PRODUCER_ENTRY_IDLE_MS / 1000} s`,
      undefined,
      Math.ceil(PRODUCER_ENTRY_IDLE_MS / 1000 / 10),
    );
  }
  await removeIdleProducers(ctx, topic, state.partition, idle);
}

/** Newest SEG items a search for a lost append reads (each lists up to TAIL_MAX_ENTRIES entries). */
const SEARCH_ITEMS = 8;
/** Processes' clocks may differ by this much: a spill's time is the spiller's clock. */
const MAX_CLOCK_SKEW_MS = 30_000;

/**
 * The update's reply was lost. It landed if its entry is listed: in the tail, or in an item
 * spilled since the append started (docs/ARCHITECTURE.md rule 7). An idempotent producer's entry tells too.
 * Otherwise it may still land, so the answer is retriable REQUEST_TIMED_OUT, never "not written".
 */
async function resolveUnknownOutcome(
  ctx: SluiceContext,
  topic: TopicRef,
  w: PartitionWrite,
  entry: ManifestEntry,
  startedAt: number,
  error: UnknownOutcomeError,
): Promise<PartitionAppendResult> {
  const { partition, producer } = w.append;
  const state = await readPartitionState(ctx, topic, partition);
  const timedOut = new SluiceError('REQUEST_TIMED_OUT', `append to ${topic.name}-${partition}: ${error.message}; it may still be applied`);
  if (!state) throw timedOut;
  const inTail = state.tail.indexOf(entry);
  if (inTail >= 0) return { partition, baseOffset: state.tailBase + entriesCount(state.tail.slice(0, inTail)), count: w.count };
  if (producer) {
    const last = state.producers[String(producer.producerId)];
    if (last && last.producerEpoch === producer.producerEpoch && last.baseSequence === producer.baseSequence && last.count === w.count) {
      return { partition, baseOffset: state.producerBases[String(producer.producerId)], count: w.count };
    }
  }
  if (state.tailBase > 0) {
    for (const item of await segmentItemsDownFrom(ctx, topic, partition, state.tailBase - 1, SEARCH_ITEMS)) {
      if (item.createdAt < startedAt - MAX_CLOCK_SKEW_MS) break; // spilled before this append began: cannot list it
      const at = item.entries?.indexOf(entry) ?? -1;
      if (at >= 0) return { partition, baseOffset: item.baseOffset + entriesCount(item.entries!.slice(0, at)), count: w.count };
    }
  }
  throw timedOut;
}
