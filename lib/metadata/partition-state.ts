// The partition's `STATE` item (keys.ts): every write to it is one of the named functions here,
// each a single conditional UpdateItem whose condition says exactly what it relies on.
//
//   createPartitionStates   topic creation: the item with every attribute the updates below need
//   appendEntry             an append (any process): logEndOffset += count, tail += [entry]
//   appendEntries           the same for several appends' entries of one partition at once
//   removeSpilledEntries    a spill (any process): drop the oldest entries, advance tailBase
//   acquirePartitionLease   the partition leader (maintenance): owner, epoch + 1, expiry
//   advanceLogStartOffset   retention, under the lease
//   recordMerge             a merge swapped in, under the lease (describe's segment count)
//   removeIdleProducers     idle idempotent-producer entries (any process: conditioned on each entry)
//   deletePartitionState    topic deletion (lib/log/delete-topic.ts, the sweep finishing one):
//                           unconditional, first of the partition's items to go
//
// Reads are strongly consistent: the append and read protocols decide on them; only a long-poll's
// check for new data (readLogEndOffsets) reads eventually consistent.
import { BatchGetCommand, type BatchGetCommandOutput, DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SluiceError } from '../errors.js';
import type { SluiceContext } from '../context.js';
import { isConditionalCheckFailed } from './aws-errors.js';
import { partitionPk, stateKey } from './keys.js';
import { sendOnce } from './unknown-outcome.js';
import type { ManifestEntry, PartitionState, ProducerEntry, TopicRef } from './types.js';

const num = (item: Record<string, unknown>, name: string): number => {
  const v = item[name];
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new Error(`STATE item: '${name}' is not an integer (${JSON.stringify(v)})`);
  return v;
};

/** Parses a stored STATE item; a malformed one is a clear error, never undefined behaviour. */
export function partitionStateFromItem(item: Record<string, unknown>): PartitionState {
  // The key names the topic, its id and the partition (keys.ts); the item does not repeat them,
  // which keeps STATE (rewritten by every append) small whatever the topic's name.
  const key = /^PART#(.+)#([^#]+)#(\d+)$/.exec(String(item.pk));
  if (!key) throw new Error(`STATE item: malformed key ${JSON.stringify(item.pk)}`);
  const tail = item.tail;
  if (!Array.isArray(tail) || tail.some((e) => typeof e !== 'string')) throw new Error('STATE item: tail is not a list of strings');
  const producers = parseProducers(item.producers);
  const producerBases = (item.producerBases ?? {}) as Record<string, number>;
  if (typeof producerBases !== 'object' || producerBases === null || Array.isArray(producerBases) || !Object.values(producerBases).every((v) => Number.isSafeInteger(v))) {
    throw new Error(`STATE item: producerBases is malformed (${JSON.stringify(item.producerBases)?.slice(0, 200)})`);
  }
  if (item.owner !== undefined && typeof item.owner !== 'string') throw new Error(`STATE item: owner is malformed (${JSON.stringify(item.owner)})`);
  return {
    topic: key[1],
    topicId: key[2],
    partition: Number(key[3]),
    logEndOffset: num(item, 'logEndOffset'),
    logStartOffset: num(item, 'logStartOffset'),
    tailBase: num(item, 'tailBase'),
    tail: tail as ManifestEntry[],
    owner: typeof item.owner === 'string' ? item.owner : undefined,
    epoch: num(item, 'epoch'),
    expiresAt: num(item, 'expiresAt'),
    bytes: num(item, 'bytes'),
    segments: num(item, 'segments'),
    producers,
    producerBases,
  };
}

/**
 * An idempotent producer's entry as stored: one-letter names, because every append rewrites STATE
 * and pays for each byte of it (8 producers' entries take ~450 bytes less than with full names).
 */
interface StoredProducerEntry {
  readonly e: number; // producerEpoch
  readonly s: number; // baseSequence
  readonly l: number; // lastSequence
  readonly n: number; // count
  readonly t: number; // lastUpdated
}

function storedProducerEntry(entry: ProducerEntry): StoredProducerEntry {
  return { e: entry.producerEpoch, s: entry.baseSequence, l: entry.lastSequence, n: entry.count, t: entry.lastUpdated };
}

