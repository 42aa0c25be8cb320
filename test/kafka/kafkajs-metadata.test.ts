// kafkajs's admin client against the gateway: ApiVersions and Metadata of real topics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTopic } from '../../lib/metadata/topics.js';
import { startTestGateway, type TestGateway } from './support.js';

let kafka: TestGateway;

beforeAll(async () => {
  kafka = await startTestGateway();
  await createTopic(kafka.ctx, 'orders', 3, {});
  await createTopic(kafka.ctx, 'payments', 1, {});
});
afterAll(() => kafka.close());

describe('kafkajs admin over the gateway', () => {
  it('lists the topics', async () => {
    const admin = kafka.client().admin();
    await admin.connect();
    try {
      expect((await admin.listTopics()).sort()).toEqual(['orders', 'payments']);
    } finally {
      await admin.disconnect();
    }
  });

  it('fetches topic metadata naming the gateway the leader of every partition', async () => {
    const admin = kafka.client().admin();
    await admin.connect();
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: ['orders'] });
      expect(topics).toHaveLength(1);
      expect(topics[0]!.name).toBe('orders');
      expect(topics[0]!.partitions.map((p) => p.partitionId).sort()).toEqual([0, 1, 2]);
      for (const p of topics[0]!.partitions) {
        expect(p).toMatchObject({ partitionErrorCode: 0, leader: 0, replicas: [0], isr: [0] });
      }
      const cluster = await admin.describeCluster();
      expect(cluster.brokers).toEqual([{ nodeId: 0, host: '127.0.0.1', port: kafka.gateway.port }]);
      expect(cluster.controller).toBe(0);
      expect(cluster.clusterId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    } finally {
      await admin.disconnect();
    }
  });

  it('answers an unknown topic with UNKNOWN_TOPIC_OR_PARTITION', async () => {
    const admin = kafka.client().admin();
    await admin.connect();
    try {
      await expect(admin.fetchTopicMetadata({ topics: ['missing'] })).rejects.toMatchObject({ type: 'UNKNOWN_TOPIC_OR_PARTITION' });
    } finally {
      await admin.disconnect();
    }
  });
});
