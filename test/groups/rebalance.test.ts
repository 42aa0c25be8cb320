// lib/groups/rebalance.ts: the two-phase handover. A partition moving between live members is
// withheld until its previous owner acknowledges; no partition is ever in two live members'
// assignments; generations advance only on a change.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyGroupState, type GroupMember, type GroupState } from '../../lib/groups/group-state.js';
import { rebalance } from '../../lib/groups/rebalance.js';

const member = (ackGeneration = 0, topics = ['t']): GroupMember => ({ clientId: 'c', topics, assignor: 'range', sessionTimeoutMs: 1000, expiresAt: 1e12, ackGeneration, joinedAt: 0 });
const base = (over: Partial<GroupState>): GroupState => ({ ...emptyGroupState('g', 0), assignor: 'range', partitionsPerTopic: { t: 4 }, ...over });

describe('rebalance', () => {
  it('first member: everything at once, generation + 1', () => {
    const next = rebalance(base({ members: { a: member() } }), { membershipChanged: true });
    expect(next.generation).toBe(1);
    expect(next.assignment).toEqual({ a: { t: [0, 1, 2, 3] } });
    expect(next.pending).toEqual([]);
  });

  it('a second member: a\'s moving partitions are withheld from both, pending since the new generation', () => {
    const s1 = rebalance(base({ members: { a: member() } }), { membershipChanged: true });
    const s2 = rebalance({ ...s1, members: { a: member(1), b: member() } }, { membershipChanged: true });
    expect(s2.generation).toBe(2);
    expect(s2.assignment).toEqual({ a: { t: [0, 1] }, b: {} });
    expect(s2.pending).toEqual([
      { topic: 't', partition: 2, from: 'a', since: 2 },
      { topic: 't', partition: 3, from: 'a', since: 2 },
    ]);
    // nothing changes until a acknowledges generation 2
    const waiting = rebalance(s2, { membershipChanged: false });
    expect(waiting.generation).toBe(2);
    expect(waiting.assignment.b).toEqual({});
    // a heartbeats with 2: the next rebalance hands them to b in generation 3
    const s3 = rebalance({ ...s2, members: { a: member(2), b: member(0) } }, { membershipChanged: false });
    expect(s3.generation).toBe(3);
    expect(s3.assignment).toEqual({ a: { t: [0, 1] }, b: { t: [2, 3] } });
    expect(s3.pending).toEqual([]);
  });

  it('a departed owner\'s partitions are handed over at once', () => {
    const s1 = rebalance(base({ members: { a: member(), b: member() } }), { membershipChanged: true });
    const { b: _gone, ...members } = s1.members;
    const s2 = rebalance({ ...s1, members }, { membershipChanged: true });
    expect(s2.assignment).toEqual({ a: { t: [0, 1, 2, 3] } });
    expect(s2.pending).toEqual([]);
  });

  it('no membership change and the same assignment: same generation', () => {
    const s1 = rebalance(base({ members: { a: member() } }), { membershipChanged: true });
    expect(rebalance(s1, { membershipChanged: false }).generation).toBe(1);
  });

  it('new partitions (fresh counts) are a change: a new generation assigns them', () => {
    const s1 = rebalance(base({ members: { a: member() } }), { membershipChanged: true });
    const s2 = rebalance(s1, { membershipChanged: false, partitionsPerTopic: { t: 6 } });
    expect(s2.generation).toBe(2);
    expect(s2.assignment.a.t).toEqual([0, 1, 2, 3, 4, 5]);
    expect(s2.partitionsPerTopic).toEqual({ t: 6 });
  });

  it('property: through any sequence of joins, leaves and acknowledgements, no partition is in two live members\' assignments, and withheld partitions are in none', () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('join' as const), id: fc.constantFrom('a', 'b', 'c', 'd') }),
      fc.record({ kind: fc.constant('leave' as const), id: fc.constantFrom('a', 'b', 'c', 'd') }),
      fc.record({ kind: fc.constant('ack' as const), id: fc.constantFrom('a', 'b', 'c', 'd') }),
    );
    fc.assert(
      fc.property(fc.constantFrom('range', 'roundrobin', 'sticky') as fc.Arbitrary<'range' | 'roundrobin' | 'sticky'>, fc.array(step, { maxLength: 30 }), (assignor, steps) => {
        let state = base({ assignor, partitionsPerTopic: { t: 5 } });
        for (const s of steps) {
          const members = { ...state.members };
          let changed = false;
          if (s.kind === 'join' && !members[s.id]) {
            members[s.id] = member();
            changed = true;
          } else if (s.kind === 'leave' && members[s.id]) {
            delete members[s.id];
            changed = true;
          } else if (s.kind === 'ack' && members[s.id]) {
            members[s.id] = { ...members[s.id], ackGeneration: state.generation };
          }
          const before = state.generation;
          state = rebalance({ ...state, members }, { membershipChanged: changed });
          if (changed) expect(state.generation).toBe(before + 1);
          const owners = new Map<number, string>();
          for (const [id, a] of Object.entries(state.assignment)) {
            expect(state.members[id]).toBeDefined();
            for (const p of a.t ?? []) {
              expect(owners.has(p), `partition ${p} held twice`).toBe(false);
              owners.set(p, id);
            }
          }
          for (const r of state.pending) expect(owners.has(r.partition)).toBe(false);
        }
      }),
      { numRuns: 200 },
    );
  });
});
