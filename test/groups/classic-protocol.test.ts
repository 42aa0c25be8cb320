// Kafka's classic group protocol as pure transitions (lib/groups/classic-*.ts): JoinGroup,
// SyncGroup, Heartbeat and LeaveGroup on the group item with a simulated clock, case by case and
// as a property: simulated Kafka consumers (eager, like kafkajs) join, sync, heartbeat, leave and
// fall silent at random, and the coordinator must keep every generation consistent and, once the
// clients cooperate, bring every live one into one Stable generation.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SluiceError } from '../../lib/errors.js';
import { applyClassicHeartbeat } from '../../lib/groups/classic-heartbeat.js';
import { applyClassicJoin, joinWaitOutcome, type ClassicJoinOutcome, type ClassicJoinRequest } from '../../lib/groups/classic-join.js';
import { applyClassicLeave } from '../../lib/groups/classic-leave.js';
import { advanceClassic, selectProtocol, type ClassicJoinResponse } from '../../lib/groups/classic-state.js';
import { applyClassicSync } from '../../lib/groups/classic-sync.js';
import { decodeAssignment, decodeSubscriptionTopics, encodeAssignment, encodeSubscription } from '../../lib/groups/consumer-protocol.js';
import { kafkaDescription } from '../../lib/groups/classic-describe.js';
import { groupStateName, type GroupState } from '../../lib/groups/group-state.js';
import type { GroupDecision } from '../../lib/groups/group-store.js';
import { applyJoin } from '../../lib/groups/membership.js';

const SESSION = 10_000;
const REBALANCE = 20_000;
const DELAY = 3000;
const PARTITIONS = 6;

const join = (over: Partial<ClassicJoinRequest> = {}): ClassicJoinRequest => ({
  group: 'g',
  memberId: '',
  groupInstanceId: null,
  protocolType: 'consumer',
  protocols: [{ name: 'range', metadata: encodeSubscription(['t']) }],
  sessionTimeoutMs: SESSION,
  rebalanceTimeoutMs: REBALANCE,
  clientId: 'c',
  clientHost: '/127.0.0.1',
  requireKnownMemberId: false,
  ...over,
});

/** Applies a decision like updateGroup does: the write (if any) lands, then the result or error. */
class Store {
  state: GroupState | undefined;
  apply<T>(d: GroupDecision<T>): { result?: T; error?: SluiceError } {
    if (d.next) this.state = { ...d.next, version: (this.state?.version ?? 0) + 1 };
    return d.error ? { error: d.error } : { result: d.result };
  }
}

let ids = 0;
const gen = () => () => `m${String(++ids).padStart(4, '0')}`;

