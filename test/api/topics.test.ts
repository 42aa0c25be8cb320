import { beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { DEFAULT_TOPIC_CONFIG } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';
import { call } from './call.js';

describe('topic operations', () => {
  let ctx: SluiceContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });

  it('creates a topic with Kafka config defaults, overrides given as numbers or strings', async () => {
    const res = await call(ctx, 'POST', '/v1/topics', { name: 'orders', partitions: 3, config: { 'retention.ms': '60000', 'segment.bytes': 1048576 } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      name: 'orders',
      topicId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      partitions: 3,
      config: { ...DEFAULT_TOPIC_CONFIG, 'retention.ms': 60000, 'segment.bytes': 1048576 },
    });
  });

  it('refuses a second topic of the same name', async () => {
    await call(ctx, 'POST', '/v1/topics', { name: 'dup', partitions: 1 });
    const res = await call(ctx, 'POST', '/v1/topics', { name: 'dup', partitions: 2 });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'TOPIC_ALREADY_EXISTS', retriable: false });
    expect((await call(ctx, 'GET', '/v1/topics/dup')).body.partitions).toHaveLength(1);
  });

  it('lists topics by name and describes empty partitions', async () => {
    await call(ctx, 'POST', '/v1/topics', { name: 'a.list-test_1', partitions: 2 });
    const list = await call(ctx, 'GET', '/v1/topics');
    expect(list.status).toBe(200);
    expect(list.body.topics).toContainEqual({ name: 'a.list-test_1', topicId: expect.any(String), partitions: 2 });
    const names = list.body.topics.map((t: { name: string }) => t.name);
    expect(names).toEqual([...names].sort());

    const described = await call(ctx, 'GET', '/v1/topics/a.list-test_1');
    expect(described.body).toEqual({
      name: 'a.list-test_1',
      topicId: list.body.topics.find((t: { name: string }) => t.name === 'a.list-test_1').topicId,
      config: DEFAULT_TOPIC_CONFIG,
      partitions: [0, 1].map((partition) => ({ partition, logStartOffset: 0, highWatermark: 0, leaderEpoch: 0, segments: 0, bytes: 0 })),
    });
  });

  it('raises the partition count, and only raises it', async () => {
    await call(ctx, 'POST', '/v1/topics', { name: 'grow', partitions: 2 });
    const grown = await call(ctx, 'POST', '/v1/topics/grow/partitions', { count: 5 });
    expect(grown.status).toBe(200);
    expect(grown.body.partitions).toBe(5);
    const same = await call(ctx, 'POST', '/v1/topics/grow/partitions', { count: 5 });
    expect(same.status).toBe(400);
    expect(same.body.error.code).toBe('INVALID_PARTITIONS');
    expect(same.body.error.message).toContain('has 5 partitions');
    const produced = await call(ctx, 'POST', '/v1/topics/grow/records', { records: [{ partition: 4, value: 'x' }] });
    expect(produced.body.records).toEqual([{ partition: 4, offset: 0 }]);
  });

  it('deletes a topic and its data; a new topic of that name starts empty', async () => {
    await call(ctx, 'POST', '/v1/topics', { name: 'gone', partitions: 2 });
    await call(ctx, 'POST', '/v1/topics/gone/records', { records: [{ partition: 0, value: 'a' }, { partition: 1, value: 'b' }] });
    const del = await call(ctx, 'DELETE', '/v1/topics/gone');
    expect(del.status).toBe(204);
    expect((await call(ctx, 'GET', '/v1/topics/gone')).body.error.code).toBe('UNKNOWN_TOPIC_OR_PARTITION');
    expect((await call(ctx, 'DELETE', '/v1/topics/gone')).status).toBe(404);

    await call(ctx, 'POST', '/v1/topics', { name: 'gone', partitions: 2 });
    const described = await call(ctx, 'GET', '/v1/topics/gone');
    expect(described.body.partitions.map((p: { highWatermark: number }) => p.highWatermark)).toEqual([0, 0]);
  });

  it('allocates distinct producer ids', async () => {
    const a = await call(ctx, 'POST', '/v1/producers');
    const b = await call(ctx, 'POST', '/v1/producers', {});
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ producerEpoch: 0 });
    expect(b.body.producerId).not.toBe(a.body.producerId);
  });
});
