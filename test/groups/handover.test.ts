// The two-phase handover of rebalance.ts, driven through the pure membership transitions with a
// simulated clock: random joins, leaves, subscription changes, heartbeats (with and without the
// rejoin a rebalance asks for) and members that fall silent and expire.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { AssignorName, MemberAssignment } from '../../lib/groups/assignors/types.js';
import { groupStateName, type GroupState } from '../../lib/groups/group-state.js';
import type { GroupDecision } from '../../lib/groups/group-store.js';
import { applyHeartbeat, applyJoin, applyLeave } from '../../lib/groups/membership.js';

const COUNTS = { a: 5, b: 3 };
const SESSION = 10_000;

type Op =
  | { kind: 'join'; topics: string[] }
  | { kind: 'leave'; pick: number }
  | { kind: 'resubscribe'; pick: number; topics: string[] }
  | { kind: 'heartbeat'; pick: number; rejoin: boolean }
  | { kind: 'silence'; pick: number }
  | { kind: 'tick' };

const topicsArb = fc.subarray(['a', 'b'], { minLength: 1 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: topicsArb.map((topics) => ({ kind: 'join' as const, topics })) },
  { weight: 1, arbitrary: fc.nat().map((pick) => ({ kind: 'leave' as const, pick })) },
  { weight: 1, arbitrary: fc.record({ pick: fc.nat(), topics: topicsArb }).map((r) => ({ kind: 'resubscribe' as const, ...r })) },
  { weight: 6, arbitrary: fc.record({ pick: fc.nat(), rejoin: fc.boolean() }).map((r) => ({ kind: 'heartbeat' as const, ...r })) },
  { weight: 1, arbitrary: fc.nat().map((pick) => ({ kind: 'silence' as const, pick })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'tick' as const }) },
);

interface Belief {
  generation: number;
  assignment: MemberAssignment;
  topics: string[];
}

class Simulation {
  state: GroupState | undefined;
  now = 1_000_000;
  next = 0;
  readonly beliefs = new Map<string, Belief>();
  readonly silent = new Set<string>();

  constructor(readonly assignor: AssignorName) {}

  apply<T>(decision: GroupDecision<T>): T | undefined {
    if (decision.next) this.state = { ...decision.next, version: (this.state?.version ?? 0) + 1 };
    return decision.error ? undefined : decision.result;
  }

  live(): string[] {
    return Object.keys(this.state?.members ?? {}).sort();
  }

  join(topics: string[], memberId?: string): void {
    const id = `m${String(this.next).padStart(3, '0')}`;
    const joined = this.apply(
      applyJoin(this.state, { group: 'g', memberId, clientId: 'c', topics, assignor: this.assignor, sessionTimeoutMs: SESSION }, COUNTS, this.now, () => id),
    );
    if (memberId === undefined) this.next++;
    if (joined) this.beliefs.set(joined.memberId, { generation: joined.generation, assignment: joined.assignment, topics });
  }

  heartbeat(memberId: string, rejoin: boolean): boolean {
    const belief = this.beliefs.get(memberId)!;
    const beat = this.apply(applyHeartbeat(this.state, 'g', memberId, belief.generation, this.now));
    if (beat?.rebalance && rejoin) this.join(belief.topics, memberId);
    return beat?.rebalance ?? false;
  }

  run(op: Op): void {
    const live = this.live().filter((id) => !this.silent.has(id));
    const pick = (n: number) => live[n % live.length];
    switch (op.kind) {
      case 'join':
        return this.join(op.topics);
      case 'leave':
        if (live.length > 0) this.apply(applyLeave(this.state, 'g', pick(op.pick), this.now));
        return;
      case 'resubscribe':
        if (live.length > 0) this.join(op.topics, pick(op.pick));
        return;
      case 'heartbeat':
        if (live.length > 0) this.heartbeat(pick(op.pick), op.rejoin);
        return;
      case 'silence':
        if (live.length > 0) this.silent.add(pick(op.pick));
        return;
      case 'tick':
        // Half a session passes; every member that is not silent heartbeats once.
        this.now += SESSION / 2 + 1;
        for (const id of live) this.heartbeat(id, false);
    }
  }

