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
//
// appendRequests does the same for many requests at once (a Kafka gateway's batching window): one
// intake object for all, one update per partition listing all its batches (docs/ARCHITECTURE.md).
import { SluiceError, isSluiceError } from '../errors.js';
import type { SluiceContext } from '../context.js';
import { isConditionalCheckFailed, toSluiceError } from '../metadata/aws-errors.js';
import { segmentItemsDownFrom } from '../metadata/manifest.js';
import { type AppendedProducerBatch, appendEntries, readPartitionState, removeIdleProducers } from '../metadata/partition-state.js';
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
  | {
      readonly partition: number;
      readonly baseOffset: number;
      readonly count: number;
      readonly duplicate?: boolean;
      /**
       * The partition's log start offset as the commit found it (Kafka's Produce v5+ answer): only
       * when appendRequests is asked for it (`withLogStartOffset`), read off the STATE the commit
       * already returns, so it costs no request.
       */
      readonly logStartOffset?: number;
    }
  | { readonly partition: number; readonly error: SluiceError };

/** Bound on refused updates (full tails spilled, producer entries expired) within one append. */
const MAX_ROUNDS = 20;
/**
 * Bytes one manifest entry spans at most when it covers several requests' batches of a partition
 * (appendRequests): a reader reads a tail entry whole, so a window's run of batches is listed in
 * entries of about this size (a single batch larger than it is one entry, as always).
 */
export const MAX_ENTRY_BYTES = 1024 * 1024;
/** Refusals of a combined update no read explains before its batches are committed one by one. */
const UNEXPLAINED_REFUSALS = 2;

/** Several produce requests' appends, each to one topic, written together by appendRequests. */
export interface AppendRequest {
  readonly topic: TopicRef;
  readonly appends: readonly PartitionAppend[];
}

/** One partition's batch in the request. */
interface PartitionWrite {
  /** The request (appendRequests) and the append within it. */
  readonly request: number;
  readonly index: number;
  readonly topic: TopicRef;
  readonly append: PartitionAppend;
  readonly count: number;
  readonly batch: Buffer;
  readonly minTimestamp: number;
  readonly maxTimestamp: number;
  /** Where the batch lies in the intake object. */
  position: number;
  result?: PartitionAppendResult;
  /** The partition's log start offset in the STATE that acknowledged the batch. */
  logStartOffset?: number;
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
  const [results] = await appendRequests(ctx, [{ topic, appends }]);
  return results;
}

/**
 * appendToPartitions for several produce requests at once, of any topics (a Kafka gateway's
 * batching window): ONE intake object holds every batch, laid out partition by partition, and
 * each partition gets ONE conditional update listing its batches (consecutive in the object, so
 * one manifest entry per MAX_ENTRY_BYTES) and setting each idempotent producer's entry under its
 * own sequence condition. A producer's second batch to a partition in the same call waits for
 * the first's update (STATE remembers one batch per producer). When an update is refused, one read
 * decides each batch as appendToPartitions would (a duplicate gets its original offsets, a
 * sequence error is that request's alone) and the others are tried again; a refusal no read
 * explains makes each batch commit on its own. Results per request, each in the order of its appends;
 * with `withLogStartOffset` each acknowledged one carries the partition's log start offset too.
 */
export async function appendRequests(
  ctx: SluiceContext,
  requests: readonly AppendRequest[],
  options: { readonly withLogStartOffset?: boolean } = {},
): Promise<PartitionAppendResult[][]> {
  return (await writeIntake(ctx, requests, options)).commit();
}

/** appendRequests after its step 1: the intake object is written (or failed), the commits are to make. */
export interface WrittenIntake {
  /** Step 2, the partitions' updates (call once): resolves as appendRequests does. */
  commit(): Promise<PartitionAppendResult[][]>;
}

/**
 * appendRequests in its two steps, for a caller that writes the next requests' intake object
 * while earlier ones commit (a gateway's batching windows): resolves once the intake object is
 * written; nothing is visible until `commit()`, so commits can still be made in order.
 */