describe('JoinGroup', () => {
  it('v4+: a member without id gets MEMBER_ID_REQUIRED with its id, which the group then accepts', () => {
    const s = new Store();
    const first = s.apply(applyClassicJoin(undefined, join({ requireKnownMemberId: true }), 0, { generateId: () => 'a' }));
    expect(first.error?.code).toBe('MEMBER_ID_REQUIRED');
    expect(first.error?.details.memberId).toBe('a');
    expect(s.state?.classic?.pendingMembers).toEqual({ a: SESSION });
    expect(Object.keys(s.state!.members)).toEqual([]);
    const second = s.apply(applyClassicJoin(s.state, join({ memberId: 'a', requireKnownMemberId: true }), 10, { initialRebalanceDelayMs: 0 }));
    expect(second.result).toMatchObject({ kind: 'answer', response: { generation: 1, leader: 'a', memberId: 'a', protocol: 'range' } });
    expect(s.state?.classic?.pendingMembers).toEqual({});
    expect(groupStateName(s.state!)).toBe('CompletingRebalance');
  });
  it('an unknown member id is UNKNOWN_MEMBER_ID and writes nothing', () => {
    const d = applyClassicJoin(undefined, join({ memberId: 'ghost' }), 0);
    expect(d.error?.code).toBe('UNKNOWN_MEMBER_ID');
    expect(d.next).toBeUndefined();
  });
  it('bad input: session timeout, protocols, empty group id, oversized metadata', () => {
    expect(applyClassicJoin(undefined, join({ sessionTimeoutMs: 10 }), 0).error?.code).toBe('INVALID_SESSION_TIMEOUT');
    expect(applyClassicJoin(undefined, join({ sessionTimeoutMs: 10_000_000 }), 0).error?.code).toBe('INVALID_SESSION_TIMEOUT');
    expect(applyClassicJoin(undefined, join({ protocols: [] }), 0).error?.code).toBe('INCONSISTENT_GROUP_PROTOCOL');
    expect(applyClassicJoin(undefined, join({ protocolType: '' }), 0).error?.code).toBe('INCONSISTENT_GROUP_PROTOCOL');
    expect(applyClassicJoin(undefined, join({ group: '' }), 0).error?.code).toBe('INVALID_GROUP_ID');
    const big = applyClassicJoin(undefined, join({ protocols: [{ name: 'range', metadata: Buffer.alloc(20_000) }] }), 0);
    expect(big.error?.code).toBe('INVALID_REQUEST');
    expect(big.error?.message).toMatch(/at most 16384/);
    expect(big.next).toBeUndefined();
  });
  it('a group with live Sluice-native members refuses Kafka members, and the other way round', () => {
    const native = applyJoin(undefined, { group: 'g', clientId: 'c', topics: ['t'], sessionTimeoutMs: SESSION }, { t: 2 }, 0, () => 'n').next!;
    expect(applyClassicJoin(native, join(), 1).error?.code).toBe('INCONSISTENT_GROUP_PROTOCOL');
    const kafka = applyClassicJoin(undefined, join(), 0, { generateId: () => 'k' }).next!;
    expect(applyJoin(kafka, { group: 'g', clientId: 'c', topics: ['t'], sessionTimeoutMs: SESSION }, { t: 2 }, 1).error?.code).toBe('INCONSISTENT_GROUP_PROTOCOL');
    // Once the native member expired, the group turns into a Kafka group and keeps its generation.
    const after = applyClassicJoin(native, join(), SESSION + 1, { generateId: () => 'k', initialRebalanceDelayMs: 0 });
    expect(after.next?.classic?.protocolType).toBe('consumer');
    expect(after.next?.generation).toBeGreaterThan(native.generation);
  });
  it('protocol type and protocols must match the live members', () => {
    const s = new Store();
    s.apply(applyClassicJoin(undefined, join({ protocols: [{ name: 'range', metadata: Buffer.alloc(0) }, { name: 'roundrobin', metadata: Buffer.alloc(0) }] }), 0, { generateId: () => 'a' }));
    expect(applyClassicJoin(s.state, join({ protocolType: 'connect' }), 1).error?.code).toBe('INCONSISTENT_GROUP_PROTOCOL');
    expect(applyClassicJoin(s.state, join({ protocols: [{ name: 'sticky', metadata: Buffer.alloc(0) }] }), 1).error?.code).toBe('INCONSISTENT_GROUP_PROTOCOL');
    expect(applyClassicJoin(s.state, join({ protocols: [{ name: 'roundrobin', metadata: Buffer.alloc(0) }] }), 1, { generateId: () => 'b' }).error).toBeUndefined();
  });
  it('the first join of an Empty group waits out the initial delay; members joining meanwhile are in the same generation', () => {
    const s = new Store();
    const a = s.apply(applyClassicJoin(undefined, join(), 0, { generateId: () => 'a', initialRebalanceDelayMs: DELAY })).result!;
    expect(a).toEqual({ kind: 'waiting', memberId: 'a', generation: 0 });
    s.apply(applyClassicJoin(s.state, join(), 1000, { generateId: () => 'b', initialRebalanceDelayMs: DELAY }));
    expect(joinWaitOutcome(s.state, 'g', 'a', 0)).toBeUndefined();
    expect(advanceClassic(s.state!, 3500).changed).toBe(false); // extended to 1000 + DELAY
    const advanced = advanceClassic(s.state!, 4000);
    expect(advanced.changed).toBe(true);
    s.state = advanced.state;
    const ra = joinWaitOutcome(s.state, 'g', 'a', 0)!;
    const rb = joinWaitOutcome(s.state, 'g', 'b', 0)!;
    expect([ra.generation, rb.generation]).toEqual([1, 1]);
    expect(ra.leader).toBe('a');
    expect(ra.members.map((m) => m.memberId)).toEqual(['a', 'b']);
    expect(rb.members).toEqual([]);
    expect(decodeSubscriptionTopics(ra.members[1].metadata)).toEqual(['t']);
  });
  it('members that do not rejoin by the deadline are removed; a follower rejoining a Stable group is answered at once; the leader starts a rebalance', () => {
    const s = stableGroup(['a', 'b', 'c']);
    // follower rejoins with the same protocols: the current generation at once
    const follower = s.apply(applyClassicJoin(s.state, join({ memberId: 'b' }), 100)).result!;
    expect(follower).toMatchObject({ kind: 'answer', response: { generation: 1, leader: 'a', members: [] } });
    // the leader rejoins: a rebalance; b rejoins, c does not
    expect(s.apply(applyClassicJoin(s.state, join({ memberId: 'a' }), 200)).result).toEqual({ kind: 'waiting', memberId: 'a', generation: 1 });
    expect(groupStateName(s.state!)).toBe('PreparingRebalance');
    expect(s.apply(applyClassicHeartbeat(s.state, { group: 'g', memberId: 'c', generation: 1, groupInstanceId: null }, 300)).error?.code).toBe('REBALANCE_IN_PROGRESS');
    s.apply(applyClassicJoin(s.state, join({ memberId: 'b' }), 400));
    // c keeps its session alive but does not rejoin: the phase lasts until the deadline
    for (const at of [10_000, 16_000]) s.apply(applyClassicHeartbeat(s.state, { group: 'g', memberId: 'c', generation: 1, groupInstanceId: null }, at));
    expect(advanceClassic(s.state!, 200 + REBALANCE - 1).changed).toBe(false);
    s.state = advanceClassic(s.state!, 200 + REBALANCE).state;
    expect(Object.keys(s.state.members).sort()).toEqual(['a', 'b']);
    expect(s.state.generation).toBe(2);
    expect(() => joinWaitOutcome(s.state, 'g', 'c', 1)).toThrow(expect.objectContaining({ code: 'UNKNOWN_MEMBER_ID' }));
  });
  it('protocol selection: most first-choice votes among protocols all support', () => {
    const m = (...names: string[]) => ({ clientHost: '', rebalanceTimeoutMs: 1, protocols: names.map((name) => ({ name, metadata: '' })), awaitingJoin: true, joinedGeneration: 0, memberAssignment: '' });
    expect(selectProtocol([m('range', 'roundrobin'), m('roundrobin', 'range'), m('roundrobin')])).toBe('roundrobin');
    expect(selectProtocol([m('sticky', 'range', 'roundrobin'), m('range', 'sticky')])).toBe('sticky');
  });
  it('static members: a restart takes over the instance and the old id is fenced', () => {
    const s = new Store();
    s.apply(applyClassicJoin(undefined, join({ groupInstanceId: 'i1' }), 0, { generateId: () => 'old', initialRebalanceDelayMs: 0 }));
    const taken = s.apply(applyClassicJoin(s.state, join({ groupInstanceId: 'i1', requireKnownMemberId: true }), 10, { generateId: () => 'new' }));
    expect(taken.error).toBeUndefined();
    expect(Object.keys(s.state!.members)).toEqual(['new']);
    expect(s.apply(applyClassicHeartbeat(s.state, { group: 'g', memberId: 'old', generation: s.state!.generation, groupInstanceId: 'i1' }, 20)).error?.code).toBe('FENCED_INSTANCE_ID');
    expect(applyClassicJoin(s.state, join({ memberId: 'old', groupInstanceId: 'i1' }), 20).error?.code).toBe('FENCED_INSTANCE_ID');
  });
});

