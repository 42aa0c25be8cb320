// Changing a topic's configs after creation (Kafka's AlterConfigs / IncrementalAlterConfigs,
// `kafka-configs --alter --add-config/--delete-config`). The topic item (topics.ts) holds the whole
// resolved config; an alter rewrites it as one conditional UpdateItem:
//   - the change is validated WHOLE by resolveTopicConfig (the same rules as creation, so every key
//     topics.ts accepts can be altered): an unknown key or a bad value is INVALID_CONFIG and nothing
//     is written;
//   - `configVersion` (absent = 0) is the optimistic-concurrency token: the write is conditioned on
//     the version read, and on the topic id (a topic deleted and re-created meanwhile is another
//     topic). A lost race re-reads and re-applies the CHANGE, not the config it computed, so two
//     concurrent alters of different keys both land;
//   - deleting a key reverts it to its default.
// Who sees it when: the maintenance job lists topics with a consistent read at the start of every
// run, so retention and segment settings apply from the next run. The produce and fetch paths
// read topics through getTopicCached (TOPIC_CACHE_MS, 3 s): this process forgets its entry at once,
// other processes see the change within that time.
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';
import { SluiceError } from '../errors.js';
import { topicKey } from './keys.js';
import { DEFAULT_TOPIC_CONFIG, type TopicConfig, type TopicMetadata, forgetCachedTopic, resolveTopicConfig, validateTopicName } from './topics.js';

export interface TopicConfigChanges {
  /** Keys to set, Kafka's names; values as numbers or strings (Kafka's tools send strings). */
  readonly set?: Readonly<Record<string, string | number>>;
  /** Keys to revert to their defaults. */
  readonly delete?: readonly string[];
}

export interface AlterTopicConfigOptions {
  /** Validate only (Kafka's validateOnly): answer what the config would become, write nothing. */
  readonly validateOnly?: boolean;
}

/** Conditional-write attempts before giving up on a topic that keeps changing under us. */
const MAX_ATTEMPTS = 10;

/** The keys a topic config has (its defaults' keys): what `delete` may name. */
export function topicConfigKeys(): string[] {
  return Object.keys(DEFAULT_TOPIC_CONFIG);
}

/** Checks the change's shape: no key both set and deleted, every deleted key known. */
function validateChanges(changes: TopicConfigChanges): void {
  const set = changes.set ?? {};
  const known = new Set(topicConfigKeys());
  for (const key of changes.delete ?? []) {
    if (Object.hasOwn(set, key)) throw new SluiceError('INVALID_REQUEST', `config '${key}' is both set and deleted in one request`);
    if (!known.has(key)) {
      throw new SluiceError('INVALID_CONFIG', `unknown or unsupported topic config '${key}'; supported: ${[...known].join(', ')}`);
    }
  }
  if (new Set(changes.delete ?? []).size !== (changes.delete ?? []).length) {
    throw new SluiceError('INVALID_REQUEST', 'a config key is deleted twice in one request');
  }
}

/** `current` with `changes` applied, validated whole (INVALID_CONFIG for any bad key or value). */
export function applyConfigChanges(current: TopicConfig, changes: TopicConfigChanges): TopicConfig {
  validateChanges(changes);
  const next: Record<string, unknown> = { ...current, ...(changes.set ?? {}) };
  for (const key of changes.delete ?? []) delete next[key];
  return resolveTopicConfig(next);
}

function sameConfig(a: TopicConfig, b: TopicConfig): boolean {
  const x = a as unknown as Record<string, unknown>;
  const y = b as unknown as Record<string, unknown>;
  const keys = Object.keys(x);
  return keys.length === Object.keys(y).length && keys.every((k) => x[k] === y[k]);
}

interface StoredTopic {
  readonly topic: TopicMetadata;
  /** The optimistic-concurrency token read with it (absent attribute: undefined). */
  readonly configVersion: number | undefined;
}

