// lib/groups/session-expiry.ts: a member is dead at its expiresAt; removal is a new generation,
// written by whichever request touches the group next.
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { emptyGroupState, type GroupMember, type GroupState } from '../../lib/groups/group-state.js';
import { expiryWrite, loadGroup, removeExpiredMembers } from '../../lib/groups/session-expiry.js';
import { mockedDdbContext } from '../support/mock-ddb.js';

const member = (expiresAt: number): GroupMember => ({ clientId: 'c', topics: ['t'], assignor: 'range', sessionTimeoutMs: 1000, expiresAt, ackGeneration: 1, joinedAt: 0 });
const state = (): GroupState => ({
  ...emptyGroupState('g', 0),
  generation: 1,
  version: 4,
  assignor: 'range',
  members: { live: member(2000), dead: member(1000) },
  assignment: { live: { t: [0] }, dead: { t: [1] } },
  partitionsPerTopic: { t: 2 },
});

describe('removeExpiredMembers', () => {
  it('removes members whose expiresAt <= now, with their assignment; the input is untouched', () => {
    const s = state();
    const out = removeExpiredMembers(s, 1000);
    expect(out.expired).toEqual(['dead']);
    expect(Object.keys(out.state.members)).toEqual(['live']);
    expect(out.state.assignment).toEqual({ live: { t: [0] } });
    expect(Object.keys(s.members)).toEqual(['live', 'dead']);
    expect(removeExpiredMembers(s, 999).state).toBe(s);
  });
  it('expiryWrite: a new generation when someone expired, nothing otherwise', () => {
    const { state: s, expired } = removeExpiredMembers(state(), 1000);
    const next = expiryWrite(s, expired, 1000);
    expect(next?.generation).toBe(2);
    expect(next?.assignment).toEqual({ live: { t: [0, 1] } });
    expect(expiryWrite(state(), [], 1000)).toBeUndefined();
  });
});

describe('loadGroup', () => {
  const item = () => ({ pk: 'GROUP#g', sk: 'META', ...state() });
  it('nobody expired: one read, no write', async () => {
    const { ctx, mock } = mockedDdbContext({ now: () => 500 });
    mock.on(GetCommand).resolves({ Item: item() });
    expect((await loadGroup(ctx, 'g'))?.version).toBe(4);
    expect(mock.commandCalls(PutCommand)).toHaveLength(0);
  });
  it('someone expired: the removal is written under the version read, and returned', async () => {
    const { ctx, mock } = mockedDdbContext({ now: () => 1500 });
    mock.on(GetCommand).resolves({ Item: item() });
    mock.on(PutCommand).resolves({});
    const g = await loadGroup(ctx, 'g');
    expect(Object.keys(g!.members)).toEqual(['live']);
    expect(g!.generation).toBe(2);
    const put = mock.commandCalls(PutCommand)[0].args[0].input;
    expect(put.ConditionExpression).toBe('version = :read');
    expect(put.ExpressionAttributeValues).toEqual({ ':read': 4 });
    expect(put.Item).toMatchObject({ version: 5, generation: 2 });
  });
  it('missing group: undefined', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({});
    expect(await loadGroup(ctx, 'g')).toBeUndefined();
  });
});
