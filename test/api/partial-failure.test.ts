// Partitions of one produce succeed or fail on their own (Kafka's per-partition error codes): with
// other partitions in the same request the produce still succeeds for those (200, per-partition
// errors); alone, the produce fails with the retriable error itself. DynamoDB throttling one
// partition's STATE item (a hot partition past its write capacity) is the failure here.
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { createTestContext } from '../support/storage.js';
import { call } from './call.js';

/** Every write to partition 0's STATE item is throttled, as DynamoDB throttles a hot item. */
function throttlePartitionZero(ctx: SluiceContext): void {
  ctx.ddb.middlewareStack.add(
    (next, context) => async (args) => {
      // The document client's stack is the DynamoDB client's: keys arrive marshalled ({S: ...}).
      const key = (args as { input: { Key?: Record<string, { S?: string } | string> } }).input.Key ?? {};
      const text = (v: { S?: string } | string | undefined) => (typeof v === 'string' ? v : v?.S);
      if (/^Update(Item)?Command$/.test(context.commandName ?? '') && text(key.sk) === 'STATE' && text(key.pk)?.endsWith('#0')) {
        throw new ProvisionedThroughputExceededException({ message: 'throttled', $metadata: { httpStatusCode: 400 } });
      }
      return next(args);
    },
    { step: 'initialize', name: 'throttlePartitionZero' },
  );
}

describe('produce when one partition is throttled', () => {
  let ctx: SluiceContext;
  beforeAll(async () => {
    ctx = await createTestContext();
    await call(ctx, 'POST', '/v1/topics', { name: 'busy', partitions: 2 });
    expect((await call(ctx, 'POST', '/v1/topics/busy/records', { records: [{ partition: 0, value: 'before' }] })).status).toBe(200);
    throttlePartitionZero(ctx);
  });

  it('acknowledges the healthy partitions and reports the failed one', async () => {
    const res = await call(ctx, 'POST', '/v1/topics/busy/records', {
      records: [
        { partition: 0, value: 'a' },
        { partition: 1, value: 'b' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.offsets[0]).toMatchObject({ partition: 0, error: { code: 'THROTTLING', retriable: true } });
    expect(res.body.offsets[1]).toEqual({ partition: 1, baseOffset: 0, count: 1 });
    expect(res.body.records).toEqual([
      { partition: 0, error: 'THROTTLING' },
      { partition: 1, offset: 0 },
    ]);
    const p0 = await call(ctx, 'GET', '/v1/topics/busy/partitions/0/records', undefined, { offset: '0' });
    expect(p0.body.records.map((r: { value: string }) => r.value)).toEqual(['before']);
  });

  it('fails a produce whose every partition failed with 429 and Retry-After', async () => {
    const res = await call(ctx, 'POST', '/v1/topics/busy/records', { records: [{ partition: 0, value: 'a' }] });
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({ code: 'THROTTLING', retriable: true });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });
});
