// kafkajs's admin client through the gateway: creating (with configs, validateOnly, the default
// partition count, refusals with Kafka's error names), listing and deleting topics, and growing
// them with createPartitions — each checked against what Sluice stores, not only what kafkajs says.
import type { Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey, type CreateTopicsResponse, type DeleteTopicsResponse } from '../../lib/kafka/protocol/messages.js';
import { topicUuid } from '../../lib/kafka/topic-id.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { appendToPartitions } from '../../lib/log/append.js';
import { stateKey } from '../../lib/metadata/keys.js';
import { getTopic, listTopics } from '../../lib/metadata/topics.js';
import { rawCall } from './raw-call.js';
import { startTestGateway, type TestGateway } from './support.js';

let kafka: TestGateway;
let admin: Admin;

beforeAll(async () => {
  kafka = await startTestGateway();
  admin = kafka.client().admin();
  await admin.connect();
});
afterAll(async () => {
  await admin.disconnect();
  await kafka.close();
});

type KafkaJSError = { errors?: KafkaJSError[]; type?: string; cause?: KafkaJSError };

/** The Kafka error name kafkajs rejected with: its own, the first of an aggregate's, or (after its retries) the cause's. */
async function rejection(promise: Promise<unknown>): Promise<string | undefined> {
  const name = (e: KafkaJSError | undefined): string | undefined => (e === undefined ? undefined : (name(e.errors?.[0]) ?? e.type ?? name(e.cause)));
  return promise.then(
    () => undefined,
    (e: KafkaJSError) => name(e) ?? String(e),
  );
}

const storedNames = async () => (await listTopics(kafka.ctx)).map((t) => t.name);

