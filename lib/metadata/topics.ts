// Topic metadata: one item per topic in the single table (see keys.ts), `TOPICS` / `<topic>`:
//   { pk, sk, name, id, partitions, config: TopicConfig, createdAt }
// `id` is a random topic id (Kafka's KIP-516), part of every key of the topic's partitions, so a
// writer stalled across a delete and re-create can never land data in the new topic. Creation
// writes every partition's STATE item first (appends never create it: docs/ARCHITECTURE.md rule 1), then the
// topic item, so a topic is visible only once all its partitions can be appended to.
// Topic config uses Kafka's names and defaults; only the keys Sluice honours are accepted.
import { randomBytes } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type SluiceContext, cacheSlot } from '../context.js';
import { SluiceError } from '../errors.js';
import { TOPICS_PK, topicKey } from './keys.js';
import { createPartitionStates } from './partition-state.js';
import { queryAll } from './query-all.js';

/** Kafka's topic-level configs that Sluice implements, by their Kafka names. */
export interface TopicConfig {
  /** Records older than this are deleted by retention (whole segments). -1 = forever. */
  readonly 'retention.ms': number;
  /** Per-partition size bound enforced by retention. -1 = unlimited. */
  readonly 'retention.bytes': number;
  /** Segment merging (lib/log/merge.ts) makes segments of at most this size. */
  readonly 'segment.bytes': number;
  /** Segment merging does not grow a segment past spanning this much time. */
  readonly 'segment.ms': number;
  /** Largest record (approximate encoded size) a producer may send. */
  readonly 'max.message.bytes': number;
  /**
   * 'delete': retention by time and size removes whole old segments. 'compact': the log cleaner
   * (lib/log/compaction/) keeps the newest record of every key. 'compact,delete': both.
   */
  readonly 'cleanup.policy': CleanupPolicy;
  /** Bytes between offset-index entries. */
  readonly 'index.interval.bytes': number;
  /** Compaction: the cleaner runs once dirty bytes are at least this share of the log (0..1). */
  readonly 'min.cleanable.dirty.ratio': number;
  /** Compaction: a record stays uncompacted at least this long after it was appended. */
  readonly 'min.compaction.lag.ms': number;
  /** Compaction: a record is cleaned at most this long after it was appended, whatever the ratio. */
  readonly 'max.compaction.lag.ms': number;
  /** Compaction: a tombstone (null value) stays this long after the cleaning that first saw it. */
  readonly 'delete.retention.ms': number;
}

/** Kafka's cleanup.policy list, normalized: each policy once, 'compact' first. */
export type CleanupPolicy = 'delete' | 'compact' | 'compact,delete';

/** Whether the topic's log is compacted by key (its records must have keys). */
export function isCompacted(config: Pick<TopicConfig, 'cleanup.policy'>): boolean {
  return config['cleanup.policy'] !== 'delete';
}

/** Whether retention by time and size applies. */
export function hasDeletePolicy(config: Pick<TopicConfig, 'cleanup.policy'>): boolean {
  return config['cleanup.policy'] !== 'compact';
}

export const DEFAULT_TOPIC_CONFIG: TopicConfig = {
  'retention.ms': 604_800_000,
  'retention.bytes': -1,
  'segment.bytes': 1_073_741_824,
  'segment.ms': 604_800_000,
  'max.message.bytes': 1_048_588,
  'cleanup.policy': 'delete',
  'index.interval.bytes': 4096,
  'min.cleanable.dirty.ratio': 0.5,
  'min.compaction.lag.ms': 0,
  // Kafka's default is Long.MAX_VALUE: never forced.
  'max.compaction.lag.ms': Number.MAX_SAFE_INTEGER,
  'delete.retention.ms': 86_400_000,
};

/** Documented limits. */
export const MAX_PARTITIONS = 1000;
export const MAX_TOPIC_NAME_LENGTH = 249;
/** Largest max.message.bytes: a record this size still fits a 6 MB Lambda response in base64. */
export const MAX_MESSAGE_BYTES_LIMIT = 4 * 1024 * 1024;

export interface TopicMetadata {
  readonly name: string;
  /** Random topic id (22 characters of base64url, as Kafka prints a topic's UUID). */
  readonly id: string;
  readonly partitions: number;
  readonly config: TopicConfig;
  readonly createdAt: number;
}

