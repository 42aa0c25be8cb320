// The group operations reached by direct Lambda invoke (`{op, ...input}`) through the groups function.
import { describe, expect, it } from 'vitest';
import { createLambdaHandler } from '../../lib/api/lambda-adapter.js';
import { functionOperations } from '../../lib/api/operations.js';
import { createTestContext } from '../support/storage.js';
import { ok } from './http-support.js';

describe('groups function, direct invoke', () => {
  it('joins, heartbeats and describes by op name', async () => {
    const ctx = await createTestContext();
    await ok(ctx, 'POST', '/v1/topics', { name: 'invoked', partitions: 2 });
    const handler = createLambdaHandler(functionOperations.groups, { context: () => ctx });
    const joined = (await handler({ op: 'joinGroup', group: 'direct', clientId: 'lambda', topics: ['invoked'] })) as { status: number; body: any };
    expect(joined.status).toBe(200);
    expect(joined.body.memberId).toMatch(/^lambda-[0-9a-f-]{36}$/);
    expect(joined.body.assignment).toEqual([{ topic: 'invoked', partitions: [0, 1] }]);
    const beat = await handler({ op: 'heartbeat', group: 'direct', memberId: joined.body.memberId, generation: joined.body.generation });
    expect(beat).toEqual({ status: 200, body: { generation: joined.body.generation, rebalance: false } });
    const described = (await handler({ op: 'describeGroup', group: 'direct' })) as { status: number; body: any };
    expect(described.body).toMatchObject({ group: 'direct', state: 'Stable', assignor: 'range' });
  });
});
