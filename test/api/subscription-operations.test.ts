// lib/api/subscription-operations.ts over HTTP (handleHttp, as the local server and API Gateway
// route it): create → list → describe (per-partition lag and iterator age) → delete, each answer
// in its declared schema; the contract's error codes for bad input, with the table unchanged.
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { subscriptionOperations } from '../../lib/api/subscription-operations.js';
import { createTestContext } from '../support/storage.js';
import { call } from './call.js';

const schema = (name: string) => subscriptionOperations.find((o) => o.name === name)!.response.body!;

/** Every item of the table, sorted: what "nothing written" is checked against. */
async function tableItems(ctx: SluiceContext): Promise<string[]> {
  const out = await ctx.ddb.send(new ScanCommand({ TableName: ctx.table, ConsistentRead: true }));
  return (out.Items ?? []).map((i) => JSON.stringify(i)).sort();
}

const FN = 'arn:aws:lambda:us-east-1:123456789012:function:orders-handler';

let ctx: SluiceContext;
beforeEach(async () => {
  ctx = await createTestContext();
  expect((await call(ctx, 'POST', '/v1/topics', { name: 'orders', partitions: 2 })).status).toBe(201);
  expect((await call(ctx, 'POST', '/v1/topics', { name: 'dlq', partitions: 1 })).status).toBe(201);
});

