// PATCH /v1/topics/{topic} (a JSON merge patch of the config: a value sets a key, null reverts it to
// its default) and GET /v1/topics/{topic}/configs, through the HTTP router: the contract's answers,
// and refusals with its codes and statuses that leave the topic exactly as it was.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { topicKey } from '../../lib/metadata/keys.js';
import { DEFAULT_TOPIC_CONFIG } from '../../lib/metadata/topics.js';
import type { SluiceContext } from '../../lib/context.js';
import { createTestContext } from '../support/storage.js';
import { call } from './call.js';

const stored = async (ctx: SluiceContext, name: string) =>
  (await ctx.ddb.send(new GetCommand({ TableName: ctx.table, Key: topicKey(name), ConsistentRead: true }))).Item;

describe('PATCH /v1/topics/{topic}', () => {
  it('sets keys, reverts null ones to their defaults, and GET /v1/topics/{topic} shows the result', async () => {
    const ctx = await createTestContext();
    const created = await call(ctx, 'POST', '/v1/topics', { name: 'orders', partitions: 2, config: { 'segment.bytes': 4096 } });
    const res = await call(ctx, 'PATCH', '/v1/topics/orders', { config: { 'retention.ms': '3600000', 'retention.bytes': 1048576, 'segment.bytes': null } });
    expect(res.status).toBe(200);
    const config = { ...DEFAULT_TOPIC_CONFIG, 'retention.ms': 3_600_000, 'retention.bytes': 1_048_576 };
    expect(res.body).toEqual({ name: 'orders', topicId: created.body.topicId, partitions: 2, config });
    expect((await call(ctx, 'GET', '/v1/topics/orders')).body.config).toEqual(config);
    // Keys not named keep their values.
    expect((await call(ctx, 'PATCH', '/v1/topics/orders', { config: { 'segment.ms': 60000 } })).body.config).toEqual({ ...config, 'segment.ms': 60_000 });
  });

  it('validateOnly answers the resulting config and changes nothing', async () => {
    const ctx = await createTestContext();
    await call(ctx, 'POST', '/v1/topics', { name: 'orders', partitions: 1 });
    const before = await stored(ctx, 'orders');
    const res = await call(ctx, 'PATCH', '/v1/topics/orders', { config: { 'retention.ms': 1000 }, validateOnly: true });
    expect(res.status).toBe(200);
    expect(res.body.config['retention.ms']).toBe(1000);
    expect(await stored(ctx, 'orders')).toEqual(before);
  });

  it("refuses with the contract's codes, and the topic stays exactly as it was", async () => {
    const ctx = await createTestContext();
    await call(ctx, 'POST', '/v1/topics', { name: 'orders', partitions: 1, config: { 'retention.ms': 5000 } });
    const before = await stored(ctx, 'orders');
    const refusals: [string, unknown, number, string][] = [
      ['/v1/topics/orders', { config: { 'retention.ms': 1000, 'segment.bytes': 'huge' } }, 400, 'INVALID_CONFIG'],
      ['/v1/topics/orders', { config: { 'retention.ms': 1000, 'log.retention.hours': 1 } }, 400, 'INVALID_CONFIG'],
      ['/v1/topics/orders', { config: { 'retention.ms': 1000, 'max.message.bytes': 1 << 30 } }, 400, 'INVALID_CONFIG'],
      ['/v1/topics/orders', { config: { 'cleanup.policy': 'shred' } }, 400, 'INVALID_CONFIG'],
      ['/v1/topics/orders', { config: { 'no.such.key': null } }, 400, 'INVALID_CONFIG'],
      ['/v1/topics/orders', { config: { 'retention.ms': true } }, 400, 'INVALID_REQUEST'],
      ['/v1/topics/orders', { config: { 'retention.ms': 1000 }, partitions: 4 }, 400, 'INVALID_REQUEST'],
      ['/v1/topics/orders', { config: { 'retention.ms': 1000 }, validateOnly: 'yes' }, 400, 'INVALID_REQUEST'],
      ['/v1/topics/orders', {}, 400, 'INVALID_REQUEST'],
      ['/v1/topics/missing', { config: { 'retention.ms': 1000 } }, 404, 'UNKNOWN_TOPIC_OR_PARTITION'],
      ['/v1/topics/a%20b', { config: { 'retention.ms': 1000 } }, 400, 'INVALID_TOPIC_EXCEPTION'],
    ];
    for (const [path, body, status, code] of refusals) {
      const res = await call(ctx, 'PATCH', path, body);
      expect([res.status, res.body.error?.code], JSON.stringify(body)).toEqual([status, code]);
      expect(res.body.error.retriable).toBe(false);
    }
    expect(await stored(ctx, 'orders')).toEqual(before);
    expect((await call(ctx, 'GET', '/v1/topics')).body.topics.map((t: { name: string }) => t.name)).toEqual(['orders']);
  });
});

describe('GET /v1/topics/{topic}/configs', () => {
  it('every config as a string with its source; synonyms name the broker default it falls back to', async () => {
    const ctx = await createTestContext();
    await call(ctx, 'POST', '/v1/topics', { name: 'orders', partitions: 1, config: { 'retention.ms': 3600000 } });
    const res = await call(ctx, 'GET', '/v1/topics/orders/configs');
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('orders');
    expect(res.body.configs.map((c: { name: string }) => c.name)).toEqual(Object.keys(DEFAULT_TOPIC_CONFIG).sort());
    const byName = new Map(res.body.configs.map((c: { name: string }) => [c.name, c]));
    expect(byName.get('retention.ms')).toEqual({
      name: 'retention.ms',
      value: '3600000',
      source: 'DYNAMIC_TOPIC_CONFIG',
      isDefault: false,
      readOnly: false,
      sensitive: false,
      synonyms: [
        { name: 'retention.ms', value: '3600000', source: 'DYNAMIC_TOPIC_CONFIG' },
        { name: 'log.retention.ms', value: '604800000', source: 'DEFAULT_CONFIG' },
      ],
    });
    expect(byName.get('cleanup.policy')).toMatchObject({ value: 'delete', source: 'DEFAULT_CONFIG', isDefault: true });
    // Reverting the key makes it a default again.
    await call(ctx, 'PATCH', '/v1/topics/orders', { config: { 'retention.ms': null } });
    const after = (await call(ctx, 'GET', '/v1/topics/orders/configs')).body.configs.find((c: { name: string }) => c.name === 'retention.ms');
    expect(after).toMatchObject({ value: '604800000', isDefault: true, source: 'DEFAULT_CONFIG' });
    expect((await call(ctx, 'GET', '/v1/topics/missing/configs')).body.error.code).toBe('UNKNOWN_TOPIC_OR_PARTITION');
  });
});