export async function writeIntake(
  ctx: SluiceContext,
  requests: readonly AppendRequest[],
  options: { readonly withLogStartOffset?: boolean } = {},
): Promise<WrittenIntake> {
  const results: PartitionAppendResult[][] = requests.map((r) => new Array<PartitionAppendResult>(r.appends.length));
  const writes: PartitionWrite[] = [];
  const refusals = await Promise.all(requests.map(({ topic, appends }) => keylessRecordRefusals(ctx, topic, appends)));
  requests.forEach(({ topic, appends }, request) => {
    const seen = new Set<number>();
    appends.forEach((append, index) => {
      try {
        if (refusals[request][index]) throw refusals[request][index];
        if (append.records?.length === 0) throw new SluiceError('INVALID_REQUEST', 'an append needs at least one record');
        if (seen.has(append.partition)) {
          throw new SluiceError('INVALID_REQUEST', `partition ${append.partition} appears twice in one append`);
        }
        seen.add(append.partition);
        writes.push(prepareWrite(topic, append, request, index));
      } catch (e) {
        results[request][index] = { partition: append.partition, error: toSluiceError(e, `append to ${topic.name}-${append.partition}`) };
      }
    });
  });
  const putStarted = performance.now();
  const written = writes.length > 0 ? await putIntake(ctx, writes) : undefined;
  const putMs = performance.now() - putStarted;
  return {
    commit: async () => {
      const started = performance.now();
      if (written) await Promise.all(written.partitions.map((group) => commitPartition(ctx, group, written.intake)));
      for (const w of writes) {
        const result = w.result!;
        results[w.request][w.index] = options.withLogStartOffset && !('error' in result) && w.logStartOffset !== undefined ? { ...result, logStartOffset: w.logStartOffset } : result;
      }
      recordMetrics(ctx, writes, putMs + performance.now() - started);
      return results;
    },
  };
}

function recordMetrics(ctx: SluiceContext, writes: readonly PartitionWrite[], latencyMs: number): void {
  for (const w of writes) {
    const result = w.result!;
    if (!('error' in result) && !result.duplicate) ctx.metrics.appended(result.count, w.batch.length, latencyMs);
  }
}