/** Integer config bounds: [min, max]. -1 is allowed only where Kafka gives it a meaning. */
const NUMERIC_BOUNDS: Record<Exclude<keyof TopicConfig, 'cleanup.policy' | 'min.cleanable.dirty.ratio'>, [number, number]> = {
  'retention.ms': [-1, Number.MAX_SAFE_INTEGER],
  'retention.bytes': [-1, Number.MAX_SAFE_INTEGER],
  'segment.bytes': [14, 2_147_483_647],
  'segment.ms': [1, Number.MAX_SAFE_INTEGER],
  // One record must fit a request body and a fetch response: Lambda payloads are at most 6 MB.
  'max.message.bytes': [0, MAX_MESSAGE_BYTES_LIMIT],
  'index.interval.bytes': [0, 2_147_483_647],
  'min.compaction.lag.ms': [0, Number.MAX_SAFE_INTEGER],
  'max.compaction.lag.ms': [1, Number.MAX_SAFE_INTEGER],
  'delete.retention.ms': [0, Number.MAX_SAFE_INTEGER],
};

/** Kafka's cleanup.policy: a comma-separated list of 'compact' and 'delete' (either order, each once). */
function parseCleanupPolicy(raw: unknown): CleanupPolicy {
  const parts = typeof raw === 'string' ? raw.split(',').map((p) => p.trim()) : [];
  const policies = new Set(parts);
  if (parts.length === 0 || policies.size !== parts.length || [...policies].some((p) => p !== 'compact' && p !== 'delete')) {
    throw new SluiceError('INVALID_CONFIG', `cleanup.policy must be 'delete', 'compact' or 'compact,delete', got ${JSON.stringify(raw)}`);
  }
  return policies.size === 2 ? 'compact,delete' : (parts[0] as CleanupPolicy);
}

/** Kafka's min.cleanable.dirty.ratio: a double from 0 to 1 (a number or a numeric string). */
function parseDirtyRatio(raw: unknown): number {
  const value = typeof raw === 'string' && /^\s*(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new SluiceError('INVALID_CONFIG', `min.cleanable.dirty.ratio must be a number from 0 to 1, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/** Throws INVALID_TOPIC_EXCEPTION unless `name` follows Kafka's topic naming rules. */
export function validateTopicName(name: string): void {
  if (name.length < 1 || name.length > MAX_TOPIC_NAME_LENGTH) {
    throw new SluiceError('INVALID_TOPIC_EXCEPTION', `topic name must be 1 to ${MAX_TOPIC_NAME_LENGTH} characters, got ${name.length}`);
  }
  if (name === '.' || name === '..') {
    throw new SluiceError('INVALID_TOPIC_EXCEPTION', `topic name cannot be '${name}'`);
  }
  if (!/^[a-zA-Z0-9._-]+$/.test(name)) {
    throw new SluiceError('INVALID_TOPIC_EXCEPTION', `topic name '${name}' is illegal: use only ASCII letters, digits, '.', '_' and '-'`);
  }
}

/** Throws INVALID_PARTITIONS unless `count` is a whole number within the documented limits. */
export function validatePartitionCount(count: number): void {
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_PARTITIONS) {
    throw new SluiceError('INVALID_PARTITIONS', `partition count must be an integer from 1 to ${MAX_PARTITIONS}, got ${count}`);
  }
}

/**
 * Merges user-supplied config over the defaults. Values may be numbers or numeric strings (Kafka's
 * tools send strings). Unknown keys and bad values are INVALID_CONFIG.
 */
export function resolveTopicConfig(input: Readonly<Record<string, unknown>> = {}): TopicConfig {
  const config: Record<string, unknown> = { ...DEFAULT_TOPIC_CONFIG };
  for (const [key, raw] of Object.entries(input)) {
    if (key === 'cleanup.policy') {
      config[key] = parseCleanupPolicy(raw);
      continue;
    }
    if (key === 'min.cleanable.dirty.ratio') {
      config[key] = parseDirtyRatio(raw);
      continue;
    }
    if (!(key in NUMERIC_BOUNDS)) {
      const known = Object.keys(DEFAULT_TOPIC_CONFIG).join(', ');
      throw new SluiceError('INVALID_CONFIG', `unknown or unsupported topic config '${key}'; supported: ${known}`);
    }
    const value = typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw;
    const [min, max] = NUMERIC_BOUNDS[key as keyof typeof NUMERIC_BOUNDS];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max || (value < 0 && value !== -1)) {
      throw new SluiceError('INVALID_CONFIG', `${key} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
    }
    config[key] = value;
  }
  return config as unknown as TopicConfig;
}