describe('kafkajs admin: topics', () => {
  it('creates topics with partitions and configs, lists them, and deletes them with their data', async () => {
    expect(
      await admin.createTopics({
        topics: [
          { topic: 'orders', numPartitions: 3, configEntries: [{ name: 'retention.ms', value: '3600000' }] },
          { topic: 'audit' }, // numPartitions -1: Kafka's num.partitions default, 1
        ],
      }),
    ).toBe(true);
    expect(await getTopic(kafka.ctx, 'orders')).toMatchObject({ partitions: 3, config: expect.objectContaining({ 'retention.ms': 3_600_000 }) });
    expect((await getTopic(kafka.ctx, 'audit'))?.partitions).toBe(1);
    expect((await admin.listTopics()).sort()).toEqual(['audit', 'orders']);
    const { topics } = await admin.fetchTopicMetadata({ topics: ['orders'] });
    expect(topics[0].partitions).toHaveLength(3);

    // One that exists already: kafkajs answers false (TOPIC_ALREADY_EXISTS), nothing changes.
    expect(await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 5 }] })).toBe(false);
    expect((await getTopic(kafka.ctx, 'orders'))?.partitions).toBe(3);

    const orders = (await getTopic(kafka.ctx, 'orders'))!;
    await appendToPartitions(kafka.ctx, orders, [{ partition: 1, records: [{ timestamp: Date.now(), key: null, value: Buffer.from('x') }] }]);
    expect((await admin.fetchTopicOffsets('orders')).find((p) => p.partition === 1)?.high).toBe('1');

    await admin.deleteTopics({ topics: ['orders', 'audit'] });
    expect(await storedNames()).toEqual([]);
    expect(await admin.listTopics()).toEqual([]);
    // Its data went with it: no partition state is left, and a topic of the same name starts empty.
    for (let p = 0; p < 3; p++) {
      expect((await kafka.ctx.ddb.send(new GetCommand({ TableName: kafka.ctx.table, Key: stateKey(orders, p), ConsistentRead: true }))).Item).toBeUndefined();
    }
    await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 3 }] });
    expect((await admin.fetchTopicOffsets('orders')).map((p) => p.high)).toEqual(['0', '0', '0']);
    await admin.deleteTopics({ topics: ['orders'] });
    // kafkajs retries UNKNOWN_TOPIC_OR_PARTITION (retry: 2 in support.ts) before it gives up.
    expect(await rejection(admin.deleteTopics({ topics: ['orders'] }))).toBe('UNKNOWN_TOPIC_OR_PARTITION');
  });

  it('validateOnly checks everything and creates nothing', async () => {
    // (kafkajs would wait for the leaders of a topic that validateOnly did not create.)
    expect(await admin.createTopics({ validateOnly: true, waitForLeaders: false, topics: [{ topic: 'dry-run', numPartitions: 4 }] })).toBe(true);
    expect(await getTopic(kafka.ctx, 'dry-run')).toBeUndefined();
    const invalid = admin.createTopics({ validateOnly: true, waitForLeaders: false, topics: [{ topic: 'dry-run', configEntries: [{ name: 'retention.ms', value: 'x' }] }] });
    expect(await rejection(invalid)).toBe('INVALID_CONFIG');
    await admin.createTopics({ topics: [{ topic: 'exists' }] });
    // TOPIC_ALREADY_EXISTS: kafkajs answers false.
    expect(await admin.createTopics({ validateOnly: true, waitForLeaders: false, topics: [{ topic: 'exists' }] })).toBe(false);
    await admin.deleteTopics({ topics: ['exists'] });
    expect(await storedNames()).toEqual([]);
  });

  it("refuses bad topics with Kafka's errors, each on its own: the good one of the request is created", async () => {
    const refused = (topic: Parameters<Admin['createTopics']>[0]['topics'][number]) => rejection(admin.createTopics({ topics: [topic] }));
    expect(await refused({ topic: 'bad name' })).toBe('INVALID_TOPIC_EXCEPTION');
    expect(await refused({ topic: 'zero', numPartitions: 0 })).toBe('INVALID_PARTITIONS');
    expect(await refused({ topic: 'too-many', numPartitions: 1001 })).toBe('INVALID_PARTITIONS');
    expect(await refused({ topic: 'replicated', numPartitions: 1, replicationFactor: 3 })).toBe('INVALID_REPLICATION_FACTOR');
    expect(await refused({ topic: 'assigned', replicaAssignment: [{ partition: 0, replicas: [0] }] })).toBe('INVALID_REQUEST');
    expect(await refused({ topic: 'configured', configEntries: [{ name: 'retention.ms', value: 'soon' }] })).toBe('INVALID_CONFIG');
    expect(await refused({ topic: 'configured', configEntries: [{ name: 'log.retention.hours', value: '1' }] })).toBe('INVALID_CONFIG');
    expect(await storedNames()).toEqual([]);

    const mixed = admin.createTopics({ topics: [{ topic: 'fine', numPartitions: 2, replicationFactor: 1 }, { topic: 'wrong', replicationFactor: 2 }] });
    expect(await rejection(mixed)).toBe('INVALID_REPLICATION_FACTOR');
    expect(await storedNames()).toEqual(['fine']);
    await admin.deleteTopics({ topics: ['fine'] });
  });

  it('createPartitions raises the count; a count not above it is INVALID_PARTITIONS; validateOnly changes nothing', async () => {
    await admin.createTopics({ topics: [{ topic: 'growing', numPartitions: 2 }] });
    await admin.createPartitions({ validateOnly: true, topicPartitions: [{ topic: 'growing', count: 6 }] });
    expect((await getTopic(kafka.ctx, 'growing'))?.partitions).toBe(2);
    await admin.createPartitions({ topicPartitions: [{ topic: 'growing', count: 4 }] });
    expect((await getTopic(kafka.ctx, 'growing'))?.partitions).toBe(4);
    const { topics } = await admin.fetchTopicMetadata({ topics: ['growing'] });
    expect(topics[0].partitions).toHaveLength(4);
    expect(await rejection(admin.createPartitions({ topicPartitions: [{ topic: 'growing', count: 3 }] }))).toBe('INVALID_PARTITIONS');
    expect(await rejection(admin.createPartitions({ topicPartitions: [{ topic: 'growing', count: 4 }] }))).toBe('INVALID_PARTITIONS');
    expect(await rejection(admin.createPartitions({ topicPartitions: [{ topic: 'missing', count: 3 }] }))).toBe('UNKNOWN_TOPIC_OR_PARTITION');
    expect((await getTopic(kafka.ctx, 'growing'))?.partitions).toBe(4);
    await admin.deleteTopics({ topics: ['growing'] });
  });

  it('CreateTopics v7 answers the topic id, partitions and configs; DeleteTopics v6 deletes by id', async () => {
    const created = await rawCall<CreateTopicsResponse>(kafka.gateway.port, ApiKey.CreateTopics, 7, {
      topics: [{ name: 'java', numPartitions: -1, replicationFactor: -1, assignments: [], configs: [{ name: 'retention.ms', value: '60000' }] }],
      timeoutMs: 1000,
      validateOnly: false,
    });
    const stored = (await getTopic(kafka.ctx, 'java'))!;
    const result = created.topics![0];
    expect(result).toMatchObject({ name: 'java', errorCode: 0, topicId: topicUuid(stored.id), numPartitions: 1, replicationFactor: 1 });
    expect(result.configs!.find((c) => c.name === 'retention.ms')).toEqual({ name: 'retention.ms', value: '60000', readOnly: false, configSource: 1, isSensitive: false });

    const unknownId = '0123abcd-0000-0000-0000-000000000000';
    const deleted = await rawCall<DeleteTopicsResponse>(kafka.gateway.port, ApiKey.DeleteTopics, 6, {
      topics: [
        { name: null, topicId: topicUuid(stored.id) },
        { name: null, topicId: unknownId },
        { name: 'java', topicId: topicUuid(stored.id) },
      ],
      topicNames: [],
      timeoutMs: 1000,
    });
    expect(deleted.responses!.map((r) => [r.name, r.errorCode])).toEqual([
      ['java', 0],
      [null, 100], // UNKNOWN_TOPIC_ID
      ['java', 42], // a name and an id: INVALID_REQUEST
    ]);
    expect(await getTopic(kafka.ctx, 'java')).toBeUndefined();
  });
});