/** A Stable group of `members` (the first is the leader) with a round-robin assignment of t's partitions. */
function stableGroup(members: string[]): Store {
  const s = new Store();
  for (const id of members) s.apply(applyClassicJoin(s.state, join(), 0, { generateId: () => id, initialRebalanceDelayMs: DELAY }));
  s.state = advanceClassic(s.state!, DELAY).state;
  const leader = joinWaitOutcome(s.state, 'g', members[0], 0)!;
  s.apply(applyClassicSync(s.state, { group: 'g', memberId: members[0], generation: leader.generation, groupInstanceId: null, assignments: roundRobin(leader) }, DELAY));
  return s;
}

function roundRobin(leader: ClassicJoinResponse) {
  const ids = leader.members.map((m) => m.memberId);
  const plan = new Map<string, number[]>(ids.map((id) => [id, []]));
  for (let p = 0; p < PARTITIONS; p++) plan.get(ids[p % ids.length])!.push(p);
  return ids.map((memberId) => ({ memberId, assignment: encodeAssignment({ t: plan.get(memberId)! }) }));
}

describe('SyncGroup, Heartbeat, LeaveGroup', () => {
  it("followers wait for the leader; the leader's assignment is stored decoded and in bytes; the group is Stable", () => {
    const s = new Store();
    for (const id of ['a', 'b']) s.apply(applyClassicJoin(s.state, join(), 0, { generateId: () => id, initialRebalanceDelayMs: DELAY }));
    s.state = advanceClassic(s.state!, DELAY).state;
    const leader = joinWaitOutcome(s.state, 'g', 'a', 0)!;
    const follower = s.apply(applyClassicSync(s.state, { group: 'g', memberId: 'b', generation: 1, groupInstanceId: null, assignments: [] }, DELAY + 1));
    expect(follower).toEqual({ result: undefined });
    const mine = s.apply(applyClassicSync(s.state, { group: 'g', memberId: 'a', generation: 1, groupInstanceId: null, assignments: roundRobin(leader) }, DELAY + 2)).result!;
    expect(decodeAssignment(mine)).toEqual({ t: [0, 2, 4] });
    expect(s.state!.assignment).toEqual({ a: { t: [0, 2, 4] }, b: { t: [1, 3, 5] } });
    expect(groupStateName(s.state!)).toBe('Stable');
    const theirs = s.apply(applyClassicSync(s.state, { group: 'g', memberId: 'b', generation: 1, groupInstanceId: null, assignments: [] }, DELAY + 3)).result!;
    expect(decodeAssignment(theirs)).toEqual({ t: [1, 3, 5] });
    const description = kafkaDescription(s.state!);
    expect(description).toMatchObject({ state: 'Stable', protocolType: 'consumer', protocol: 'range' });
    expect(description.members.map((m) => decodeAssignment(m.assignment))).toEqual([{ t: [0, 2, 4] }, { t: [1, 3, 5] }]);
  });
  it('sync errors: unknown member, other generation, rebalance in progress; oversized assignment', () => {
    const s = stableGroup(['a', 'b']);
    const sync = (over: object) => applyClassicSync(s.state, { group: 'g', memberId: 'a', generation: 1, groupInstanceId: null, assignments: [], ...over }, 10).error?.code;
    expect(sync({ memberId: 'zz' })).toBe('UNKNOWN_MEMBER_ID');
    expect(sync({ generation: 0 })).toBe('ILLEGAL_GENERATION');
    s.apply(applyClassicJoin(s.state, join(), 10, { generateId: () => 'c' }));
    expect(sync({})).toBe('REBALANCE_IN_PROGRESS');
    const t = new Store();
    for (const id of ['a']) t.apply(applyClassicJoin(t.state, join(), 0, { generateId: () => id, initialRebalanceDelayMs: 0 }));
    expect(applyClassicSync(t.state, { group: 'g', memberId: 'a', generation: 1, groupInstanceId: null, assignments: [{ memberId: 'a', assignment: Buffer.alloc(20_000) }] }, 1).error?.code).toBe('INVALID_REQUEST');
  });
  it('heartbeats: errors in Kafka order, and a write only every third of a session', () => {
    const s = stableGroup(['a', 'b']);
    const beat = (over: object, now: number) => applyClassicHeartbeat(s.state, { group: 'g', memberId: 'b', generation: 1, groupInstanceId: null, ...over }, now);
    expect(beat({ memberId: 'zz' }, DELAY + 1).error?.code).toBe('UNKNOWN_MEMBER_ID');
    expect(beat({ generation: 2 }, DELAY + 1).error?.code).toBe('ILLEGAL_GENERATION');
    expect(applyClassicHeartbeat(undefined, { group: 'g', memberId: 'b', generation: 1, groupInstanceId: null }, 0).error?.code).toBe('UNKNOWN_MEMBER_ID');
    s.apply(beat({}, DELAY + 1)); // acknowledges generation 1: a write
    expect(beat({}, DELAY + 2)).toEqual({});
    expect(beat({}, DELAY + SESSION / 3 + 10).next).toBeDefined();
  });
  it('a silent member expires, which starts a rebalance; the live member is told to rejoin', () => {
    const s = stableGroup(['a', 'b']);
    s.apply(applyClassicHeartbeat(s.state, { group: 'g', memberId: 'a', generation: 1, groupInstanceId: null }, DELAY + SESSION - 1000));
    const d = s.apply(applyClassicHeartbeat(s.state, { group: 'g', memberId: 'a', generation: 1, groupInstanceId: null }, DELAY + SESSION + 1));
    expect(d.error?.code).toBe('REBALANCE_IN_PROGRESS');
    expect(Object.keys(s.state!.members)).toEqual(['a']);
  });
  it('LeaveGroup v3: a batch with per-member answers; the last member leaving empties the group with a new generation', () => {
    const s = stableGroup(['a', 'b']);
    const left = s.apply(applyClassicLeave(s.state, [{ memberId: 'a', groupInstanceId: null }, { memberId: 'zz', groupInstanceId: null }], 10)).result!;
    expect(left).toEqual([{ memberId: 'a', groupInstanceId: null }, { memberId: 'zz', groupInstanceId: null, error: 'UNKNOWN_MEMBER_ID' }]);
    expect(groupStateName(s.state!)).toBe('PreparingRebalance');
    s.apply(applyClassicLeave(s.state, [{ memberId: 'b', groupInstanceId: null }], 20));
    expect(groupStateName(s.state!)).toBe('Empty');
    expect(s.state!.generation).toBe(2);
  });
});

