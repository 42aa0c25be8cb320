// lib/groups/delete-group.ts: Kafka's DeleteGroups. The META delete is conditioned on the version
// read (a join meanwhile makes it retry, then refuse); offsets and the directory entry follow.
import { BatchWriteCommand, DeleteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { deleteGroup } from '../../lib/groups/delete-group.js';
import { emptyGroupState } from '../../lib/groups/group-state.js';
import { listGroups } from '../../lib/groups/describe.js';
import { joinGroup, leaveGroup } from '../../lib/groups/membership.js';
import { commitOffsets, fetchCommittedOffsets } from '../../lib/groups/offsets.js';
import { readGroup } from '../../lib/groups/group-store.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { conditionFailed, mockedDdbContext } from '../support/mock-ddb.js';
import { createTestContext } from '../support/storage.js';

vi.mock('node:timers/promises', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:timers/promises')>()),
  setTimeout: async () => undefined,
}));

const meta = (over: Record<string, unknown> = {}) => ({ pk: 'GROUP#g', sk: 'META', ...emptyGroupState('g', 0), version: 5, ...over });

describe('deleteGroup requests', () => {
  it('META under version = :read, then offsets in BatchWrite (unprocessed ones re-sent), then the directory entry', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({ Item: meta() });
    mock.on(DeleteCommand).resolves({});
    mock.on(QueryCommand).resolves({ Items: [{ topic: 't', partition: 0, offset: 1 }, { topic: 't', partition: 1, offset: 1 }] });
    mock
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { tbl: [{ DeleteRequest: { Key: { pk: 'GROUP#g', sk: 'OFFSET#t#1' } } }] } })
      .resolves({});
    await deleteGroup(ctx, 'g');
    const deletes = mock.commandCalls(DeleteCommand).map((c) => c.args[0].input);
    expect(deletes[0]).toMatchObject({ Key: { pk: 'GROUP#g', sk: 'META' }, ConditionExpression: 'version = :read', ExpressionAttributeValues: { ':read': 5 } });
    expect(deletes[1]).toMatchObject({ Key: { pk: 'GROUPS', sk: 'g' } });
    expect(deletes[1].ConditionExpression).toBeUndefined();
    const batches = mock.commandCalls(BatchWriteCommand).map((c) => c.args[0].input.RequestItems?.tbl);
    expect(batches[0]).toEqual([
      { DeleteRequest: { Key: { pk: 'GROUP#g', sk: 'OFFSET#t#0' } } },
      { DeleteRequest: { Key: { pk: 'GROUP#g', sk: 'OFFSET#t#1' } } },
    ]);
    expect(batches[1]).toEqual([{ DeleteRequest: { Key: { pk: 'GROUP#g', sk: 'OFFSET#t#1' } } }]);
  });

  it('a lost race reads again: a member who joined meanwhile makes it NON_EMPTY_GROUP', async () => {
    const { ctx, mock } = mockedDdbContext({ now: () => 0 });
    const live = { clientId: 'c', topics: [], assignor: 'range', sessionTimeoutMs: 1000, expiresAt: 10_000, ackGeneration: 0, joinedAt: 0 };
    mock.on(GetCommand).resolvesOnce({ Item: meta() }).resolves({ Item: meta({ version: 6, members: { m: live } }) });
    mock.on(DeleteCommand).rejects(conditionFailed());
    await expect(deleteGroup(ctx, 'g')).rejects.toMatchObject({ code: 'NON_EMPTY_GROUP' });
    expect(mock.commandCalls(DeleteCommand)).toHaveLength(1);
  });

  it('no META and no offsets: GROUP_ID_NOT_FOUND; no META but offsets (a racing commit): deleted', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({});
    mock.on(QueryCommand).resolvesOnce({ Items: [] }).resolves({ Items: [{ topic: 't', partition: 0, offset: 1 }] });
    mock.on(BatchWriteCommand).resolves({});
    mock.on(DeleteCommand).resolves({});
    await expect(deleteGroup(ctx, 'g')).rejects.toMatchObject({ code: 'GROUP_ID_NOT_FOUND' });
    await deleteGroup(ctx, 'g');
    expect(mock.commandCalls(BatchWriteCommand)).toHaveLength(1);
    expect(mock.commandCalls(DeleteCommand).map((c) => c.args[0].input.Key)).toEqual([{ pk: 'GROUPS', sk: 'g' }]);
  });
});

describe('against the emulator', () => {
  it('refused while members are live; afterwards META, offsets and listing are gone', async () => {
    const ctx = await createTestContext();
    await createTopic(ctx, 't', 30);
    const m = await joinGroup(ctx, { group: 'g', clientId: 'c', topics: ['t'], sessionTimeoutMs: 30_000 });
    await expect(deleteGroup(ctx, 'g')).rejects.toMatchObject({ code: 'NON_EMPTY_GROUP' });
    await leaveGroup(ctx, 'g', m.memberId);
    await commitOffsets(ctx, { group: 'g', offsets: Array.from({ length: 30 }, (_, p) => ({ topic: 't', partition: p, offset: p })) }); // more than one BatchWrite
    expect((await listGroups(ctx)).map((g) => g.group)).toEqual(['g']);
    await deleteGroup(ctx, 'g');
    expect(await readGroup(ctx, 'g')).toBeUndefined();
    expect(await fetchCommittedOffsets(ctx, 'g')).toEqual([]);
    expect(await listGroups(ctx)).toEqual([]);
    await expect(deleteGroup(ctx, 'g')).rejects.toMatchObject({ code: 'GROUP_ID_NOT_FOUND' });
  });
});