  /** No partition is in the latest assignment of two members the group still counts as live. */
  assertSingleOwner(): void {
    const owners = new Map<string, string>();
    for (const id of this.live()) {
      for (const [topic, partitions] of Object.entries(this.beliefs.get(id)!.assignment)) {
        for (const p of partitions) {
          const key = `${topic}-${p}`;
          expect(owners.get(key), `${key} held by ${owners.get(key)} and ${id}`).toBeUndefined();
          owners.set(key, id);
        }
      }
    }
  }

  /** Every member heartbeats and rejoins when told, until nobody is told to rebalance. */
  settle(): void {
    for (let round = 0; round < 20; round++) {
      let rebalanced = false;
      for (const id of this.live()) rebalanced = this.heartbeat(id, true) || rebalanced;
      this.assertSingleOwner();
      if (!rebalanced) return;
    }
    throw new Error('group did not settle in 20 rounds');
  }
}

describe('two-phase partition handover', () => {
  for (const assignor of ['sticky', 'range', 'roundrobin'] as const) {
    it(`never lets two live members hold one partition, and settles to a complete assignment (${assignor})`, () => {
      fc.assert(
        fc.property(fc.array(opArb, { minLength: 1, maxLength: 40 }), (ops) => {
          const sim = new Simulation(assignor);
          for (const op of ops) {
            sim.run(op);
            sim.assertSingleOwner();
          }
          // Silent members expire; the rest settle.
          sim.now += SESSION + 1;
          for (const id of sim.live()) if (!sim.silent.has(id)) sim.heartbeat(id, false);
          sim.settle();
          const state = sim.state!;
          if (sim.live().length === 0) return;
          expect(groupStateName(state)).toBe('Stable');
          expect(state.pending).toEqual([]);
          const subscribed = new Set(sim.live().flatMap((id) => state.members[id].topics));
          const held = sim.live().flatMap((id) => Object.entries(state.assignment[id]).flatMap(([t, ps]) => ps.map((p) => `${t}-${p}`)));
          const expected = Object.entries(COUNTS).filter(([t]) => subscribed.has(t)).flatMap(([t, n]) => Array.from({ length: n }, (_, p) => `${t}-${p}`));
          expect(held.sort()).toEqual(expected.sort());
          for (const id of sim.live()) expect(sim.beliefs.get(id)!.generation).toBe(state.generation);
        }),
        { numRuns: 300 },
      );
    });
  }

  it('keeps unaffected partitions with their owner through a cooperative rebalance', () => {
    const sim = new Simulation('sticky');
    sim.join(['a', 'b']);
    sim.join(['a', 'b']);
    sim.settle();
    const before = new Map(sim.live().map((id) => [id, sim.state!.assignment[id]]));
    sim.join(['a', 'b']);
    const third = sim.live().find((id) => !before.has(id))!;
    // The newcomer gets nothing yet: everything it will own is still held by the others.
    expect(sim.state!.assignment[third]).toEqual({});
    expect(groupStateName(sim.state!)).toBe('PreparingRebalance');
    sim.settle();
    for (const [id, assignment] of before) {
      const now = sim.state!.assignment[id];
      for (const [topic, partitions] of Object.entries(now)) expect(assignment[topic]).toEqual(expect.arrayContaining(partitions));
    }
    expect(Object.values(sim.state!.assignment[third]).flat().length).toBeGreaterThan(0);
  });

  it('hands the partitions of a member that leaves to the survivors at once, survivors keeping theirs (sticky)', () => {
    const sim = new Simulation('sticky');
    for (let i = 0; i < 3; i++) sim.join(['a', 'b']);
    sim.settle();
    const before = Object.fromEntries(sim.live().map((id) => [id, sim.state!.assignment[id]]));
    const leaver = sim.live()[1];
    sim.apply(applyLeave(sim.state, 'g', leaver, sim.now));
    expect(sim.state!.pending).toEqual([]);
    for (const id of sim.live()) {
      for (const [topic, partitions] of Object.entries(before[id])) expect(sim.state!.assignment[id][topic]).toEqual(expect.arrayContaining(partitions));
    }
    const held = sim.live().flatMap((id) => Object.values(sim.state!.assignment[id]).flat());
    expect(held.length).toBe(COUNTS.a + COUNTS.b);
  });
});
