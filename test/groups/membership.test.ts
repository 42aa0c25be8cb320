// lib/groups/membership.ts: the pure transitions of JoinGroup / Heartbeat / LeaveGroup, and the
// wrappers' round trip against the emulator.
import { describe, expect, it } from 'vitest';
import { emptyGroupState, MAX_MEMBERS, type GroupMember, type GroupState } from '../../lib/groups/group-state.js';
import { applyHeartbeat, applyJoin, applyLeave, heartbeat, joinGroup, leaveGroup } from '../../lib/groups/membership.js';
import { readGroup } from '../../lib/groups/group-store.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';

const join = (over: Partial<Parameters<typeof applyJoin>[1]> = {}) => ({ group: 'g', clientId: 'c', topics: ['t'], sessionTimeoutMs: 1000, ...over });
const counts = { t: 4 };

function joined(ids: string[], now = 0): GroupState {
  let state: GroupState | undefined;
  for (const id of ids) state = applyJoin(state, join(), counts, now, () => id).next;
  return state!;
}

describe('applyJoin', () => {
  it('a new member gets a generated id, generation 1, range by default, the whole topic', () => {
    const d = applyJoin(undefined, join(), counts, 100, () => 'm1');
    expect(d.result).toEqual({ memberId: 'm1', generation: 1, assignor: 'range', sessionTimeoutMs: 1000, assignment: { t: [0, 1, 2, 3] } });
    expect(d.next?.members.m1).toMatchObject({ clientId: 'c', topics: ['t'], expiresAt: 1100, ackGeneration: 0, joinedAt: 100 });
  });
  it('generated ids are <clientId>-<uuid>', () => {
    expect(applyJoin(undefined, join({ clientId: 'app' }), counts, 0).result?.memberId).toMatch(/^app-[0-9a-f-]{36}$/);
  });
  it('a rejoin that changes nothing keeps the generation; a changed subscription starts a new one', () => {
    const state = joined(['a']);
    expect(applyJoin(state, join({ memberId: 'a' }), counts, 1).next?.generation).toBe(1);
    expect(applyJoin(state, join({ memberId: 'a', topics: ['t', 'u'] }), { ...counts, u: 1 }, 1).next?.generation).toBe(2);
  });
  it('topics are de-duplicated and sorted', () => {
    expect(applyJoin(undefined, join({ topics: ['u', 't', 'u'] }), counts, 0, () => 'a').next?.members.a.topics).toEqual(['t', 'u']);
  });
  it('an unknown memberId is UNKNOWN_MEMBER_ID', () => {
    expect(applyJoin(joined(['a']), join({ memberId: 'zz' }), counts, 0).error?.code).toBe('UNKNOWN_MEMBER_ID');
  });
  it('another assignor while others are live is INCONSISTENT_GROUP_PROTOCOL; alone, the member may switch', () => {
    const state = joined(['a']);
    expect(applyJoin(state, join({ assignor: 'sticky' }), counts, 0).error?.code).toBe('INCONSISTENT_GROUP_PROTOCOL');
    expect(applyJoin(state, join({ memberId: 'a', assignor: 'sticky' }), counts, 0).result?.assignor).toBe('sticky');
    // without an assignor, a joiner takes the group's
    const sticky = applyJoin(undefined, join({ assignor: 'sticky' }), counts, 0, () => 's').next!;
    expect(applyJoin(sticky, join(), counts, 0, () => 'n').result?.assignor).toBe('sticky');
  });
  it(`the ${MAX_MEMBERS + 1}th member is refused; a known one may still rejoin`, () => {
    const members: Record<string, GroupMember> = {};
    for (let i = 0; i < MAX_MEMBERS; i++) members[`m${i}`] = { clientId: 'c', topics: ['t'], assignor: 'range', sessionTimeoutMs: 1000, expiresAt: 1e9, ackGeneration: 0, joinedAt: 0 };
    const full: GroupState = { ...emptyGroupState('g', 0), assignor: 'range', members };
    expect(applyJoin(full, join(), counts, 0).error?.code).toBe('INVALID_REQUEST');
    expect(applyJoin(full, join({ memberId: 'm0' }), counts, 0).error).toBeUndefined();
  });
  it('dead members are removed by the join, and a refused join still writes that removal', () => {
    const state = joined(['a', 'b'], 0); // both expire at 1000
    const d = applyJoin(state, join({ memberId: 'zz' }), counts, 5000);
    expect(d.error?.code).toBe('UNKNOWN_MEMBER_ID');
    expect(d.next && Object.keys(d.next.members)).toEqual([]);
  });
});

