// lib/metadata/topics.ts: name, partition-count and config validation (pure), the exact DynamoDB
// requests of create / delete / addPartitions with aws-sdk-client-mock (condition expressions and
// what a refused condition means), and the warm cache against the emulators.
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SluiceError } from '../../lib/errors.js';
import {
  DEFAULT_TOPIC_CONFIG,
  MAX_MESSAGE_BYTES_LIMIT,
  MAX_PARTITIONS,
  TOPIC_CACHE_MS,
  addPartitions,
  createTopic,
  deleteTopicItem,
  getTopic,
  getTopicCached,
  listTopics,
  newTopicId,
  requirePartition,
  requireTopic,
  resolveTopicConfig,
  validatePartitionCount,
  validateTopicName,
} from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';
import { conditionFailed, mockedDdbContext } from '../support/mock-ddb.js';

const code = (f: () => unknown): string | undefined => {
  try {
    f();
    return undefined;
  } catch (e) {
    return (e as SluiceError).code;
  }
};

describe('validateTopicName', () => {
  it('accepts Kafka-legal names up to 249 characters', () => {
    for (const name of ['a', 'orders', 'a.b_c-D9', 'x'.repeat(249), '...']) expect(code(() => validateTopicName(name))).toBeUndefined();
  });
  it('refuses empty, too long, "." and "..", and illegal characters with INVALID_TOPIC_EXCEPTION', () => {
    for (const name of ['', 'x'.repeat(250), '.', '..', 'a b', 'a/b', 'é', 'a#b']) {
      expect(code(() => validateTopicName(name))).toBe('INVALID_TOPIC_EXCEPTION');
    }
  });
  it('property: a name is legal exactly when it matches [a-zA-Z0-9._-]{1,249} and is not "." or ".."', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 260 }), (name) => {
        const legal = /^[a-zA-Z0-9._-]{1,249}$/.test(name) && name !== '.' && name !== '..';
        expect(code(() => validateTopicName(name)) === undefined).toBe(legal);
      }),
    );
  });
});

describe('validatePartitionCount', () => {
  it('accepts 1..MAX_PARTITIONS, refuses 0, negatives, fractions, NaN and beyond the limit', () => {
    expect(code(() => validatePartitionCount(1))).toBeUndefined();
    expect(code(() => validatePartitionCount(MAX_PARTITIONS))).toBeUndefined();
    for (const n of [0, -1, 1.5, Number.NaN, MAX_PARTITIONS + 1, Infinity]) expect(code(() => validatePartitionCount(n))).toBe('INVALID_PARTITIONS');
  });
});

describe('resolveTopicConfig', () => {
  it('defaults everything; merges numbers and numeric strings over the defaults', () => {
    expect(resolveTopicConfig()).toEqual(DEFAULT_TOPIC_CONFIG);
    const c = resolveTopicConfig({ 'retention.ms': '1000', 'segment.bytes': 2048, 'retention.bytes': -1 });
    expect(c).toEqual({ ...DEFAULT_TOPIC_CONFIG, 'retention.ms': 1000, 'segment.bytes': 2048, 'retention.bytes': -1 });
  });
  it('refuses unknown keys, unknown policies, out-of-range and non-integer values with INVALID_CONFIG', () => {
    for (const input of [
      { 'min.insync.replicas': 2 },
      { 'cleanup.policy': 'bogus' },
      { 'cleanup.policy': '' },
      { 'cleanup.policy': 'compact,compact' },
      { 'cleanup.policy': 'compact,bogus' },
      { 'cleanup.policy': ['compact'] },
      { 'min.cleanable.dirty.ratio': 1.5 },
      { 'min.cleanable.dirty.ratio': -0.1 },
      { 'min.cleanable.dirty.ratio': 'half' },
      { 'min.compaction.lag.ms': -1 },
      { 'max.compaction.lag.ms': 0 },
      { 'delete.retention.ms': 1.5 },
      { 'segment.bytes': 13 },
      { 'segment.ms': 0 },
      { 'segment.ms': -1 }, // -1 only where Kafka gives it a meaning
      { 'max.message.bytes': MAX_MESSAGE_BYTES_LIMIT + 1 },
      { 'retention.ms': -2 },
      { 'retention.ms': 1.5 },
      { 'retention.ms': '12abc' },
      { 'retention.ms': true },
    ]) {
      expect(code(() => resolveTopicConfig(input)), JSON.stringify(input)).toBe('INVALID_CONFIG');
    }
    expect(resolveTopicConfig({ 'cleanup.policy': 'delete' })['cleanup.policy']).toBe('delete');
    expect(code(() => resolveTopicConfig({ 'delete.retention.ms': 0, 'min.cleanable.dirty.ratio': 0 }))).toBeUndefined();
    expect(resolveTopicConfig({ 'max.message.bytes': MAX_MESSAGE_BYTES_LIMIT })['max.message.bytes']).toBe(MAX_MESSAGE_BYTES_LIMIT);
  });
});