function prepareWrite(topic: TopicRef, append: PartitionAppend, request: number, index: number): PartitionWrite {
  const { records, batch, producer } = append;
  const write = { request, index, topic, append, position: 0 };
  if (batch) {
    const header = readBatchHeader(batch.bytes);
    if (header.sizeInBytes !== batch.bytes.length) throw new RangeError('expected exactly one record batch');
    return { ...write, count: batch.count, batch: batch.bytes, minTimestamp: batch.minTimestamp, maxTimestamp: header.maxTimestamp };
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
  return { ...write, count: records.length, batch: bytes, minTimestamp, maxTimestamp };
}

function fail(w: PartitionWrite, e: unknown): void {
  w.result = { partition: w.append.partition, error: toSluiceError(e, `append to ${w.topic.name}-${w.append.partition}`) };
}

/**
 * Step 1, one intake object for every write; returns the writes by partition for step 2 (each
 * partition's commit, in parallel), or undefined when the PUT failed (every write failed with it).
 */
async function putIntake(ctx: SluiceContext, writes: readonly PartitionWrite[]): Promise<{ intake: Intake; partitions: PartitionWrite[][] } | undefined> {
  const createdAt = ctx.now();
  const objectKey = intakeObjectKey(ctx.prefix, createdAt);
  // Each partition's batches next to each other (in arrival order), so one entry can list them.
  const byPartition = new Map<string, PartitionWrite[]>();
  for (const w of writes) {
    const key = `${w.topic.id}/${w.append.partition}`;
    const group = byPartition.get(key);
    if (group) group.push(w);
    else byPartition.set(key, [w]);
  }
  const laidOut = [...byPartition.values()].flat();
  let position = 0;
  for (const w of laidOut) {
    w.position = position;
    position += w.batch.length;
  }
  // A lone batch IS the body (a 1 MiB produce to one partition copies nothing).
  const body = laidOut.length === 1 ? laidOut[0].batch : Buffer.concat(laidOut.map((w) => w.batch));
  try {
    await putObject(ctx, objectKey, body);
  } catch (e) {
    // Nothing visible changed: no STATE was touched.
    for (const w of writes) fail(w, e);
    return undefined;
  }
  return { intake: { objectKey, createdAt }, partitions: [...byPartition.values()] };
}

interface Intake {
  readonly objectKey: string;
  readonly createdAt: number;
}

/**
 * Step 2 for one partition's writes: together, except that a producer's next batch waits for the
 * update of its previous one (in arrival order, which is the producer's order).
 */
async function commitPartition(ctx: SluiceContext, writes: readonly PartitionWrite[], intake: Intake): Promise<void> {
  let rest = writes;
  while (rest.length > 0) {
    const producers = new Set<number>();
    let n = 0;
    for (; n < rest.length; n++) {
      const producer = rest[n].append.producer;
      if (producer) {
        if (producers.has(producer.producerId)) break;
        producers.add(producer.producerId);
      }
    }
    const together = rest.slice(0, n);
    rest = rest.slice(n);
    try {
      await commit(ctx, together, intake);
    } catch (e) {
      for (const w of together) if (!w.result) fail(w, e);
    }
  }
}

/** The manifest entries listing `writes` (consecutive batches of one partition, in offset order). */
function entriesOf(ctx: SluiceContext, writes: readonly PartitionWrite[], { objectKey, createdAt }: Intake): ManifestEntry[] {
  const entries: ManifestEntry[] = [];
  let run: PartitionWrite[] = [];
  const close = () => {
    if (run.length === 0) return;
    const last = run[run.length - 1];
    entries.push(
      encodeEntry(ctx, {
        count: run.reduce((n, w) => n + w.count, 0),
        objectKey,
        position: run[0].position,
        size: last.position + last.batch.length - run[0].position,
        minTimestamp: Math.min(...run.map((w) => w.minTimestamp)),
        maxTimestamp: Math.max(...run.map((w) => w.maxTimestamp)),
        createdAt,
      }),
    );
    run = [];
  };
  for (const w of writes) {
    const last = run[run.length - 1];
    if (last && (last.position + last.batch.length !== w.position || w.position + w.batch.length - run[0].position > MAX_ENTRY_BYTES)) close();
    run.push(w);
  }
  close();
  return entries;
}

/** Acknowledges `writes` at consecutive offsets from `baseOffset`; `state` is the STATE that says so. */
function acknowledge(writes: readonly PartitionWrite[], baseOffset: number, state: PartitionState): void {
  let offset = baseOffset;
  for (const w of writes) {
    w.result = { partition: w.append.partition, baseOffset: offset, count: w.count };
    w.logStartOffset = state.logStartOffset;
    offset += w.count;
  }
}

function producerEntryOf(w: PartitionWrite, startedAt: number): ProducerEntry | undefined {
  const producer = w.append.producer;
  return (
    producer && {
      producerEpoch: producer.producerEpoch,
      baseSequence: producer.baseSequence,
      lastSequence: incrementSequence(producer.baseSequence, w.count - 1),
      count: w.count,
      lastUpdated: startedAt,
    }
  );
}

/**
 * Step 2 for one partition's writes (at most one per producer), with the decisions a refused or
 * unknown outcome needs. Sets each write's result, or throws what fails those still without one.
 */
async function commit(ctx: SluiceContext, writes: readonly PartitionWrite[], intake: Intake): Promise<void> {
  const { topic } = writes[0];
  const { partition } = writes[0].append;
  let pending = writes;
  let unexplained = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (pending.length === 0) return;
    const entries = entriesOf(ctx, pending, intake);
    if (pending.length > 1 && (unexplained >= UNEXPLAINED_REFUSALS || entries.length > TAIL_MAX_ENTRIES)) {
      // One update per batch, in order: each gets exactly the answer it would get alone.
      for (const w of pending) {
        try {
          await commit(ctx, [w], intake);
        } catch (e) {
          fail(w, e);
        }
      }
      return;
    }
    let offsetDelta = 0;
    const producers: AppendedProducerBatch[] = [];
    for (const w of pending) {
      const entry = producerEntryOf(w, intake.createdAt);
      if (entry) producers.push({ producerId: w.append.producer!.producerId, entry, offsetDelta });
      offsetDelta += w.count;
    }
    let before: PartitionState;
    try {
      before = await appendEntries(ctx, {
        topic,
        partition,
        entries,
        count: offsetDelta,
        bytes: pending.reduce((n, w) => n + w.batch.length, 0),
        maxTailEntries: TAIL_ROOM_ENTRIES,
        producers,
        maxProducers: MAX_PRODUCERS_PER_PARTITION,
      });
    } catch (e) {
      if (e instanceof UnknownOutcomeError) {
        // Whatever fails while resolving, the update may have landed: never a definite refusal.
        const timedOut = new SluiceError('REQUEST_TIMED_OUT', `append to ${topic.name}-${partition}: ${e.message}; it may still be applied`);
        await resolveUnknownOutcome(ctx, pending, entries[0], intake.createdAt, timedOut).catch((failure: unknown) => {
          const error = isSluiceError(failure) && failure.code === 'REQUEST_TIMED_OUT' ? failure : timedOut;
          for (const w of pending) if (!w.result) w.result = { partition, error };
        });
        return;
      }
      if (!isConditionalCheckFailed(e)) throw e; // a definite refusal (throttling...): nothing changed
      const state = await readPartitionState(ctx, topic, partition);
      if (!state) {
        throw new SluiceError('UNKNOWN_TOPIC_OR_PARTITION', `partition ${partition} of topic '${topic.name}' does not exist`, { topic: topic.name, partition });
      }
      // Refused by `NOT contains(tail, entry)`: this very update was applied already (an earlier
      // attempt whose failure was not definite after all). Acknowledge it where it landed.
      const landed = state.tail.indexOf(entries[0]);
      if (landed >= 0) {
        acknowledge(pending, state.tailBase + entriesCount(state.tail.slice(0, landed)), state);
        return;
      }
      let explained = false;
      const capped: PartitionWrite[] = [];
      for (const w of pending) {
        const producer = w.append.producer;
        if (!producer) continue;
        const verdict = classifyRefusedSequence(state, producer, w.count);
        if (verdict.kind === 'duplicate') {
          w.result = { partition, baseOffset: verdict.baseOffset, count: w.count, duplicate: true };
          w.logStartOffset = state.logStartOffset;
        }
        else if (verdict.kind === 'error') fail(w, verdict.error);
        else if (verdict.kind === 'producerCapReached') capped.push(w);
      }
      if (pending.some((w) => w.result)) {
        explained = true;
        pending = pending.filter((w) => !w.result);
      }
      if (capped.length > 0) {
        explained = true;
        try {
          await expireIdleProducers(ctx, topic, state, capped[0].append.producer!.producerId);
        } catch (failure) {
          // None idle: only the new producers wait (retriably); the others are tried again.
          if (!isSluiceError(failure) || failure.code !== 'THROTTLING') throw failure;
          for (const w of capped) fail(w, failure);
          pending = pending.filter((w) => !w.result);
        }
      }
      if (!explained && state.tail.length + entries.length > TAIL_ROOM_ENTRIES) {
        explained = true;
        await spillTail(ctx, topic, state, TAIL_MAX_ENTRIES);
      }
      // Otherwise the condition's inputs moved between the update and the read: try again.
      if (!explained) unexplained++;
      continue;
    }
    acknowledge(pending, before.logEndOffset, before);
    const tailAfter = before.tail.length + entries.length;
    // The append that brings the tail to TAIL_MAX_ENTRIES spills it, while concurrent appends use
    // the room left; so does the one that takes the last of that room, in case the first spiller
    // died. Not needed for this append's acknowledgement: a failure is left to the next appender
    // or the leader.
    if ((before.tail.length < TAIL_MAX_ENTRIES && tailAfter >= TAIL_MAX_ENTRIES) || tailAfter === TAIL_ROOM_ENTRIES) {
      await spillTail(ctx, topic, { ...before, tail: [...before.tail, ...entries] }, TAIL_MAX_ENTRIES).catch(() => undefined);
    }
    return;
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
 * The update's reply was lost. It landed if its first entry is listed (its entries land together):
 * in the tail, or in an item spilled since the append started (docs/ARCHITECTURE.md rule 7). An
 * idempotent producer's entry tells too, for that producer's batch alone (the entry may be a
 * previous request's). Otherwise it may still land, so the answer is retriable REQUEST_TIMED_OUT
 * (`timedOut`), never "not written".
 */
async function resolveUnknownOutcome(
  ctx: SluiceContext,
  writes: readonly PartitionWrite[],
  entry: ManifestEntry,
  startedAt: number,
  timedOut: SluiceError,
): Promise<void> {
  const { topic } = writes[0];
  const { partition } = writes[0].append;
  const state = await readPartitionState(ctx, topic, partition);
  if (!state) throw timedOut;
  const inTail = state.tail.indexOf(entry);
  if (inTail >= 0) return acknowledge(writes, state.tailBase + entriesCount(state.tail.slice(0, inTail)), state);
  for (const w of writes) {
    const producer = w.append.producer;
    if (!producer) continue;
    const last = state.producers[String(producer.producerId)];
    if (last && last.producerEpoch === producer.producerEpoch && last.baseSequence === producer.baseSequence && last.count === w.count) {
      w.result = { partition, baseOffset: state.producerBases[String(producer.producerId)], count: w.count };
      w.logStartOffset = state.logStartOffset;
    }
  }
  if (writes.every((w) => w.result)) return;
  if (state.tailBase > 0) {
    for (const item of await segmentItemsDownFrom(ctx, topic, partition, state.tailBase - 1, SEARCH_ITEMS)) {
      if (item.createdAt < startedAt - MAX_CLOCK_SKEW_MS) break; // spilled before this append began: cannot list it
      const at = item.entries?.indexOf(entry) ?? -1;
      if (at >= 0) return acknowledge(writes, item.baseOffset + entriesCount(item.entries!.slice(0, at)), state);
    }
  }
  for (const w of writes) w.result ??= { partition, error: timedOut };
}