function parseProducers(stored: unknown): Record<string, ProducerEntry> {
  if (stored === undefined) return {};
  if (typeof stored !== 'object' || stored === null) throw new Error('STATE item: producers is malformed');
  const out: Record<string, ProducerEntry> = {};
  for (const [id, raw] of Object.entries(stored as Record<string, Partial<StoredProducerEntry>>)) {
    const { e, s, l, n, t } = raw;
    if (typeof raw !== 'object' || raw === null || ![e, s, l, n, t].every((v) => Number.isSafeInteger(v))) throw new Error(`STATE item: producer ${id}'s entry is malformed`);
    out[id] = { producerEpoch: e!, baseSequence: s!, lastSequence: l!, count: n!, lastUpdated: t! };
  }
  return out;
}

const unknownPartition = (topic: TopicRef, partition: number) =>
  new SluiceError('UNKNOWN_TOPIC_OR_PARTITION', `partition ${partition} of topic '${topic.name}' does not exist`, {
    topic: topic.name,
    partition,
  });

/** Strongly consistent read; undefined when the partition does not exist (or its topic was deleted). */
export async function readPartitionState(ctx: SluiceContext, topic: TopicRef, partition: number): Promise<PartitionState | undefined> {
  const got = await ctx.ddb.send(new GetCommand({ TableName: ctx.table, Key: stateKey(topic, partition), ConsistentRead: true }));
  return got.Item ? partitionStateFromItem(got.Item) : undefined;
}

/** Keys one BatchGetItem takes at most. */
const BATCH_GET_KEYS = 100;

/**
 * The partitions' logEndOffsets, by key pk (keys.ts partitionPk), read cheaply for long-polls:
 * eventually consistent (half the cost; a stale value is only older, so it never wakes a poll for
 * nothing), only that attribute, 100 partitions per BatchGetItem. A partition that does not exist
 * is absent from the map.
 */
export async function readLogEndOffsets(ctx: SluiceContext, partitions: readonly { readonly topic: TopicRef; readonly partition: number }[]): Promise<Map<string, number>> {
  const offsets = new Map<string, number>();
  const unique = [...new Map(partitions.map((p) => [partitionPk(p.topic, p.partition), stateKey(p.topic, p.partition)])).values()];
  for (let i = 0; i < unique.length; i += BATCH_GET_KEYS) {
    let keys: Record<string, unknown>[] | undefined = unique.slice(i, i + BATCH_GET_KEYS);
    for (let attempt = 0; keys && keys.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** attempt)));
      const out: BatchGetCommandOutput = await ctx.ddb.send(
        new BatchGetCommand({
          RequestItems: { [ctx.table]: { Keys: keys, ProjectionExpression: 'pk, #logEndOffset', ExpressionAttributeNames: { '#logEndOffset': 'logEndOffset' } } },
        }),
      );
      for (const item of out.Responses?.[ctx.table] ?? []) offsets.set(String(item.pk), num(item, 'logEndOffset'));
      keys = out.UnprocessedKeys?.[ctx.table]?.Keys;
    }
  }
  return offsets;
}

/** Strongly consistent read. @throws SluiceError UNKNOWN_TOPIC_OR_PARTITION when it does not exist */
export async function getPartitionState(ctx: SluiceContext, topic: TopicRef, partition: number): Promise<PartitionState> {
  const state = await readPartitionState(ctx, topic, partition);
  if (!state) throw unknownPartition(topic, partition);
  return state;
}

/**
 * Creates the partitions' STATE items (absent ones only: a retried creation is harmless). Every
 * attribute an update adds to or appends to exists from here on, as list_append and `+` need.
 */