describe('/v1/subscriptions', () => {
  it('routes: create, list, describe, delete', () => {
    expect(subscriptionOperations.map((o) => [o.name, o.method, o.path])).toEqual([
      ['createSubscription', 'POST', '/v1/subscriptions'],
      ['listSubscriptions', 'GET', '/v1/subscriptions'],
      ['describeSubscription', 'GET', '/v1/subscriptions/{name}'],
      ['deleteSubscription', 'DELETE', '/v1/subscriptions/{name}'],
    ]);
  });

  it('create → list → describe → delete, with the options as given and defaults filled in', async () => {
    const t0 = Date.now();
    await call(ctx, 'POST', '/v1/topics/orders/records', { records: [{ value: 'a', partition: 1, timestamp: t0 - 5000 }, { value: 'b', partition: 1 }] });
    const created = await call(ctx, 'POST', '/v1/subscriptions', {
      name: 'orders-to-fn',
      topic: 'orders',
      target: { type: 'lambda', functionArn: FN },
      batchSize: 10,
      maximumBatchingWindowMs: 500,
      startingPosition: 'TRIM_HORIZON',
      bisectBatchOnFunctionError: true,
      functionResponseTypes: ['ReportBatchItemFailures'],
      maximumRetryAttempts: 3,
      maximumRecordAgeMs: 60_000,
      onFailure: { type: 'topic', topic: 'dlq' },
      parallelizationFactor: 2,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(schema('createSubscription').parse(created.body)).toEqual(created.body);
    expect(created.body).toMatchObject({
      name: 'orders-to-fn',
      topic: 'orders',
      group: 'sluice-subscription.orders-to-fn',
      target: { type: 'lambda', functionArn: FN },
      batchSize: 10,
      maximumBatchingWindowMs: 500,
      startingPosition: 'TRIM_HORIZON',
      bisectBatchOnFunctionError: true,
      functionResponseTypes: ['ReportBatchItemFailures'],
      maximumRetryAttempts: 3,
      maximumRecordAgeMs: 60_000,
      onFailure: { type: 'topic', topic: 'dlq' },
      parallelizationFactor: 2,
      enabled: true,
    });
    expect(created.body.signingSecret).toBeUndefined(); // Lambda targets are authorized by IAM

    const listed = await call(ctx, 'GET', '/v1/subscriptions');
    expect(listed.status).toBe(200);
    expect(schema('listSubscriptions').parse(listed.body)).toEqual(listed.body);
    expect(listed.body.subscriptions).toEqual([created.body]);

    const described = await call(ctx, 'GET', '/v1/subscriptions/orders-to-fn');
    expect(described.status).toBe(200);
    expect(schema('describeSubscription').parse(described.body)).toEqual(described.body);
    expect(described.body).toMatchObject({ ...created.body, topicExists: true, lag: 2 });
    expect(described.body.partitions.map((p: any) => [p.partition, p.committedOffset, p.logEndOffset, p.lag])).toEqual([
      [0, 0, 0, 0],
      [1, 0, 2, 2],
    ]);
    // The oldest undelivered record of partition 1 was stamped 5 s before the start.
    expect(described.body.partitions[1].oldestUndeliveredAgeMs).toBeGreaterThanOrEqual(5000);
    expect(described.body.oldestUndeliveredAgeMs).toBe(described.body.partitions[1].oldestUndeliveredAgeMs);

    // Its consumer group is visible as any group is.
    const offsets = await call(ctx, 'GET', '/v1/groups/sluice-subscription.orders-to-fn/offsets');
    expect(offsets.body.offsets.map((o: any) => [o.partition, o.offset])).toEqual([[0, 0], [1, 0]]);

    expect((await call(ctx, 'DELETE', '/v1/subscriptions/orders-to-fn')).status).toBe(204);
    expect((await call(ctx, 'GET', '/v1/subscriptions')).body).toEqual({ subscriptions: [] });
    const gone = await call(ctx, 'GET', '/v1/subscriptions/orders-to-fn');
    expect([gone.status, gone.body.error.code]).toEqual([404, 'SUBSCRIPTION_NOT_FOUND']);
    const again = await call(ctx, 'DELETE', '/v1/subscriptions/orders-to-fn');
    expect([again.status, again.body.error.code]).toEqual([404, 'SUBSCRIPTION_NOT_FOUND']);
  });

  it('returns an HTTPS target\'s signing secret once: in the create answer, never in list or describe', async () => {
    const created = await call(ctx, 'POST', '/v1/subscriptions', { name: 'hook', topic: 'orders', target: { type: 'https', url: 'https://example.com/hook' } });
    expect(created.status).toBe(201);
    expect(created.body.signingSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.body).toMatchObject({ startingPosition: 'LATEST', batchSize: 100, maximumRetryAttempts: -1, enabled: true });
    expect(JSON.stringify((await call(ctx, 'GET', '/v1/subscriptions')).body)).not.toContain(created.body.signingSecret);
    expect(JSON.stringify((await call(ctx, 'GET', '/v1/subscriptions/hook')).body)).not.toContain(created.body.signingSecret);
    const given = await call(ctx, 'POST', '/v1/subscriptions', {
      name: 'hook2', topic: 'orders', target: { type: 'https', url: 'https://example.com/hook' }, signingSecret: 'a-secret-of-16-chars',
    });
    expect(given.body.signingSecret).toBe('a-secret-of-16-chars');
  });

  it('refuses bad input with the contract\'s codes and writes nothing', async () => {
    await call(ctx, 'POST', '/v1/subscriptions', { name: 'taken', topic: 'orders', target: { type: 'lambda', functionArn: FN } });
    const before = await tableItems(ctx);
    const refused: [unknown, number, string][] = [
      [{ name: 'taken', topic: 'orders', target: { type: 'lambda', functionArn: FN } }, 409, 'SUBSCRIPTION_ALREADY_EXISTS'],
      [{ name: 'x', topic: 'orders' }, 400, 'INVALID_REQUEST'], // no target
      [{ name: 'x', topic: 'orders', target: { type: 'ftp', url: 'ftp://x' } }, 400, 'INVALID_REQUEST'],
      [{ name: 'x', topic: 'orders', target: { type: 'https', url: 'http://example.com/' } }, 400, 'INVALID_REQUEST'], // plain http off loopback
      [{ name: 'x', topic: 'orders', target: { type: 'lambda', functionArn: 'not an arn' } }, 400, 'INVALID_REQUEST'],
      [{ name: 'x', topic: 'orders', target: { type: 'lambda', functionArn: FN }, batchSize: '10' }, 400, 'INVALID_REQUEST'],
      [{ name: 'x', topic: 'orders', target: { type: 'lambda', functionArn: FN }, bogus: 1 }, 400, 'INVALID_REQUEST'],
      [{ name: 'a b', topic: 'orders', target: { type: 'lambda', functionArn: FN } }, 400, 'INVALID_REQUEST'],
      [{ name: 'x', topic: 'orders', target: { type: 'lambda', functionArn: FN }, batchSize: 0 }, 400, 'INVALID_CONFIG'],
      [{ name: 'x', topic: 'orders', target: { type: 'lambda', functionArn: FN }, batchSize: 10_001 }, 400, 'INVALID_CONFIG'],
      [{ name: 'x', topic: 'orders', target: { type: 'lambda', functionArn: FN }, maximumRecordAgeMs: 1000 }, 400, 'INVALID_CONFIG'],
      [{ name: 'x', topic: 'orders', target: { type: 'lambda', functionArn: FN }, parallelizationFactor: 11 }, 400, 'INVALID_CONFIG'],
      [{ name: 'x', topic: 'orders', target: { type: 'lambda', functionArn: FN }, startingPosition: 'AT_TIMESTAMP' }, 400, 'INVALID_CONFIG'],
      [{ name: 'x', topic: 'orders', target: { type: 'lambda', functionArn: FN }, onFailure: { type: 'sqs', queueArn: 'nope' } }, 400, 'INVALID_CONFIG'],
      [{ name: 'x', topic: 'orders', target: { type: 'lambda', functionArn: FN }, onFailure: { type: 'topic', topic: 'orders' } }, 400, 'INVALID_CONFIG'],
      [{ name: 'x', topic: 'missing', target: { type: 'lambda', functionArn: FN } }, 404, 'UNKNOWN_TOPIC_OR_PARTITION'],
      [{ name: 'x', topic: 'orders', target: { type: 'lambda', functionArn: FN }, onFailure: { type: 'topic', topic: 'missing' } }, 404, 'UNKNOWN_TOPIC_OR_PARTITION'],
    ];
    for (const [body, status, code] of refused) {
      const res = await call(ctx, 'POST', '/v1/subscriptions', body);
      expect([res.status, res.body.error?.code], JSON.stringify(body)).toEqual([status, code]);
      expect(res.body.error.message.length, JSON.stringify(body)).toBeGreaterThan(10);
    }
    for (const [method, path] of [['GET', '/v1/subscriptions/a%20b'], ['DELETE', '/v1/subscriptions/a%20b']] as const) {
      const res = await call(ctx, method, path);
      expect([res.status, res.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
    }
    expect((await call(ctx, 'GET', '/v1/subscriptions', undefined, { x: '1' })).status).toBe(400);
    expect(await tableItems(ctx)).toEqual(before);
  });
});
