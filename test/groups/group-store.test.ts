// lib/groups/group-store.ts: the optimistic loop every group change runs through. Exact requests
// (a new group: directory entry first, then META under attribute_not_exists; an existing one: put
// under `version = :read` with version + 1), a lost race re-reads and decides again, the size cap,
// and giving up after MAX_UPDATE_ATTEMPTS with a retriable error.
import { BatchWriteCommand, DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { SluiceError } from '../../lib/errors.js';
import { emptyGroupState, type GroupState } from '../../lib/groups/group-state.js';
import {
  MAX_UPDATE_ATTEMPTS,
  deleteCommittedOffsets,
  deleteGroupMeta,
  groupFromItem,
  putCommittedOffset,
  readGroup,
  removeGroupFromDirectory,
  updateGroup,
} from '../../lib/groups/group-store.js';
import { conditionFailed, mockedDdbContext } from '../support/mock-ddb.js';
import { createTestContext } from '../support/storage.js';

vi.mock('node:timers/promises', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:timers/promises')>()),
  setTimeout: async () => undefined, // no back-off waits in these tests
}));

const META = { pk: 'GROUP#g', sk: 'META' };
const stored = (over: Partial<GroupState> = {}) => ({ ...META, ...emptyGroupState('g', 1), version: 3, ...over });

describe('groupFromItem / readGroup', () => {
  it('drops the key attributes; strongly consistent read of META', async () => {
    expect(groupFromItem(stored())).not.toHaveProperty('pk');
    expect(groupFromItem(stored())).toMatchObject({ group: 'g', version: 3 });
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({ Item: stored() });
    expect((await readGroup(ctx, 'g'))?.version).toBe(3);
    expect(mock.commandCalls(GetCommand)[0].args[0].input).toMatchObject({ Key: META, ConsistentRead: true });
  });
});

describe('updateGroup requests', () => {
  it('a new group: directory entry, then META with version 1 under attribute_not_exists(pk)', async () => {
    const { ctx, mock } = mockedDdbContext({ now: () => 50 });
    mock.on(GetCommand).resolves({});
    mock.on(PutCommand).resolves({});
    const result = await updateGroup(ctx, 'g', (current, now) => ({ next: emptyGroupState('g', now), result: current === undefined }));
    expect(result).toBe(true);
    const [dir, meta] = mock.commandCalls(PutCommand).map((c) => c.args[0].input);
    expect(dir.Item).toEqual({ pk: 'GROUPS', sk: 'g', group: 'g' });
    expect(dir.ConditionExpression).toBeUndefined();
    expect(meta.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(meta.ExpressionAttributeValues).toBeUndefined();
    expect(meta.Item).toMatchObject({ ...META, group: 'g', version: 1, updatedAt: 50 });
  });

  it('an existing group: one put under version = :read, version + 1, no directory write', async () => {
    const { ctx, mock } = mockedDdbContext({ now: () => 60 });
    mock.on(GetCommand).resolves({ Item: stored({ version: 7 }) });
    mock.on(PutCommand).resolves({});
    await updateGroup(ctx, 'g', (current) => ({ next: { ...current!, generation: 2 } }));
    const puts = mock.commandCalls(PutCommand).map((c) => c.args[0].input);
    expect(puts).toHaveLength(1);
    expect(puts[0].ConditionExpression).toBe('version = :read');
    expect(puts[0].ExpressionAttributeValues).toEqual({ ':read': 7 });
    expect(puts[0].Item).toMatchObject({ version: 8, generation: 2, updatedAt: 60 });
  });

  it('no `next`: nothing written; the error is thrown, else the result returned', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({ Item: stored() });
    expect(await updateGroup(ctx, 'g', () => ({ result: 'r' }))).toBe('r');
    await expect(updateGroup(ctx, 'g', () => ({ error: new SluiceError('UNKNOWN_MEMBER_ID', 'x') }))).rejects.toMatchObject({ code: 'UNKNOWN_MEMBER_ID' });
    expect(mock.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('a decision with both `next` and `error` writes, then throws', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({ Item: stored() });
    mock.on(PutCommand).resolves({});
    await expect(updateGroup(ctx, 'g', (c) => ({ next: c, error: new SluiceError('ILLEGAL_GENERATION', 'x') }))).rejects.toMatchObject({ code: 'ILLEGAL_GENERATION' });
    expect(mock.commandCalls(PutCommand)).toHaveLength(1);
  });

  it('a lost race re-reads and decides again on the newer state', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolvesOnce({ Item: stored({ version: 1 }) }).resolves({ Item: stored({ version: 2 }) });
    mock.on(PutCommand).rejectsOnce(conditionFailed()).resolves({});
    const seen: number[] = [];
    await updateGroup(ctx, 'g', (c) => {
      seen.push(c!.version);
      return { next: c };
    });
    expect(seen).toEqual([1, 2]);
    expect(mock.commandCalls(PutCommand)[1].args[0].input.ExpressionAttributeValues).toEqual({ ':read': 2 });
  });

  it('other failures are thrown at once', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({ Item: stored() });
    mock.on(PutCommand).rejects(Object.assign(new Error('x'), { name: 'InternalServerError' }));
    await expect(updateGroup(ctx, 'g', (c) => ({ next: c }))).rejects.toMatchObject({ name: 'InternalServerError' });
    expect(mock.commandCalls(PutCommand)).toHaveLength(1);
  });

  it(`gives up with a retriable REQUEST_TIMED_OUT after ${MAX_UPDATE_ATTEMPTS} lost races`, async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({ Item: stored() });
    mock.on(PutCommand).rejects(conditionFailed());
    const e = await updateGroup(ctx, 'g', (c) => ({ next: c })).catch((err: SluiceError) => err);
    expect(e).toMatchObject({ code: 'REQUEST_TIMED_OUT', retriable: true });
    expect(mock.commandCalls(PutCommand)).toHaveLength(MAX_UPDATE_ATTEMPTS);
  });

  it('a state that would exceed the item cap is INVALID_REQUEST, with nothing written', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({ Item: stored() });
    const huge = { ...emptyGroupState('g', 0), partitionsPerTopic: { ['x'.repeat(400_000)]: 1 } };
    await expect(updateGroup(ctx, 'g', () => ({ next: huge }))).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(mock.commandCalls(PutCommand)).toHaveLength(0);
  });
});

