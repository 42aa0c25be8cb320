// A partition whose lease another writer holds cannot be appended to: with other partitions in
// the same request the produce still succeeds for those (200, per-partition errors); alone, the
// produce fails with the retriable error itself.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { createTestContext } from '../support/storage.js';
import { call } from './call.js';

describe('produce when a partition is led elsewhere', () => {
  let ctx: SluiceContext;
  beforeAll(async () => {
    ctx = await createTestContext({ leaseWaitMs: 200 });
    await call(ctx, 'POST', '/v1/topics', { name: 'busy', partitions: 2 });
    // Another process takes partition 0's lease for a minute.
    const other: SluiceContext = { ...ctx, ownerId: 'another-process', leaseMs: 60_000 };
    expect((await call(other, 'POST', '/v1/topics/busy/records', { records: [{ partition: 0, value: 'theirs' }] })).status).toBe(200);
  });

  it('acknowledges the healthy partitions and reports the failed one', async () => {
    const res = await call(ctx, 'POST', '/v1/topics/busy/records', {
      records: [
        { partition: 0, value: 'a' },
        { partition: 1, value: 'b' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.offsets[0]).toMatchObject({ partition: 0, error: { code: 'NOT_LEADER_OR_FOLLOWER', retriable: true } });
    expect(res.body.offsets[1]).toEqual({ partition: 1, baseOffset: 0, count: 1 });
    expect(res.body.records).toEqual([
      { partition: 0, error: 'NOT_LEADER_OR_FOLLOWER' },
      { partition: 1, offset: 0 },
    ]);
    const p0 = await call(ctx, 'GET', '/v1/topics/busy/partitions/0/records', undefined, { offset: '0' });
    expect(p0.body.records.map((r: { value: string }) => r.value)).toEqual(['theirs']);
  });

  it('fails a produce whose every partition failed with 503 and Retry-After', async () => {
    const res = await call(ctx, 'POST', '/v1/topics/busy/records', { records: [{ partition: 0, value: 'a' }] });
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'NOT_LEADER_OR_FOLLOWER', retriable: true });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });
});
