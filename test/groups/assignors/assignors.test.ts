// lib/groups/assignors/assignors.ts: the name a group stores selects the assignor.
import { describe, expect, it } from 'vitest';
import { ASSIGNORS } from '../../../lib/groups/assignors/assignors.js';
import { rangeAssign } from '../../../lib/groups/assignors/range.js';
import { roundRobinAssign } from '../../../lib/groups/assignors/roundrobin.js';
import { stickyAssign } from '../../../lib/groups/assignors/sticky.js';

describe('ASSIGNORS', () => {
  it('maps each stored name to its assignor, and only those', () => {
    expect(ASSIGNORS).toEqual({ range: rangeAssign, roundrobin: roundRobinAssign, sticky: stickyAssign });
  });
  it('range and roundrobin differ where Kafka says they do', () => {
    const members = [{ memberId: 'a', topics: ['t', 'u'] }, { memberId: 'b', topics: ['t', 'u'] }];
    const counts = { t: 1, u: 1 };
    expect(ASSIGNORS.range(members, counts)).toEqual({ a: { t: [0], u: [0] }, b: {} });
    expect(ASSIGNORS.roundrobin(members, counts)).toEqual({ a: { t: [0] }, b: { u: [0] } });
  });
});