/** Parses a stored topic item; a malformed one is a clear error, never undefined behaviour. */
function fromItem(item: Record<string, unknown>): TopicMetadata {
  const partitions = item.partitions;
  if (typeof item.name !== 'string' || typeof item.id !== 'string' || typeof partitions !== 'number' || !Number.isSafeInteger(partitions) || partitions < 1) {
    throw new Error(`topic item ${String(item.sk)} is malformed (name, id and a positive integer partitions are required)`);
  }
  if (typeof item.createdAt !== 'number') throw new Error(`topic item ${String(item.sk)}: createdAt is malformed (${JSON.stringify(item.createdAt)})`);
  const stored = item.config ?? {};
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) throw new Error(`topic item ${String(item.sk)}: config is not a map`);
  let config: TopicConfig;
  try {
    // Validated as a request's config is; defaults fill keys stored before they existed.
    config = resolveTopicConfig(stored as Record<string, unknown>);
  } catch (e) {
    throw new Error(`topic item ${String(item.sk)}: config is malformed (${e instanceof Error ? e.message : String(e)})`);
  }
  return { name: item.name, id: item.id, partitions, config, createdAt: item.createdAt };
}

const unknownTopic = (name: string) => new SluiceError('UNKNOWN_TOPIC_OR_PARTITION', `topic '${name}' does not exist`, { topic: name });

