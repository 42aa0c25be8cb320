import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { stickyAssign } from '../../../lib/groups/assignors/sticky.js';
import type { GroupAssignment } from '../../../lib/groups/assignors/types.js';

const m = (memberId: string, ...topics: string[]) => ({ memberId, topics });
const count = (a: Record<string, number[]>) => Object.values(a).reduce((n, ps) => n + ps.length, 0);
const owned = (a: GroupAssignment, id: string) => Object.entries(a[id] ?? {}).flatMap(([t, ps]) => ps.map((p) => `${t}-${p}`));

function assertExactlyOnce(a: GroupAssignment, partitionsPerTopic: Record<string, number>): void {
  const all = Object.keys(a).flatMap((id) => owned(a, id)).sort();
  const expected = Object.entries(partitionsPerTopic).flatMap(([t, n]) => Array.from({ length: n }, (_, p) => `${t}-${p}`)).sort();
  expect(all).toEqual(expected);
}

describe('StickyAssignor', () => {
  it('balances a fresh group within one partition', () => {
    const out = stickyAssign([m('a', 't0', 't1'), m('b', 't0', 't1'), m('c', 't0', 't1')], { t0: 4, t1: 3 });
    const loads = Object.values(out).map(count);
    expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(1);
    assertExactlyOnce(out, { t0: 4, t1: 3 });
  });

  it('moves only what a new member needs', () => {
    const before = { a: { t: [0, 1, 2, 3] }, b: { t: [4, 5, 6, 7] } };
    const after = stickyAssign([m('a', 't'), m('b', 't'), m('c', 't')], { t: 8 }, before);
    expect(count(after.c)).toBe(2);
    const moved = owned(before, 'a').filter((p) => !owned(after, 'a').includes(p)).length + owned(before, 'b').filter((p) => !owned(after, 'b').includes(p)).length;
    expect(moved).toBe(2);
  });

  it('keeps every survivor\'s partitions when a member leaves (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 8 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 3 }), fc.nat(), (members, partitions, topicCount, leaverSeed) => {
        const topics = Array.from({ length: topicCount }, (_, i) => `t${i}`);
        const counts = Object.fromEntries(topics.map((t) => [t, partitions]));
        const group = Array.from({ length: members }, (_, i) => m(`m${i}`, ...topics));
        const before = stickyAssign(group, counts);
        const leaver = group[leaverSeed % members].memberId;
        const survivors = group.filter((x) => x.memberId !== leaver);
        const after = stickyAssign(survivors, counts, before);
        for (const s of survivors) expect(owned(after, s.memberId)).toEqual(expect.arrayContaining(owned(before, s.memberId)));
        const loads = survivors.map((s) => count(after[s.memberId]));
        expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(1);
        assertExactlyOnce(after, counts);
      }),
      { numRuns: 200 },
    );
  });

  it('stays balanced and complete under random subscriptions and previous assignments (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.subarray(['x', 'y', 'z'], { minLength: 1 }), { minLength: 1, maxLength: 6 }),
        fc.record({ x: fc.integer({ min: 0, max: 9 }), y: fc.integer({ min: 0, max: 9 }), z: fc.integer({ min: 0, max: 9 }) }),
        (subscriptions, counts) => {
          const group = subscriptions.map((topics, i) => m(`m${i}`, ...topics));
          const first = stickyAssign(group, counts);
          const second = stickyAssign(group.slice(1), counts, first);
          for (const out of [first, second]) {
            const subscribed = new Set(group.flatMap((g) => g.topics));
            const live = out === first ? group : group.slice(1);
            const liveTopics = new Set(live.flatMap((g) => g.topics));
            assertExactlyOnce(out, Object.fromEntries(Object.entries(counts).filter(([t]) => subscribed.has(t) && liveTopics.has(t))));
            // No partition can move to a subscriber with two or more fewer partitions.
            for (const giver of live) for (const taker of live) {
              if (count(out[taker.memberId]) > count(out[giver.memberId]) - 2) continue;
              const movable = Object.keys(out[giver.memberId]).some((t) => taker.topics.includes(t));
              expect(movable).toBe(false);
            }
          }
          // Unchanged membership and counts: nothing moves.
          expect(stickyAssign(group, counts, first)).toEqual(first);
        },
      ),
      { numRuns: 200 },
    );
  });
});
