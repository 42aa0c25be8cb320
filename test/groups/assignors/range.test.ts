import { describe, expect, it } from 'vitest';
import { rangeAssign } from '../../../lib/groups/assignors/range.js';

const m = (memberId: string, ...topics: string[]) => ({ memberId, topics });

describe('RangeAssignor', () => {
  it('gives the first consumer the extra partition (seeds/001: t0 has 5 partitions, 2 consumers)', () => {
    expect(rangeAssign([m('c0', 't0'), m('c1', 't0')], { t0: 5 })).toEqual({
      c0: { t0: [0, 1, 2] },
      c1: { t0: [3, 4] },
    });
  });

  it('piles the extras of several topics on the first consumer (seeds/001: 2 topics x 3 partitions)', () => {
    expect(rangeAssign([m('C1', 't0', 't1'), m('C0', 't0', 't1')], { t0: 3, t1: 3 })).toEqual({
      C0: { t0: [0, 1], t1: [0, 1] },
      C1: { t0: [2], t1: [2] },
    });
  });

  it('leaves consumers beyond the partition count empty', () => {
    expect(rangeAssign([m('a', 't'), m('b', 't'), m('c', 't')], { t: 2 })).toEqual({ a: { t: [0] }, b: { t: [1] }, c: {} });
  });

  it('ranges each topic over only its subscribers (mixed subscriptions)', () => {
    expect(rangeAssign([m('a', 'x'), m('b', 'x', 'y'), m('c', 'y')], { x: 3, y: 4 })).toEqual({
      a: { x: [0, 1] },
      b: { x: [2], y: [0, 1] },
      c: { y: [2, 3] },
    });
  });

  it('reassigns everything when a member joins or leaves', () => {
    expect(rangeAssign([m('a', 't'), m('b', 't')], { t: 4 })).toEqual({ a: { t: [0, 1] }, b: { t: [2, 3] } });
    expect(rangeAssign([m('a', 't'), m('b', 't'), m('c', 't')], { t: 4 })).toEqual({ a: { t: [0, 1] }, b: { t: [2] }, c: { t: [3] } });
    expect(rangeAssign([m('b', 't')], { t: 4 })).toEqual({ b: { t: [0, 1, 2, 3] } });
  });

  it('skips topics that do not exist', () => {
    expect(rangeAssign([m('a', 't', 'missing')], { t: 1 })).toEqual({ a: { t: [0] } });
  });
});
