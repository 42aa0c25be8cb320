import { describe, expect, it } from 'vitest';
import { roundRobinAssign } from '../../../lib/groups/assignors/roundrobin.js';

const m = (memberId: string, ...topics: string[]) => ({ memberId, topics });

describe('RoundRobinAssignor', () => {
  it('deals the seed example step by step, skipping members not subscribed (seeds/001)', () => {
    // t1[p0..p2], t2[p0..p3], t3[p0,p1]; c1 [t1,t3], c2 [t2,t3], c3 [t1], c4 [t2].
    // t1p0 -> c1; t1p1: c2 skipped -> c3; t1p2: c4 skipped -> c1; ... as the seed walks it.
    const out = roundRobinAssign([m('c1', 't1', 't3'), m('c2', 't2', 't3'), m('c3', 't1'), m('c4', 't2')], { t1: 3, t2: 4, t3: 2 });
    expect(out.c1.t1).toEqual([0, 2]);
    expect(out.c3.t1).toEqual([1]);
    expect(out).toEqual({
      c1: { t1: [0, 2], t3: [0] },
      c2: { t2: [0, 2], t3: [1] },
      c3: { t1: [1] },
      c4: { t2: [1, 3] },
    });
  });

  it("reproduces Kafka's documented identical-subscription example (C0: t0p0 t0p2 t1p1; C1: t0p1 t1p0 t1p2)", () => {
    expect(roundRobinAssign([m('C0', 't0', 't1'), m('C1', 't0', 't1')], { t0: 3, t1: 3 })).toEqual({
      C0: { t0: [0, 2], t1: [1] },
      C1: { t0: [1], t1: [0, 2] },
    });
  });

  it("reproduces Kafka's documented mixed-subscription example (C0: t0p0; C1: t1p0; C2: t1p1 t2p0 t2p1 t2p2)", () => {
    expect(roundRobinAssign([m('C2', 't0', 't1', 't2'), m('C0', 't0'), m('C1', 't0', 't1')], { t0: 1, t1: 2, t2: 3 })).toEqual({
      C0: { t0: [0] },
      C1: { t1: [0] },
      C2: { t1: [1], t2: [0, 1, 2] },
    });
  });

  it('leaves consumers beyond the partition count empty', () => {
    expect(roundRobinAssign([m('a', 't'), m('b', 't'), m('c', 't')], { t: 2 })).toEqual({ a: { t: [0] }, b: { t: [1] }, c: {} });
  });
});