// ---------------------------------------------------------------------------------------------
// Property: simulated eager consumers against the transitions.

type Client =
  | { id: number; memberId: string; phase: 'idle' }
  | { id: number; memberId: string; phase: 'joining'; waitingFrom: number }
  | { id: number; memberId: string; phase: 'syncing'; join: ClassicJoinResponse }
  | { id: number; memberId: string; phase: 'stable'; generation: number; partitions: number[] };

type Op = { kind: 'start' } | { kind: 'step'; pick: number } | { kind: 'leave'; pick: number } | { kind: 'silence'; pick: number } | { kind: 'tick'; ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'start' as const }) },
  { weight: 12, arbitrary: fc.nat().map((pick) => ({ kind: 'step' as const, pick })) },
  { weight: 1, arbitrary: fc.nat().map((pick) => ({ kind: 'leave' as const, pick })) },
  { weight: 1, arbitrary: fc.nat().map((pick) => ({ kind: 'silence' as const, pick })) },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 4000 }).map((ms) => ({ kind: 'tick' as const, ms })) },
);

class Simulation {
  readonly store = new Store();
  now = 1_000_000;
  clients: Client[] = [];
  silent = new Set<number>();
  nextClient = 0;
  /** Per generation: the leader and protocol every JoinGroup answer named. */
  readonly answers = new Map<number, { leader: string; protocol: string }>();
  lastGeneration = 0;

