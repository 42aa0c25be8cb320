// Offset commits fenced by generation, lag, resets and group deletion, over HTTP.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { createTestContext } from '../support/storage.js';
import { http, join, ok, settle } from './http-support.js';

let ctx: SluiceContext;

beforeAll(async () => {
  ctx = await createTestContext();
  await ok(ctx, 'POST', '/v1/topics', { name: 'orders', partitions: 2 });
  const records = Array.from({ length: 10 }, (_, i) => ({ value: `r${i}`, partition: 0, timestamp: 1_000 + i }));
  await ok(ctx, 'POST', '/v1/topics/orders/records', { records });
});

describe('offset commits', () => {
  it('refuses a commit from a stale generation, accepts the current one and reports lag', async () => {
    const a = await join(ctx, 'fenced', 'a', ['orders']);
    await settle([a]);
    const commit = (memberId: string, generation: number, offset: number) =>
      http(ctx, 'POST', '/v1/groups/fenced/offsets', { memberId, generation, offsets: [{ topic: 'orders', partition: 0, offset, metadata: 'm' }] });

    expect((await commit(a.memberId, a.generation, 4)).status).toBe(200);
    const stale = a.generation;
    const b = await join(ctx, 'fenced', 'b', ['orders']);
    const refused = await commit(a.memberId, stale, 9);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('ILLEGAL_GENERATION');

    await settle([a, b]);
    expect((await commit(a.memberId, a.generation, 7)).status).toBe(200);
    const unknown = await commit('nobody-1', a.generation, 8);
    expect(unknown.body.error.code).toBe('UNKNOWN_MEMBER_ID');
    // A standalone commit is refused while the group has live members.
    const standalone = await http(ctx, 'POST', '/v1/groups/fenced/offsets', { offsets: [{ topic: 'orders', partition: 0, offset: 1 }] });
    expect(standalone.body.error.code).toBe('UNKNOWN_MEMBER_ID');

    const fetched = await ok(ctx, 'GET', '/v1/groups/fenced/offsets');
    expect(fetched.offsets).toEqual([{ topic: 'orders', partition: 0, offset: 7, metadata: 'm', highWatermark: 10, lag: 3 }]);
    const described = await ok(ctx, 'GET', '/v1/groups/fenced');
    expect(described.offsets[0]).toMatchObject({ partition: 0, lag: 3 });
  });

  it('accepts a standalone commit while the group has no members', async () => {
    const res = await ok(ctx, 'POST', '/v1/groups/standalone/offsets', { offsets: [{ topic: 'orders', partition: 1, offset: 0 }] });
    expect(res.offsets).toEqual([{ topic: 'orders', partition: 1, offset: 0, metadata: '' }]);
    expect((await ok(ctx, 'GET', '/v1/groups/standalone')).state).toBe('Empty');
  });

  it('rejects bad input with INVALID_REQUEST and stores nothing', async () => {
    const bad = [
      { offsets: [{ topic: 'orders', partition: 0, offset: -1 }] },
      { offsets: [] },
      { memberId: 'x', offsets: [{ topic: 'orders', partition: 0, offset: 1 }] },
      { offsets: [{ topic: 'orders', partition: 0, offset: 1, extra: true }] },
      { offsets: [{ topic: 'orders', partition: 0, offset: 1 }, { topic: 'orders', partition: 0, offset: 2 }] },
    ];
    for (const body of bad) {
      const res = await http(ctx, 'POST', '/v1/groups/untouched/offsets', body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
    }
    const unknownPartition = await http(ctx, 'POST', '/v1/groups/untouched/offsets', { offsets: [{ topic: 'orders', partition: 5, offset: 1 }] });
    expect(unknownPartition.body.error.code).toBe('UNKNOWN_TOPIC_OR_PARTITION');
    const badJoin = await http(ctx, 'POST', '/v1/groups/untouched/members', { topics: ['orders'], sessionTimeoutMs: 500 });
    expect(badJoin.body.error.code).toBe('INVALID_REQUEST');
    expect((await http(ctx, 'GET', '/v1/groups/untouched')).body.error.code).toBe('GROUP_ID_NOT_FOUND');
    expect((await ok(ctx, 'GET', '/v1/groups/untouched/offsets')).offsets).toEqual([]);
  });
});

describe('membership errors', () => {
  it('refuses a member whose assignor differs from the group', async () => {
    await join(ctx, 'protocols', 'a', ['orders'], { assignor: 'range' });
    const res = await http(ctx, 'POST', '/v1/groups/protocols/members', { topics: ['orders'], assignor: 'roundrobin' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('INCONSISTENT_GROUP_PROTOCOL');
    expect((await ok(ctx, 'GET', '/v1/groups/protocols')).members).toHaveLength(1);
  });

  it('answers UNKNOWN_MEMBER_ID to a heartbeat or rejoin from an unknown member', async () => {
    const hb = await http(ctx, 'POST', '/v1/groups/protocols/members/ghost-1/heartbeat', { generation: 1 });
    expect(hb.body.error.code).toBe('UNKNOWN_MEMBER_ID');
    const rejoin = await http(ctx, 'POST', '/v1/groups/protocols/members', { memberId: 'ghost-1', topics: ['orders'] });
    expect(rejoin.body.error.code).toBe('UNKNOWN_MEMBER_ID');
  });
});

describe('reset and delete', () => {
  it('resets the offsets of an inactive group to earliest, latest, a timestamp or an offset', async () => {
    const c = await join(ctx, 'resettable', 'a', ['orders']);
    const busy = await http(ctx, 'POST', '/v1/groups/resettable/offsets/reset', { topic: 'orders', to: 'earliest' });
    expect(busy.body.error.code).toBe('NON_EMPTY_GROUP');
    await ok(ctx, 'DELETE', `/v1/groups/resettable/members/${c.memberId}`);

    const reset = (to: unknown, partitions?: number[]) => ok(ctx, 'POST', '/v1/groups/resettable/offsets/reset', { topic: 'orders', to, partitions });
    expect((await reset('latest')).offsets.map((o: any) => o.offset)).toEqual([10, 0]);
    expect((await reset('earliest', [0])).offsets).toEqual([{ topic: 'orders', partition: 0, offset: 0, metadata: '' }]);
    expect((await reset({ timestamp: 1_004 }, [0])).offsets[0].offset).toBe(4);
    expect((await reset({ offset: 99 }, [0])).offsets[0].offset).toBe(10); // clamped to the high watermark
    expect((await reset({ offset: 6 }, [0])).offsets[0].offset).toBe(6);
    const fetched = await ok(ctx, 'GET', '/v1/groups/resettable/offsets?topic=orders');
    expect(fetched.offsets.map((o: any) => [o.partition, o.offset, o.lag])).toEqual([[0, 6, 4], [1, 0, 0]]);
    const missing = await http(ctx, 'POST', '/v1/groups/resettable/offsets/reset', { topic: 'orders', partitions: [2], to: 'earliest' });
    expect(missing.body.error.code).toBe('UNKNOWN_TOPIC_OR_PARTITION');
    const bad = await http(ctx, 'POST', '/v1/groups/resettable/offsets/reset', { topic: 'orders', to: 'yesterday' });
    expect(bad.body.error.code).toBe('INVALID_REQUEST');
  });

  it('deletes an inactive group with its offsets, and only such a group', async () => {
    const c = await join(ctx, 'doomed', 'a', ['orders']);
    await settle([c]);
    await ok(ctx, 'POST', '/v1/groups/doomed/offsets', { memberId: c.memberId, generation: c.generation, offsets: [{ topic: 'orders', partition: 0, offset: 3 }] });
    expect((await http(ctx, 'DELETE', '/v1/groups/doomed')).body.error.code).toBe('NON_EMPTY_GROUP');
    await ok(ctx, 'DELETE', `/v1/groups/doomed/members/${c.memberId}`);
    expect((await http(ctx, 'DELETE', '/v1/groups/doomed')).status).toBe(204);
    expect((await http(ctx, 'GET', '/v1/groups/doomed')).body.error.code).toBe('GROUP_ID_NOT_FOUND');
    expect((await ok(ctx, 'GET', '/v1/groups/doomed/offsets')).offsets).toEqual([]);
    expect((await http(ctx, 'DELETE', '/v1/groups/doomed')).body.error.code).toBe('GROUP_ID_NOT_FOUND');
    const listed = (await ok(ctx, 'GET', '/v1/groups')).groups.map((g: any) => g.group);
    expect(listed).not.toContain('doomed');
    expect(listed).toContain('fenced');
  });
});