describe('compaction configs', () => {
  it("accepts Kafka's cleanup.policy lists, normalized, and the cleaner's configs with Kafka's defaults", () => {
    expect(resolveTopicConfig({ 'cleanup.policy': 'compact' })['cleanup.policy']).toBe('compact');
    expect(resolveTopicConfig({ 'cleanup.policy': 'compact,delete' })['cleanup.policy']).toBe('compact,delete');
    expect(resolveTopicConfig({ 'cleanup.policy': 'delete, compact' })['cleanup.policy']).toBe('compact,delete');
    expect(DEFAULT_TOPIC_CONFIG).toMatchObject({
      'min.cleanable.dirty.ratio': 0.5,
      'min.compaction.lag.ms': 0,
      'max.compaction.lag.ms': Number.MAX_SAFE_INTEGER,
      'delete.retention.ms': 86_400_000,
    });
    const c = resolveTopicConfig({ 'min.cleanable.dirty.ratio': '0.25', 'min.compaction.lag.ms': '1000', 'max.compaction.lag.ms': 5000, 'delete.retention.ms': '0' });
    expect(c).toMatchObject({ 'min.cleanable.dirty.ratio': 0.25, 'min.compaction.lag.ms': 1000, 'max.compaction.lag.ms': 5000, 'delete.retention.ms': 0 });
    expect(resolveTopicConfig({ 'min.cleanable.dirty.ratio': 1 })['min.cleanable.dirty.ratio']).toBe(1);
  });
});

describe('requirePartition / newTopicId', () => {
  const topic = { name: 't', id: 'i', partitions: 3, config: DEFAULT_TOPIC_CONFIG, createdAt: 0 };
  it('partition below the count passes; at or above is UNKNOWN_TOPIC_OR_PARTITION with details', () => {
    expect(code(() => requirePartition(topic, 2))).toBeUndefined();
    const e = (() => {
      try {
        requirePartition(topic, 3);
      } catch (err) {
        return err as SluiceError;
      }
    })();
    expect(e?.code).toBe('UNKNOWN_TOPIC_OR_PARTITION');
    expect(e?.details).toEqual({ topic: 't', partition: 3 });
  });
  it('topic ids are 22 base64url characters and fresh every time', () => {
    const ids = new Set(Array.from({ length: 50 }, newTopicId));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});

// ---- exact requests (aws-sdk-client-mock) ----------------------------------------------------

const topicItem = (over: Record<string, unknown> = {}) => ({
  pk: 'TOPICS',
  sk: 't',
  name: 't',
  id: 'TID',
  partitions: 2,
  config: { 'retention.ms': 5 },
  createdAt: 1,
  ...over,
});

describe('createTopic requests', () => {
  it('checks the name first, creates every STATE item (create-only), then the topic item under attribute_not_exists', async () => {
    const { ctx, mock } = mockedDdbContext({ now: () => 1234 });
    mock.on(GetCommand).resolves({});
    mock.on(PutCommand).resolves({});
    const topic = await createTopic(ctx, 't', 3, { 'retention.ms': '10' });
    expect(topic).toMatchObject({ name: 't', partitions: 3, createdAt: 1234, config: { ...DEFAULT_TOPIC_CONFIG, 'retention.ms': 10 } });
    const puts = mock.commandCalls(PutCommand).map((c) => c.args[0].input);
    expect(puts).toHaveLength(4);
    const states = puts.slice(0, 3);
    expect(states.map((p) => p.Item?.pk).sort()).toEqual([0, 1, 2].map((p) => `PART#t#${topic.id}#${p}`));
    for (const p of states) {
      expect(p.Item?.sk).toBe('STATE');
      expect(p.ConditionExpression).toBe('attribute_not_exists(pk)');
    }
    const last = puts[3];
    expect(last.Item).toMatchObject({ pk: 'TOPICS', sk: 't', name: 't', id: topic.id, partitions: 3 });
    expect(last.ConditionExpression).toBe('attribute_not_exists(pk)');
  });

  it('a refused topic put is TOPIC_ALREADY_EXISTS (a concurrent creator won)', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({});
    mock.on(PutCommand).callsFake(async (input: { Item: { pk: string } }) => {
      if (input.Item.pk === 'TOPICS') throw conditionFailed();
      return {};
    });
    await expect(createTopic(ctx, 't', 1)).rejects.toMatchObject({ code: 'TOPIC_ALREADY_EXISTS' });
  });

  it('an existing topic is refused before anything is written; invalid input before anything is read', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({ Item: topicItem() });
    await expect(createTopic(ctx, 't', 1)).rejects.toMatchObject({ code: 'TOPIC_ALREADY_EXISTS' });
    expect(mock.commandCalls(PutCommand)).toHaveLength(0);
    mock.reset();
    await expect(createTopic(ctx, 'bad name', 1)).rejects.toMatchObject({ code: 'INVALID_TOPIC_EXCEPTION' });
    await expect(createTopic(ctx, 't', 0)).rejects.toMatchObject({ code: 'INVALID_PARTITIONS' });
    await expect(createTopic(ctx, 't', 1, { nope: 1 })).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
    expect(mock.calls()).toHaveLength(0);
  });

  it('a non-condition failure of the topic put reaches the caller as it is', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({});
    mock.on(PutCommand).callsFake(async (input: { Item: { pk: string } }) => {
      if (input.Item.pk === 'TOPICS') throw Object.assign(new Error('boom'), { name: 'InternalServerError' });
      return {};
    });
    await expect(createTopic(ctx, 't', 1)).rejects.toMatchObject({ name: 'InternalServerError' });
  });
});