describe('the other group item writes (exact requests)', () => {
  it('deleteGroupMeta: only the version read; refused = false', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(DeleteCommand).resolvesOnce({}).rejectsOnce(conditionFailed()).rejects(Object.assign(new Error('x'), { name: 'InternalServerError' }));
    expect(await deleteGroupMeta(ctx, 'g', 9)).toBe(true);
    expect(mock.commandCalls(DeleteCommand)[0].args[0].input).toMatchObject({ Key: META, ConditionExpression: 'version = :read', ExpressionAttributeValues: { ':read': 9 } });
    expect(await deleteGroupMeta(ctx, 'g', 9)).toBe(false);
    await expect(deleteGroupMeta(ctx, 'g', 9)).rejects.toMatchObject({ name: 'InternalServerError' });
  });
  it('removeGroupFromDirectory: unconditional delete of GROUPS/<group>', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(DeleteCommand).resolves({});
    await removeGroupFromDirectory(ctx, 'g');
    const input = mock.commandCalls(DeleteCommand)[0].args[0].input;
    expect(input.Key).toEqual({ pk: 'GROUPS', sk: 'g' });
    expect(input.ConditionExpression).toBeUndefined();
  });
  it('putCommittedOffset: unless a newer generation committed; refused = false', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(PutCommand).resolvesOnce({}).rejects(conditionFailed());
    const offset = { topic: 't', partition: 2, offset: 40, metadata: 'm', commitGeneration: 6, memberId: 'a', committedAt: 1 };
    expect(await putCommittedOffset(ctx, 'g', offset)).toBe(true);
    const input = mock.commandCalls(PutCommand)[0].args[0].input;
    expect(input.ConditionExpression).toBe('attribute_not_exists(pk) OR commitGeneration <= :generation');
    expect(input.ExpressionAttributeValues).toEqual({ ':generation': 6 });
    expect(input.Item).toEqual({ pk: 'GROUP#g', sk: 'OFFSET#t#2', group: 'g', ...offset });
    expect(await putCommittedOffset(ctx, 'g', offset)).toBe(false);
  });
  it('deleteCommittedOffsets: 25 keys per BatchWrite, unprocessed ones re-sent', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { tbl: [{ DeleteRequest: { Key: { pk: 'GROUP#g', sk: 'OFFSET#t#3' } } }] } })
      .resolves({});
    await deleteCommittedOffsets(ctx, 'g', Array.from({ length: 30 }, (_, p) => ({ topic: 't', partition: p })));
    const batches = mock.commandCalls(BatchWriteCommand).map((c) => c.args[0].input.RequestItems?.tbl ?? []);
    expect(batches.map((b) => b.length)).toEqual([25, 1, 5]);
    expect(batches[1]).toEqual([{ DeleteRequest: { Key: { pk: 'GROUP#g', sk: 'OFFSET#t#3' } } }]);
    await deleteCommittedOffsets(ctx, 'g', []);
    expect(mock.commandCalls(BatchWriteCommand)).toHaveLength(3);
  });
});

describe('against the emulator', () => {
  it('concurrent increments through updateGroup are serialised: none is lost', async () => {
    const ctx = await createTestContext();
    await Promise.all(
      Array.from({ length: 10 }, () =>
        updateGroup(ctx, 'g', (current, now) => {
          const base = current ?? emptyGroupState('g', now);
          return { next: { ...base, generation: base.generation + 1 } };
        }),
      ),
    );
    const g = await readGroup(ctx, 'g');
    expect(g?.generation).toBe(10);
    expect(g?.version).toBe(10);
  });
});
