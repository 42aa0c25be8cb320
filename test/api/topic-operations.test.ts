// lib/api/topic-operations.ts: each topic operation's route and its `run`, called directly
// (as a direct invoke does), answering what its declared response schema says.
import { describe, expect, it } from 'vitest';
import type { Operation } from '../../lib/api/operation.js';
import { topicOperations } from '../../lib/api/topic-operations.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { getTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';

const op = (name: string): Operation => topicOperations.find((o) => o.name === name)!;
async function run(ctx: Parameters<Operation['run']>[0], name: string, input: Record<string, unknown>) {
  const o = op(name);
  const result = await o.run(ctx, input);
  expect(result.status).toBe(o.response.status);
  if (o.response.body) expect(o.response.body.parse(result.body)).toEqual(result.body);
  return result.body as any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe('topic operations', () => {
  it('routes: create/list/describe/configs/alter/grow/delete', () => {
    expect(topicOperations.map((o) => [o.name, o.method, o.path])).toEqual([
      ['createTopic', 'POST', '/v1/topics'],
      ['listTopics', 'GET', '/v1/topics'],
      ['describeTopic', 'GET', '/v1/topics/{topic}'],
      ['describeTopicConfigs', 'GET', '/v1/topics/{topic}/configs'],
      ['alterTopicConfig', 'PATCH', '/v1/topics/{topic}'],
      ['createPartitions', 'POST', '/v1/topics/{topic}/partitions'],
      ['deleteTopic', 'DELETE', '/v1/topics/{topic}'],
    ]);
  });

  it('create → list → describe (offsets per partition) → grow → delete, each answer in its schema', async () => {
    const ctx = await createTestContext();
    const created = await run(ctx, 'createTopic', { name: 'orders', partitions: 2, config: { 'retention.ms': '1000' } });
    expect(created).toMatchObject({ name: 'orders', partitions: 2, config: { 'retention.ms': 1000 } });
    expect(await run(ctx, 'listTopics', {})).toEqual({ topics: [{ name: 'orders', topicId: created.topicId, partitions: 2 }] });
    const topic = (await getTopic(ctx, 'orders'))!;
    await appendToPartitions(ctx, topic, [{ partition: 1, records: [{ timestamp: 1, key: null, value: Buffer.from('x') }] }]);
    const described = await run(ctx, 'describeTopic', { topic: 'orders' });
    expect(described.partitions.map((p: { highWatermark: number }) => p.highWatermark)).toEqual([0, 1]);
    expect(described.partitions[1]).toMatchObject({ partition: 1, logStartOffset: 0, segments: 1 });
    expect(described.partitions[1].bytes).toBeGreaterThan(0);
    expect((await run(ctx, 'createPartitions', { topic: 'orders', count: 3 })).partitions).toBe(3);
    expect(await run(ctx, 'deleteTopic', { topic: 'orders' })).toBeUndefined();
    expect(await getTopic(ctx, 'orders')).toBeUndefined();
  });

  it('refusals come as SluiceErrors before storage is touched: unknown fields, wrong types, bad names, missing topics', async () => {
    const ctx = await createTestContext();
    await expect(op('createTopic').run(ctx, { name: 't', partitions: 1, bogus: 1 })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(op('createTopic').run(ctx, { name: 't', partitions: '1' })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(op('createTopic').run(ctx, { name: 't', partitions: 0 })).rejects.toMatchObject({ code: 'INVALID_PARTITIONS' });
    await expect(op('describeTopic').run(ctx, { topic: 'a b' })).rejects.toMatchObject({ code: 'INVALID_TOPIC_EXCEPTION' });
    await expect(op('describeTopic').run(ctx, { topic: 'missing' })).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
    await expect(op('deleteTopic').run(ctx, { topic: 'missing' })).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
    await expect(op('listTopics').run(ctx, { x: 1 })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });
});