describe('getTopic / listTopics parse stored items', () => {
  it('strongly consistent get; missing config keys take the defaults', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({ Item: topicItem() });
    const t = await getTopic(ctx, 't');
    expect(mock.commandCalls(GetCommand)[0].args[0].input).toMatchObject({ Key: { pk: 'TOPICS', sk: 't' }, ConsistentRead: true });
    expect(t).toEqual({ name: 't', id: 'TID', partitions: 2, createdAt: 1, config: { ...DEFAULT_TOPIC_CONFIG, 'retention.ms': 5 } });
  });
  it('a malformed item is a clear error', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({ Item: topicItem({ partitions: '2' }) });
    await expect(getTopic(ctx, 't')).rejects.toThrow(/malformed/);
  });
  it('missing: getTopic undefined, requireTopic UNKNOWN_TOPIC_OR_PARTITION', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({});
    expect(await getTopic(ctx, 'x')).toBeUndefined();
    await expect(requireTopic(ctx, 'x')).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
  });
  it('listTopics queries the TOPICS directory and follows LastEvaluatedKey', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock
      .on(QueryCommand)
      .resolvesOnce({ Items: [topicItem({ sk: 'a', name: 'a' })], LastEvaluatedKey: { pk: 'TOPICS', sk: 'a' } })
      .resolvesOnce({ Items: [topicItem({ sk: 'b', name: 'b' })] });
    expect((await listTopics(ctx)).map((t) => t.name)).toEqual(['a', 'b']);
    const queries = mock.commandCalls(QueryCommand).map((c) => c.args[0].input);
    expect(queries[0]).toMatchObject({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'TOPICS' }, ConsistentRead: true });
    expect(queries[1].ExclusiveStartKey).toEqual({ pk: 'TOPICS', sk: 'a' });
  });
});

describe('deleteTopicItem requests', () => {
  it('deletes under attribute_exists and returns the old item', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(DeleteCommand).resolves({ Attributes: topicItem() });
    expect((await deleteTopicItem(ctx, 't')).id).toBe('TID');
    const input = mock.commandCalls(DeleteCommand)[0].args[0].input;
    expect(input).toMatchObject({ Key: { pk: 'TOPICS', sk: 't' }, ConditionExpression: 'attribute_exists(pk)', ReturnValues: 'ALL_OLD' });
  });
  it('refused: UNKNOWN_TOPIC_OR_PARTITION', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(DeleteCommand).rejects(conditionFailed());
    await expect(deleteTopicItem(ctx, 't')).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
  });
});