  private replace(c: Client): void {
    this.clients = this.clients.map((x) => (x.id === c.id ? c : x));
  }

  private restart(c: Client, error: SluiceError): void {
    const keepId = error.code === 'REBALANCE_IN_PROGRESS' || error.code === 'ILLEGAL_GENERATION';
    this.replace({ id: c.id, memberId: keepId ? c.memberId : '', phase: 'idle' });
  }

  private answered(c: Client, r: ClassicJoinResponse): void {
    const seen = this.answers.get(r.generation);
    if (seen) expect({ leader: r.leader, protocol: r.protocol }).toEqual(seen);
    else this.answers.set(r.generation, { leader: r.leader, protocol: r.protocol });
    if (r.leader === r.memberId) expect(r.members.map((m) => m.memberId)).toContain(r.memberId);
    this.replace({ id: c.id, memberId: r.memberId, phase: 'syncing', join: r });
  }

  step(c: Client): void {
    const now = this.now;
    const s = this.store;
    if (c.phase === 'idle') {
      const out = s.apply(applyClassicJoin(s.state, join({ memberId: c.memberId, requireKnownMemberId: true }), now, { generateId: gen(), initialRebalanceDelayMs: DELAY }));
      if (out.error?.code === 'MEMBER_ID_REQUIRED') return this.replace({ id: c.id, memberId: out.error.details.memberId as string, phase: 'idle' });
      if (out.error) return this.restart(c, out.error);
      const o = out.result as ClassicJoinOutcome;
      if (o.kind === 'answer') return this.answered(c, o.response);
      return this.replace({ id: c.id, memberId: o.memberId, phase: 'joining', waitingFrom: o.generation });
    }
    if (c.phase === 'joining') {
      // What a waiting JoinGroup does at each poll: write due bookkeeping, then read its answer.
      const advanced = advanceClassic(s.state!, now);
      if (advanced.changed) s.apply({ next: advanced.state });
      try {
        const r = joinWaitOutcome(s.state, 'g', c.memberId, c.waitingFrom);
        if (r) this.answered(c, r);
      } catch (e) {
        this.restart(c, e as SluiceError);
      }
      return;
    }
    if (c.phase === 'syncing') {
      const leader = c.join.leader === c.memberId;
      const out = s.apply(
        applyClassicSync(s.state, { group: 'g', memberId: c.memberId, generation: c.join.generation, groupInstanceId: null, assignments: leader ? roundRobin(c.join) : [] }, now),
      );
      if (out.error) return this.restart(c, out.error);
      if (out.result === undefined) return;
      return this.replace({ id: c.id, memberId: c.memberId, phase: 'stable', generation: c.join.generation, partitions: decodeAssignment(out.result)?.t ?? [] });
    }
    const out = s.apply(applyClassicHeartbeat(s.state, { group: 'g', memberId: c.memberId, generation: c.generation, groupInstanceId: null }, now));
    if (out.error) this.restart(c, out.error);
  }

