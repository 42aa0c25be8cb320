// lib/groups/describe.ts: DescribeGroups (expiring dead members first) and ListGroups (read-only,
// directory Query + BatchGet, retrying unprocessed keys).
import { BatchGetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { describeGroup, listGroups, toTopicPartitions } from '../../lib/groups/describe.js';
import { emptyGroupState } from '../../lib/groups/group-state.js';
import { joinGroup } from '../../lib/groups/membership.js';
import { commitOffsets } from '../../lib/groups/offsets.js';
import { readGroup } from '../../lib/groups/group-store.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { mockedDdbContext } from '../support/mock-ddb.js';
import { createTestContext } from '../support/storage.js';

vi.mock('node:timers/promises', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:timers/promises')>()),
  setTimeout: async () => undefined,
}));

describe('toTopicPartitions', () => {
  it('sorted by topic, lists copied', () => {
    const a = { b: [1], a: [0, 2] };
    const out = toTopicPartitions(a);
    expect(out).toEqual([{ topic: 'a', partitions: [0, 2] }, { topic: 'b', partitions: [1] }]);
    out[0].partitions.push(9);
    expect(a.a).toEqual([0, 2]);
    expect(toTopicPartitions(undefined)).toEqual([]);
  });
});

describe('listGroups requests', () => {
  it('Query of the GROUPS directory, BatchGet of META (consistent), unprocessed keys re-sent, names without META skipped', async () => {
    const { ctx, mock } = mockedDdbContext({ now: () => 100 });
    const member = (expiresAt: number) => ({ clientId: 'c', topics: [], assignor: 'range', sessionTimeoutMs: 1, expiresAt, ackGeneration: 1, joinedAt: 0 });
    const item = (group: string, members: Record<string, unknown>) => ({ pk: `GROUP#${group}`, sk: 'META', ...emptyGroupState(group, 0), generation: 1, assignor: 'range', members });
    mock.on(QueryCommand).resolves({ Items: [{ sk: 'b' }, { sk: 'a' }, { sk: 'c' }, { sk: 'ghost' }] });
    mock
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { tbl: [item('b', { x: member(50), y: member(500) })] }, UnprocessedKeys: { tbl: { Keys: [{ pk: 'GROUP#a', sk: 'META' }] } } })
      .resolvesOnce({ Responses: { tbl: [item('a', { x: member(500) }), item('c', { x: member(50) })] } });
    const out = await listGroups(ctx);
    expect(out).toEqual([
      { group: 'a', state: 'Stable', generation: 1, assignor: 'range', members: 1 },
      { group: 'b', state: 'PreparingRebalance', generation: 1, assignor: 'range', members: 1 }, // one of two timed out
      { group: 'c', state: 'Empty', generation: 1, assignor: 'range', members: 0 }, // all timed out
    ]);
    expect(mock.commandCalls(QueryCommand)[0].args[0].input).toMatchObject({ ExpressionAttributeValues: { ':pk': 'GROUPS' } });
    const gets = mock.commandCalls(BatchGetCommand).map((c) => c.args[0].input.RequestItems?.tbl);
    expect(gets[0]?.ConsistentRead).toBe(true);
    expect(gets[0]?.Keys).toHaveLength(4);
    expect(gets[1]?.Keys).toEqual([{ pk: 'GROUP#a', sk: 'META' }]);
  });
});

describe('against the emulator', () => {
  it('describe: members, assignment, offsets with lag; a dead member is expired (and written) first', async () => {
    const base = await createTestContext();
    let now = 1_000_000;
    const ctx = { ...base, now: () => now };
    await createTopic(ctx, 't', 2);
    const a = await joinGroup(ctx, { group: 'g', clientId: 'ca', topics: ['t'], sessionTimeoutMs: 5_000 });
    now += 1000;
    const b = await joinGroup(ctx, { group: 'g', clientId: 'cb', topics: ['t'], sessionTimeoutMs: 60_000 });
    await commitOffsets(ctx, { group: 'g', memberId: b.memberId, generation: b.generation, offsets: [{ topic: 't', partition: 0, offset: 0 }] });
    const d1 = await describeGroup(ctx, 'g');
    expect(d1.members.map((m) => m.clientId).sort()).toEqual(['ca', 'cb']);
    expect(d1.state).toBe('PreparingRebalance'); // a gave up partition 1 and has not acknowledged yet
    expect(d1.pending).toEqual([{ topic: 't', partition: 1, from: a.memberId }]);
    expect(d1.offsets).toEqual([{ topic: 't', partition: 0, offset: 0, metadata: '', highWatermark: 0, lag: 0 }]);
    now += 10_000; // a expires
    const d2 = await describeGroup(ctx, 'g');
    expect(d2.members.map((m) => m.memberId)).toEqual([b.memberId]);
    expect(d2.generation).toBe(d1.generation + 1);
    expect(d2.members[0].assignment).toEqual([{ topic: 't', partitions: [0, 1] }]);
    expect((await readGroup(ctx, 'g'))?.generation).toBe(d2.generation); // written, not only reported
    await expect(describeGroup(ctx, 'none')).rejects.toMatchObject({ code: 'GROUP_ID_NOT_FOUND' });
  });
});