describe('addPartitions requests', () => {
  it('creates only the new STATE items, then raises the count only if same id and smaller count', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({ Item: topicItem({ partitions: 2 }) });
    mock.on(PutCommand).resolves({});
    mock.on(UpdateCommand).resolves({ Attributes: topicItem({ partitions: 4 }) });
    expect((await addPartitions(ctx, 't', 4)).partitions).toBe(4);
    expect(mock.commandCalls(PutCommand).map((c) => c.args[0].input.Item?.pk).sort()).toEqual(['PART#t#TID#2', 'PART#t#TID#3']);
    const input = mock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(input.UpdateExpression).toBe('SET #partitions = :count');
    expect(input.ConditionExpression).toBe('attribute_exists(pk) AND id = :id AND #partitions < :count');
    expect(input.ExpressionAttributeNames).toEqual({ '#partitions': 'partitions' });
    expect(input.ExpressionAttributeValues).toEqual({ ':count': 4, ':id': 'TID' });
  });
  it('refused: INVALID_PARTITIONS naming the current count (re-read after the refusal)', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolvesOnce({ Item: topicItem({ partitions: 2 }) }).resolves({ Item: topicItem({ partitions: 5 }) });
    mock.on(PutCommand).resolves({});
    mock.on(UpdateCommand).rejects(conditionFailed());
    await expect(addPartitions(ctx, 't', 4)).rejects.toMatchObject({ code: 'INVALID_PARTITIONS', details: { partitions: 5 } });
  });
  it('a decrease writes no STATE item and is refused by the condition', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({ Item: topicItem({ partitions: 3 }) });
    mock.on(UpdateCommand).rejects(conditionFailed());
    await expect(addPartitions(ctx, 't', 2)).rejects.toMatchObject({ code: 'INVALID_PARTITIONS' });
    expect(mock.commandCalls(PutCommand)).toHaveLength(0);
  });
});

describe('getTopicCached', () => {
  it('serves from the cache within TOPIC_CACHE_MS, re-reads after it, and re-reads for a partition beyond the cached count', async () => {
    let now = 1_000_000;
    const { ctx, mock } = mockedDdbContext({ now: () => now });
    mock.on(GetCommand).resolves({ Item: topicItem({ partitions: 2 }) });
    await getTopicCached(ctx, 't');
    await getTopicCached(ctx, 't', 1);
    expect(mock.commandCalls(GetCommand)).toHaveLength(1);
    now += TOPIC_CACHE_MS + 1;
    await getTopicCached(ctx, 't');
    expect(mock.commandCalls(GetCommand)).toHaveLength(2);
    mock.on(GetCommand).resolves({ Item: topicItem({ partitions: 4 }) });
    expect((await getTopicCached(ctx, 't', 3)).partitions).toBe(4);
    expect(mock.commandCalls(GetCommand)).toHaveLength(3);
    await expect(getTopicCached(ctx, 't', 4)).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
  });
});

describe('against the emulator', () => {
  it('create, read, list, grow, delete; the cache never serves a deleted topic from this context', async () => {
    const ctx = await createTestContext();
    const created = await createTopic(ctx, 'orders', 2, { 'retention.ms': 1000 });
    expect(await getTopic(ctx, 'orders')).toEqual(created);
    await createTopic(ctx, 'alpha', 1);
    expect((await listTopics(ctx)).map((t) => t.name)).toEqual(['alpha', 'orders']);
    await expect(createTopic(ctx, 'orders', 1)).rejects.toMatchObject({ code: 'TOPIC_ALREADY_EXISTS' });
    expect((await getTopicCached(ctx, 'orders')).partitions).toBe(2);
    expect((await addPartitions(ctx, 'orders', 3)).partitions).toBe(3);
    expect((await getTopicCached(ctx, 'orders', 2)).partitions).toBe(3);
    await expect(addPartitions(ctx, 'orders', 3)).rejects.toMatchObject({ code: 'INVALID_PARTITIONS' });
    expect((await deleteTopicItem(ctx, 'orders')).id).toBe(created.id);
    await expect(getTopicCached(ctx, 'orders')).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
    await expect(deleteTopicItem(ctx, 'orders')).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
  });
});
