// lib/api/group-operations.ts: the group routes' `run`, called directly, answering in their
// declared schemas, and their input checks.
import { describe, expect, it } from 'vitest';
import { groupOperations } from '../../lib/api/group-operations.js';
import type { Operation } from '../../lib/api/operation.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';

const op = (name: string): Operation => groupOperations.find((o) => o.name === name)!;
async function run(ctx: Parameters<Operation['run']>[0], name: string, input: Record<string, unknown>) {
  const o = op(name);
  const result = await o.run(ctx, input);
  expect(result.status).toBe(o.response.status);
  if (o.response.body) expect(o.response.body.parse(result.body)).toEqual(result.body);
  return result.body as any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe('group operations', () => {
  it('routes', () => {
    expect(groupOperations.map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining([
        'POST /v1/groups/{group}/members',
        'POST /v1/groups/{group}/members/{memberId}/heartbeat',
        'DELETE /v1/groups/{group}/members/{memberId}',
        'POST /v1/groups/{group}/offsets',
        'GET /v1/groups/{group}/offsets',
        'POST /v1/groups/{group}/offsets/reset',
        'GET /v1/groups',
        'GET /v1/groups/{group}',
      ]),
    );
    expect(new Set(groupOperations.map((o) => o.name)).size).toBe(groupOperations.length);
  });

  it('join, heartbeat, commit, fetch, describe, list, leave, reset, delete', async () => {
    const ctx = await createTestContext();
    await createTopic(ctx, 't', 2);
    const joined = await run(ctx, 'joinGroup', { group: 'g', clientId: 'c', topics: ['t'], assignor: 'cooperative-sticky' });
    expect(joined.assignor).toBe('sticky');
    expect(joined.assignment).toEqual([{ topic: 't', partitions: [0, 1] }]);
    const hb = await run(ctx, 'heartbeat', { group: 'g', memberId: joined.memberId, generation: joined.generation });
    expect(hb).toMatchObject({ generation: joined.generation, rebalance: false });
    await run(ctx, 'commitOffsets', { group: 'g', memberId: joined.memberId, generation: joined.generation, offsets: [{ topic: 't', partition: 0, offset: 0 }] });
    expect((await run(ctx, 'fetchOffsets', { group: 'g' })).offsets).toEqual([{ topic: 't', partition: 0, offset: 0, metadata: '', highWatermark: 0, lag: 0 }]);
    const described = await run(ctx, 'describeGroup', { group: 'g' });
    expect(described).toMatchObject({ group: 'g', state: 'Stable', members: [expect.objectContaining({ memberId: joined.memberId, clientId: 'c' })] });
    expect((await run(ctx, 'listGroups', {})).groups).toEqual([{ group: 'g', state: 'Stable', generation: joined.generation, assignor: 'sticky', members: 1 }]);
    await run(ctx, 'leaveGroup', { group: 'g', memberId: joined.memberId });
    await run(ctx, 'resetOffsets', { group: 'g', topic: 't', to: 'latest' });
    await run(ctx, 'deleteGroup', { group: 'g' });
    await expect(op('describeGroup').run(ctx, { group: 'g' })).rejects.toMatchObject({ code: 'GROUP_ID_NOT_FOUND' });
  });

  it('input checks: unknown fields, bad offsets, over-long metadata', async () => {
    const ctx = await createTestContext();
    await expect(op('joinGroup').run(ctx, { group: 'g', clientId: 'c', topics: ['t'], nope: 1 })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(op('commitOffsets').run(ctx, { group: 'g', offsets: [{ topic: 't', partition: 0, offset: -1 }] })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(op('commitOffsets').run(ctx, { group: 'g', offsets: [{ topic: 't', partition: 0, offset: 1, metadata: 'x'.repeat(5000) }] })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(op('heartbeat').run(ctx, { group: 'g', memberId: '', generation: 1 })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });
});