/** Creates a topic; TOPIC_ALREADY_EXISTS if the name is taken. Validates everything before writing. */
export async function createTopic(
  ctx: SluiceContext,
  name: string,
  partitions: number,
  config: Readonly<Record<string, unknown>> = {},
): Promise<TopicMetadata> {
  validateTopicName(name);
  validatePartitionCount(partitions);
  const topic: TopicMetadata = { name, id: newTopicId(), partitions, config: resolveTopicConfig(config), createdAt: ctx.now() };
  if (await getTopic(ctx, name)) throw new SluiceError('TOPIC_ALREADY_EXISTS', `topic '${name}' already exists`, { topic: name });
  // Under the new id: a creation that loses the race below leaves unreachable items, nothing else.
  await createPartitionStates(ctx, topic, range(0, partitions));
  try {
    await ctx.ddb.send(
      new PutCommand({
        TableName: ctx.table,
        Item: { ...topicKey(name), ...topic },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (e) {
    if ((e as { name?: string }).name === 'ConditionalCheckFailedException') {
      throw new SluiceError('TOPIC_ALREADY_EXISTS', `topic '${name}' already exists`, { topic: name });
    }
    throw e;
  }
  ctx.caches.get(TOPIC_CACHE).delete(name);
  return topic;
}

/** A fresh topic id: 128 random bits, base64url. */
export function newTopicId(): string {
  return randomBytes(16).toString('base64url');
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

/** The topic's metadata (strongly consistent), or undefined. */
export async function getTopic(ctx: SluiceContext, name: string): Promise<TopicMetadata | undefined> {
  const out = await ctx.ddb.send(new GetCommand({ TableName: ctx.table, Key: topicKey(name), ConsistentRead: true }));
  return out.Item ? fromItem(out.Item) : undefined;
}

/** The topic's metadata or UNKNOWN_TOPIC_OR_PARTITION. */
export async function requireTopic(ctx: SluiceContext, name: string): Promise<TopicMetadata> {
  const topic = await getTopic(ctx, name);
  if (!topic) throw unknownTopic(name);
  return topic;
}

/** All topics, sorted by name: one Query on the topic directory partition (keys.ts). */
export async function listTopics(ctx: SluiceContext): Promise<TopicMetadata[]> {
  const topics: TopicMetadata[] = [];
  const items = queryAll(ctx, {
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': TOPICS_PK },
    ConsistentRead: true,
  });
  for await (const item of items) topics.push(fromItem(item));
  return topics;
}

/**
 * Deletes the topic's item, so the topic disappears for producers and consumers at once, and
 * returns what it held; its partitions' data is removed by lib/log/delete-topic.ts.
 * @throws SluiceError UNKNOWN_TOPIC_OR_PARTITION when it does not exist
 */
export async function deleteTopicItem(ctx: SluiceContext, name: string): Promise<TopicMetadata> {
  try {
    const out = await ctx.ddb.send(
      new DeleteCommand({
        TableName: ctx.table,
        Key: topicKey(name),
        ConditionExpression: 'attribute_exists(pk)',
        ReturnValues: 'ALL_OLD',
      }),
    );
    ctx.caches.get(TOPIC_CACHE).delete(name);
    return fromItem(out.Attributes!);
  } catch (e) {
    if ((e as { name?: string }).name === 'ConditionalCheckFailedException') throw unknownTopic(name);
    throw e;
  }
}

/**
 * Raises the partition count to `count` (Kafka's CreatePartitions: the new total). The update is
 * conditional, so concurrent callers can only ever increase it; a decrease or no-op is INVALID_PARTITIONS.
 */
export async function addPartitions(ctx: SluiceContext, name: string, count: number): Promise<TopicMetadata> {
  validateTopicName(name);
  validatePartitionCount(count);
  const current = await requireTopic(ctx, name);
  // The new partitions' STATE items exist before the count that makes them visible.
  if (count > current.partitions) await createPartitionStates(ctx, current, range(current.partitions, count));
  try {
    const out = await ctx.ddb.send(
      new UpdateCommand({
        TableName: ctx.table,
        Key: topicKey(name),
        // PARTITIONS is a DynamoDB reserved word.
        UpdateExpression: 'SET #partitions = :count',
        ConditionExpression: 'attribute_exists(pk) AND id = :id AND #partitions < :count',
        ExpressionAttributeNames: { '#partitions': 'partitions' },
        ExpressionAttributeValues: { ':count': count, ':id': current.id },
        ReturnValues: 'ALL_NEW',
      }),
    );
    ctx.caches.get(TOPIC_CACHE).delete(name);
    return fromItem(out.Attributes!);
  } catch (e) {
    if ((e as { name?: string }).name !== 'ConditionalCheckFailedException') throw e;
    const topic = await requireTopic(ctx, name);
    throw new SluiceError(
      'INVALID_PARTITIONS',
      `topic '${name}' has ${topic.partitions} partitions; the new count must be greater, got ${count}`,
      { partitions: topic.partitions },
    );
  }
}

// Warm-handler cache for the produce and fetch paths: topic metadata changes rarely, and a stale
// entry for TOPIC_CACHE_MS is harmless (a missing partition is re-checked against the table
// before it is refused; a deleted topic is seen within the TTL). It is the context's `topics` cache
// slot (lib/context.ts): one per process, fresh with every createContext.
export const TOPIC_CACHE_MS = 3000;
const TOPIC_CACHE = cacheSlot('topics', () => new Map<string, { topic: TopicMetadata; readAt: number }>());

/**
 * The topic's metadata from the warm cache, re-read from the table when absent, expired, or when
 * `partition` is not below the cached count (the topic may have grown). Throws
 * UNKNOWN_TOPIC_OR_PARTITION for a missing topic or partition.
 */
export async function getTopicCached(ctx: SluiceContext, name: string, partition?: number): Promise<TopicMetadata> {
  const cache = ctx.caches.get(TOPIC_CACHE);
  const hit = cache.get(name);
  const now = ctx.now();
  // Fresh only within TOPIC_CACHE_MS after the read by this clock: an entry a context with a
  // clock further ahead wrote (a spread copy shares the cache) counts as expired, not fresh.
  const fresh = hit !== undefined && now >= hit.readAt && now - hit.readAt < TOPIC_CACHE_MS;
  if (fresh && (partition === undefined || partition < hit.topic.partitions)) return hit.topic;
  const topic = await requireTopic(ctx, name);
  cache.set(name, { topic, readAt: now });
  if (partition !== undefined) requirePartition(topic, partition);
  return topic;
}

/** UNKNOWN_TOPIC_OR_PARTITION unless `partition` exists in `topic`. */
export function requirePartition(topic: TopicMetadata, partition: number): void {
  if (partition >= topic.partitions) {
    throw new SluiceError(
      'UNKNOWN_TOPIC_OR_PARTITION',
      `topic '${topic.name}' has ${topic.partitions} partition${topic.partitions === 1 ? '' : 's'}; partition ${partition} does not exist`,
      { topic: topic.name, partition },
    );
  }
}

/** Drops this process's cached entry for the topic, after a change it made itself (a config alter). */
export function forgetCachedTopic(ctx: SluiceContext, name: string): void {
  ctx.caches.get(TOPIC_CACHE).delete(name);
}