export async function createPartitionStates(ctx: SluiceContext, topic: TopicRef, partitions: readonly number[]): Promise<void> {
  const create = async (partition: number) => {
    try {
      await ctx.ddb.send(
        new PutCommand({
          TableName: ctx.table,
          Item: {
            ...stateKey(topic, partition),
            logEndOffset: 0,
            logStartOffset: 0,
            tailBase: 0,
            tail: [],
            epoch: 0,
            expiresAt: 0,
            bytes: 0,
            segments: 0,
            producers: {},
            producerBases: {},
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (e) {
      if (!isConditionalCheckFailed(e)) throw e;
    }
  };
  const CONCURRENCY = 16;
  for (let i = 0; i < partitions.length; i += CONCURRENCY) await Promise.all(partitions.slice(i, i + CONCURRENCY).map(create));
}

export interface AppendEntryRequest {
  readonly topic: TopicRef;
  readonly partition: number;
  readonly entry: ManifestEntry;
  readonly count: number;
  readonly bytes: number;
  /** The tail must hold fewer entries than this for the entry to be added. */
  readonly maxTailEntries: number;
  /** An idempotent producer's batch: its entry is replaced in the same update, under its sequence condition. */
  readonly producer?: {
    readonly producerId: number;
    readonly entry: ProducerEntry;
    /** At most this many producers may hold entries on the partition (a new one past it is refused). */
    readonly maxProducers: number;
  };
}

/** One idempotent producer's batch among the entries of one update (appendEntries). */
export interface AppendedProducerBatch {
  readonly producerId: number;
  readonly entry: ProducerEntry;
  /** Records of the update before this batch's first: its base offset is the old logEndOffset + this. */
  readonly offsetDelta: number;
}

/** Several appends' entries committed to one partition by one update (a gateway's batching window). */
export interface AppendEntriesRequest {
  readonly topic: TopicRef;
  readonly partition: number;
  /** In offset order; the first is the one `NOT contains` guards (they land together or not at all). */
  readonly entries: readonly ManifestEntry[];
  /** Records of all the entries. */
  readonly count: number;
  readonly bytes: number;
  /** The tail must hold at most this many entries once they are added. */
  readonly maxTailEntries: number;
  /** Each at most once per producer id, each under its own sequence condition. */
  readonly producers: readonly AppendedProducerBatch[];
  /** At most this many producers may hold entries on the partition once the update is applied. */
  readonly maxProducers: number;
}

/**
 * Step 2 of the append protocol: `logEndOffset += count, tail += [entry]`, if the item exists (its
 * key carries the topic id, so a writer of a deleted topic finds none),
 * the tail has room and (idempotent producer) the sequence continues the producer's last batch:
 * sequence 0 needs no entry or one of an older producer epoch; any other needs the same epoch and
 * the previous sequence as its last. Returns the STATE as it was before the update: its logEndOffset
 * is the base offset this append received. A ConditionalCheckFailedException (nothing changed)
 * is thrown as it is; any other failure is an UnknownOutcomeError (unknown-outcome.ts: the SDK never
 * re-sends it), which append.ts resolves.
 *
 * `NOT contains(tail, :entry)` makes a repeat of an applied update fail rather than append twice;
 * append.ts never re-sends an update whose outcome it does not know, this is a second guard.
 */
export async function appendEntry(ctx: SluiceContext, req: AppendEntryRequest): Promise<PartitionState> {
  const { producer } = req;
  return appendEntries(ctx, {
    topic: req.topic,
    partition: req.partition,
    entries: [req.entry],
    count: req.count,
    bytes: req.bytes,
    maxTailEntries: req.maxTailEntries,
    producers: producer ? [{ producerId: producer.producerId, entry: producer.entry, offsetDelta: 0 }] : [],
    maxProducers: producer?.maxProducers ?? 0,
  });
}

/**
 * appendEntry for several entries and idempotent producers' batches at once, all or nothing: the
 * tail must have room for all the entries, each producer's sequence must continue (as appendEntry
 * says) and the producers that may be new must all fit under the cap (counted as if each were new:
 * an update refused only for that is retried batch by batch by append.ts). Each producer's base is
 * set to the old logEndOffset plus its offsetDelta. With one entry and at most one producer, the
 * expressions are appendEntry's.
 */
export async function appendEntries(ctx: SluiceContext, req: AppendEntriesRequest): Promise<PartitionState> {
  if (req.entries.length === 0) throw new RangeError('an update appends at least one entry');
  const names: Record<string, string> = {
    '#logEndOffset': 'logEndOffset',
    '#tail': 'tail',
    '#bytes': 'bytes',
    '#segments': 'segments',
  };
  const values: Record<string, unknown> = {
    ':count': req.count,
    ':entryList': [...req.entries],
    ':entry': req.entries[0],
    ':bytes': req.bytes,
    ':one': req.entries.length,
    ':maxTail': req.maxTailEntries - req.entries.length + 1,
  };
  let condition = 'attribute_exists(pk) AND size(#tail) < :maxTail AND NOT contains(#tail, :entry)';
  let update = 'SET #logEndOffset = #logEndOffset + :count, #tail = list_append(#tail, :entryList), #bytes = #bytes + :bytes, #segments = #segments + :one';
  const mayBeNew = req.producers.filter((p) => p.entry.baseSequence === 0).length;
  req.producers.forEach((producer, i) => {
    const n = i === 0 ? '' : String(i);
    Object.assign(names, { '#producers': 'producers', '#bases': 'producerBases', [`#pid${n}`]: String(producer.producerId), '#pEpoch': 'e' });
    values[`:producer${n}`] = storedProducerEntry(producer.entry);
    values[`:pEpoch${n}`] = producer.entry.producerEpoch;
    // Copies logEndOffset's value from before this update (plus the records before the batch): its base offset.
    if (producer.offsetDelta === 0) update += `, #producers.#pid${n} = :producer${n}, #bases.#pid${n} = #logEndOffset`;
    else {
      values[`:delta${n}`] = producer.offsetDelta;
      update += `, #producers.#pid${n} = :producer${n}, #bases.#pid${n} = #logEndOffset + :delta${n}`;
    }
    if (producer.entry.baseSequence === 0) {
      values[':maxProducers'] = req.maxProducers - mayBeNew + 1;
      condition +=
        ` AND ((attribute_not_exists(#producers.#pid${n}) AND size(#producers) < :maxProducers) OR #producers.#pid${n}.#pEpoch < :pEpoch${n})`;
    } else {
      names['#pLast'] = 'l';
      values[`:prevSeq${n}`] = producer.entry.baseSequence - 1;
      condition += ` AND #producers.#pid${n}.#pEpoch = :pEpoch${n} AND #producers.#pid${n}.#pLast = :prevSeq${n}`;
    }
  });
  const out = await sendOnce(
    ctx,
    new UpdateCommand({
      TableName: ctx.table,
      Key: stateKey(req.topic, req.partition),
      ConditionExpression: condition,
      UpdateExpression: update,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_OLD',
    }),
  );
  return partitionStateFromItem(out.Attributes!);
}

/**
 * The second half of a spill (lib/log/spill.ts): removes the first `entries.length` entries of
 * the tail and advances tailBase past them, if tailBase is still `tailBase` (only a spill moves
 * it, so the entries are still those). Indexes are removed in descending order, which DynamoDB
 * (the list as it was) and the emulator (one after another) apply alike. False when refused.
 */
export async function removeSpilledEntries(
  ctx: SluiceContext,
  topic: TopicRef,
  partition: number,
  tailBase: number,
  entries: readonly ManifestEntry[],
  count: number,
): Promise<boolean> {
  const indexes = entries.map((_, i) => entries.length - 1 - i);
  try {
    await ctx.ddb.send(
      new UpdateCommand({
        TableName: ctx.table,
        Key: stateKey(topic, partition),
        ConditionExpression: 'attribute_exists(pk) AND #tailBase = :tailBase AND size(#tail) >= :n',
        UpdateExpression: `REMOVE ${indexes.map((i) => `#tail[${i}]`).join(', ')} SET #tailBase = #tailBase + :count, #segments = #segments + :fold`,
        ExpressionAttributeNames: { '#tailBase': 'tailBase', '#tail': 'tail', '#segments': 'segments' },
        ExpressionAttributeValues: { ':tailBase': tailBase, ':n': entries.length, ':count': count, ':fold': 1 - entries.length },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionalCheckFailed(e)) return false;
    throw e;
  }
}

/** What the partition leader holds: the epoch its writes are conditioned on. */
export interface PartitionLease {
  readonly topic: TopicRef;
  readonly partition: number;
  readonly epoch: number;
  readonly expiresAt: number;
}

/**
 * Takes the partition leader's lease for `leaseMs`: succeeds when no one holds it, it expired by
 * the caller's clock, or the caller holds it; always takes a new epoch, which fences any request
 * of an earlier holder (the caller included) still in flight. Undefined when someone else holds it.
 */
export async function acquirePartitionLease(
  ctx: SluiceContext,
  topic: TopicRef,
  partition: number,
  leaseMs = ctx.leaseMs,
): Promise<{ lease: PartitionLease; state: PartitionState } | undefined> {
  const now = ctx.now();
  try {
    const out = await ctx.ddb.send(
      new UpdateCommand({
        TableName: ctx.table,
        Key: stateKey(topic, partition),
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#owner) OR #expiresAt < :now OR #owner = :me)',
        UpdateExpression: 'SET #owner = :me, #epoch = #epoch + :one, #expiresAt = :exp',
        ExpressionAttributeNames: { '#owner': 'owner', '#epoch': 'epoch', '#expiresAt': 'expiresAt' },
        ExpressionAttributeValues: { ':me': ctx.ownerId, ':now': now, ':exp': now + leaseMs, ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const state = partitionStateFromItem(out.Attributes!);
    return { lease: { topic, partition, epoch: state.epoch, expiresAt: state.expiresAt }, state };
  } catch (e) {
    if (isConditionalCheckFailed(e)) return undefined;
    throw e;
  }
}

/** Lets the lease go early (the next maintainer need not wait for it to expire). */
export async function releasePartitionLease(ctx: SluiceContext, lease: PartitionLease): Promise<void> {
  await leaderUpdate(ctx, lease, 'REMOVE #owner', {}, {});
}

/** An update conditioned on the lease: my epoch, my owner id. False when refused (fenced). */
async function leaderUpdate(
  ctx: SluiceContext,
  lease: PartitionLease,
  update: string,
  names: Record<string, string>,
  values: Record<string, unknown>,
  extraCondition = '',
): Promise<boolean> {
  try {
    await ctx.ddb.send(
      new UpdateCommand({
        TableName: ctx.table,
        Key: stateKey(lease.topic, lease.partition),
        ConditionExpression: `#epoch = :epoch AND #owner = :me${extraCondition}`,
        UpdateExpression: update,
        ExpressionAttributeNames: { '#epoch': 'epoch', '#owner': 'owner', ...names },
        ExpressionAttributeValues: { ':epoch': lease.epoch, ':me': ctx.ownerId, ...values },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionalCheckFailed(e)) return false;
    throw e;
  }
}

/**
 * Retention: moves logStartOffset up to `offset` (never past tailBase: below it every offset is in
 * a SEG item retention can delete) and takes the removed bytes off the counter. False when fenced
 * or when the log start already passed `offset`.
 */
export async function advanceLogStartOffset(ctx: SluiceContext, lease: PartitionLease, offset: number, removedBytes: number): Promise<boolean> {
  return leaderUpdate(
    ctx,
    lease,
    'SET #logStartOffset = :start, #bytes = #bytes - :removed',
    { '#logStartOffset': 'logStartOffset', '#tailBase': 'tailBase', '#bytes': 'bytes' },
    { ':start': offset, ':removed': removedBytes },
    ' AND #logStartOffset < :start AND #tailBase >= :start',
  );
}

/** A merge replaced `replaced` items by one: describe's segment count follows. */
export async function recordMerge(ctx: SluiceContext, lease: PartitionLease, replaced: number): Promise<boolean> {
  return leaderUpdate(ctx, lease, 'SET #segments = #segments - :surplus', { '#segments': 'segments' }, { ':surplus': replaced - 1 });
}

/**
 * The log cleaner's share of the byte counter: takes `removedBytes` (what cleanings dropped, as the
 * leader reconciles it from what it sees) off `bytes`. False when fenced.
 */
export async function recordCleaning(ctx: SluiceContext, lease: PartitionLease, removedBytes: number): Promise<boolean> {
  return leaderUpdate(ctx, lease, 'SET #bytes = #bytes - :removed', { '#bytes': 'bytes' }, { ':removed': removedBytes });
}

/**
 * Removes idle idempotent producers' entries, each only if it is still the one seen (its
 * lastUpdated), so anyone may call it: an appender meeting the producer cap, or maintenance.
 */
export async function removeIdleProducers(
  ctx: SluiceContext,
  topic: TopicRef,
  partition: number,
  idle: readonly { readonly producerId: string; readonly lastUpdated: number }[],
): Promise<boolean> {
  if (idle.length === 0) return true;
  const names: Record<string, string> = { '#producers': 'producers', '#bases': 'producerBases', '#t': 't' };
  const values: Record<string, unknown> = {};
  const conditions = ['attribute_exists(pk)'];
  const removes: string[] = [];
  idle.forEach(({ producerId, lastUpdated }, i) => {
    names[`#p${i}`] = producerId;
    values[`:t${i}`] = lastUpdated;
    conditions.push(`#producers.#p${i}.#t = :t${i}`);
    removes.push(`#producers.#p${i}`, `#bases.#p${i}`);
  });
  try {
    await ctx.ddb.send(
      new UpdateCommand({
        TableName: ctx.table,
        Key: stateKey(topic, partition),
        ConditionExpression: conditions.join(' AND '),
        UpdateExpression: `REMOVE ${removes.join(', ')}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (e) {
    if (isConditionalCheckFailed(e)) return false;
    throw e;
  }
}

/**
 * Topic deletion: removes the STATE item, unconditionally and first of the partition's items, so any
 * writer still running fails its conditional update on the missing item and nothing new becomes
 * visible. Its key carries the topic id: a topic re-created under the same name never reads it.
 */
export async function deletePartitionState(ctx: SluiceContext, topic: TopicRef, partition: number): Promise<void> {
  await ctx.ddb.send(new DeleteCommand({ TableName: ctx.table, Key: stateKey(topic, partition) }));
}