describe('applyHeartbeat', () => {
  it('extends the session and records the acknowledged generation; rebalance when behind', () => {
    const state = joined(['a', 'b'], 0); // generation 2
    const d = applyHeartbeat(state, 'g', 'a', 1, 500);
    expect(d.result).toEqual({ generation: state.generation, rebalance: true });
    expect(d.next?.members.a).toMatchObject({ expiresAt: 1500, ackGeneration: 1 });
    // a acknowledging generation 2 lets the withheld partitions go to b: generation 3, rejoin
    const acked = applyHeartbeat(state, 'g', 'a', state.generation, 500);
    expect(acked.result).toEqual({ generation: state.generation + 1, rebalance: true });
    expect(acked.next?.assignment).toEqual({ a: { t: [0, 1] }, b: { t: [2, 3] } });
    // a lone member up to date: no rebalance, no new generation
    const single = joined(['a']);
    expect(applyHeartbeat(single, 'g', 'a', single.generation, 500).result).toEqual({ generation: 1, rebalance: false });
  });
  it('unknown member, missing group, or a generation from the future are refused', () => {
    const state = joined(['a']);
    expect(applyHeartbeat(undefined, 'g', 'a', 1, 0).error?.code).toBe('UNKNOWN_MEMBER_ID');
    expect(applyHeartbeat(state, 'g', 'x', 1, 0).error?.code).toBe('UNKNOWN_MEMBER_ID');
    expect(applyHeartbeat(state, 'g', 'a', 99, 0).error?.code).toBe('ILLEGAL_GENERATION');
  });
  it('a member past its expiry is dead even if it heartbeats', () => {
    expect(applyHeartbeat(joined(['a'], 0), 'g', 'a', 1, 1000).error?.code).toBe('UNKNOWN_MEMBER_ID');
  });
});

describe('applyLeave', () => {
  it('removes the member and its assignment; a new generation hands its partitions over at once', () => {
    const state = joined(['a', 'b']);
    const d = applyLeave(state, 'g', 'a', 1);
    expect(Object.keys(d.next!.members)).toEqual(['b']);
    expect(d.next!.generation).toBe(state.generation + 1);
    expect(d.next!.assignment).toEqual({ b: { t: [0, 1, 2, 3] } });
    expect(d.next!.pending).toEqual([]);
  });
  it('unknown member or group: UNKNOWN_MEMBER_ID', () => {
    expect(applyLeave(undefined, 'g', 'a', 0).error?.code).toBe('UNKNOWN_MEMBER_ID');
    expect(applyLeave(joined(['a']), 'g', 'b', 0).error?.code).toBe('UNKNOWN_MEMBER_ID');
  });
});

describe('against the emulator', () => {
  it('join reads partition counts, heartbeat acknowledges, leave empties the group', async () => {
    const ctx = await createTestContext();
    await createTopic(ctx, 't', 3);
    const a = await joinGroup(ctx, { group: 'g', clientId: 'c', topics: ['t', 'later'], sessionTimeoutMs: 10_000 });
    expect(a.assignment).toEqual({ t: [0, 1, 2] });
    expect(await heartbeat(ctx, 'g', a.memberId, a.generation)).toEqual({ generation: a.generation, rebalance: false });
    expect((await readGroup(ctx, 'g'))?.members[a.memberId].ackGeneration).toBe(a.generation);
    await leaveGroup(ctx, 'g', a.memberId);
    expect((await readGroup(ctx, 'g'))?.members).toEqual({});
    await expect(heartbeat(ctx, 'g', a.memberId, a.generation)).rejects.toMatchObject({ code: 'UNKNOWN_MEMBER_ID' });
  });
});