  run(op: Op): void {
    const active = this.clients.filter((c) => !this.silent.has(c.id));
    const pick = (n: number) => active[n % active.length];
    switch (op.kind) {
      case 'start':
        if (this.clients.length < 6) this.clients.push({ id: this.nextClient++, memberId: '', phase: 'idle' });
        break;
      case 'step':
        if (active.length > 0) this.step(pick(op.pick));
        break;
      case 'leave':
        if (active.length > 0) {
          const c = pick(op.pick);
          if (c.memberId !== '') this.store.apply(applyClassicLeave(this.store.state, [{ memberId: c.memberId, groupInstanceId: null }], this.now));
          this.clients = this.clients.filter((x) => x.id !== c.id);
        }
        break;
      case 'silence':
        if (active.length > 0) this.silent.add(pick(op.pick).id);
        break;
      case 'tick':
        this.now += op.ms;
        break;
    }
    this.check();
  }

  /** Members that believe they hold partitions of one generation hold disjoint sets; generations only grow. */
  check(): void {
    const generation = this.store.state?.generation ?? 0;
    expect(generation).toBeGreaterThanOrEqual(this.lastGeneration);
    this.lastGeneration = generation;
    const owners = new Map<string, number>();
    for (const c of this.clients) {
      if (c.phase !== 'stable' || this.silent.has(c.id)) continue;
      for (const p of c.partitions) {
        const key = `${c.generation}:${p}`;
        expect(owners.get(key), `partition ${p} of generation ${c.generation}`).toBeUndefined();
        owners.set(key, c.id);
      }
    }
  }

  /** Cooperative clients, time moving on: every live client ends Stable in one generation that covers every partition. */
  settle(): void {
    for (let i = 0; i < 2000; i++) {
      const live = this.clients.filter((c) => !this.silent.has(c.id));
      const state = this.store.state;
      if (
        state &&
        live.length > 0 &&
        live.every((c) => c.phase === 'stable' && c.generation === state.generation) &&
        groupStateName(state) === 'Stable' &&
        Object.keys(state.members).length === live.length
      ) {
        const all = live.flatMap((c) => (c.phase === 'stable' ? c.partitions : [])).sort((a, b) => a - b);
        expect(all).toEqual(Array.from({ length: PARTITIONS }, (_, p) => p));
        return;
      }
      if (live.length === 0) return;
      for (const c of live) this.step(this.clients.find((x) => x.id === c.id)!);
      this.now += 500;
      this.check();
    }
    throw new Error(`no stable generation: ${JSON.stringify(this.clients)} ${JSON.stringify(this.store.state)}`);
  }
}

describe('property: eager consumers', () => {
  it('every generation is consistent, no partition is held twice in one generation, and cooperative clients settle', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 120 }), (ops) => {
        const sim = new Simulation();
        for (const op of ops) sim.run(op);
        sim.settle();
      }),
      { numRuns: 150 },
    );
  });
});