async function readTopic(ctx: SluiceContext, name: string): Promise<StoredTopic> {
  const out = await ctx.ddb.send(new GetCommand({ TableName: ctx.table, Key: topicKey(name), ConsistentRead: true }));
  const item = out.Item;
  if (!item) throw new SluiceError('UNKNOWN_TOPIC_OR_PARTITION', `topic '${name}' does not exist`, { topic: name });
  const version = item.configVersion;
  if (version !== undefined && (typeof version !== 'number' || !Number.isSafeInteger(version))) {
    throw new Error(`topic item ${name}: configVersion is malformed (${JSON.stringify(version)})`);
  }
  return { topic: topicOf(item), configVersion: version };
}

/** The metadata of a topic item; its config validated as a request's is. */
function topicOf(item: Record<string, unknown>): TopicMetadata {
  const { name, id, partitions, createdAt } = item;
  if (typeof name !== 'string' || typeof id !== 'string' || typeof partitions !== 'number' || typeof createdAt !== 'number') {
    throw new Error(`topic item ${String(item.sk)} is malformed (name, id, partitions and createdAt are required)`);
  }
  let config: TopicConfig;
  try {
    config = resolveTopicConfig((item.config ?? {}) as Record<string, unknown>);
  } catch (e) {
    throw new Error(`topic item ${name}: config is malformed (${e instanceof Error ? e.message : String(e)})`);
  }
  return { name, id, partitions, config, createdAt };
}

/**
 * Applies `changes` (or the changes a function derives from the current config) to the topic's
 * config and returns the topic as it now is (with validateOnly:
 * as it would be). Invalid keys or values refuse the whole change (INVALID_CONFIG) and write nothing.
 * @throws SluiceError UNKNOWN_TOPIC_OR_PARTITION, INVALID_TOPIC_EXCEPTION, INVALID_CONFIG, INVALID_REQUEST
 */
export async function alterTopicConfig(
  ctx: SluiceContext,
  name: string,
  changes: TopicConfigChanges | ((current: TopicConfig) => TopicConfigChanges),
  options: AlterTopicConfigOptions = {},
): Promise<TopicMetadata> {
  validateTopicName(name);
  if (typeof changes !== 'function') validateChanges(changes);
  for (let attempt = 1; ; attempt++) {
    const { topic, configVersion } = await readTopic(ctx, name);
    // A function derives the change from the config it applies to (Kafka's APPEND to a list), so a
    // retry after a lost race derives it again from the winner's config.
    const config = applyConfigChanges(topic.config, typeof changes === 'function' ? changes(topic.config) : changes);
    // Nothing to change (Kafka answers such an alter with success): no write, no new version.
    if (options.validateOnly || sameConfig(config, topic.config)) return { ...topic, config };
    const seen = configVersion ?? 0;
    try {
      const out = await ctx.ddb.send(
        new UpdateCommand({
          TableName: ctx.table,
          Key: topicKey(name),
          UpdateExpression: 'SET #config = :config, configVersion = :next',
          ConditionExpression:
            configVersion === undefined ? 'id = :id AND attribute_not_exists(configVersion)' : 'id = :id AND configVersion = :seen',
          ExpressionAttributeNames: { '#config': 'config' },
          ExpressionAttributeValues: { ':config': config, ':next': seen + 1, ':id': topic.id, ...(configVersion === undefined ? {} : { ':seen': seen }) },
          ReturnValues: 'ALL_NEW',
        }),
      );
      forgetCachedTopic(ctx, name);
      return topicOf(out.Attributes!);
    } catch (e) {
      if ((e as { name?: string }).name !== 'ConditionalCheckFailedException') throw e;
      // Another alter, or a delete (and maybe a re-create): read again and re-apply the change.
      if (attempt >= MAX_ATTEMPTS) {
        throw new SluiceError('REQUEST_TIMED_OUT', `topic '${name}' kept changing during ${MAX_ATTEMPTS} attempts to alter its config; nothing was changed`);
      }
    }
  }
}
