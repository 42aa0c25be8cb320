// lib/groups/assignors/types.ts: the helpers every assignor shares.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ASSIGNOR_NAMES,
  addPartition,
  canonicalAssignment,
  compareStrings,
  compareTopicPartitions,
  normalizeAssignor,
  sortedMembers,
} from '../../../lib/groups/assignors/types.js';

describe('assignor helpers', () => {
  it('cooperative-sticky is sticky; the others keep their names', () => {
    expect(ASSIGNOR_NAMES.map(normalizeAssignor)).toEqual(['range', 'roundrobin', 'sticky', 'sticky']);
  });
  it('sortedMembers sorts by memberId (code-unit order, as Kafka) and makes topic sets', () => {
    const out = sortedMembers([{ memberId: 'b', topics: ['x', 'x'] }, { memberId: 'B', topics: [] }, { memberId: 'a', topics: ['y'] }]);
    expect(out.map((m) => m.memberId)).toEqual(['B', 'a', 'b']);
    expect(out[2].topics).toEqual(new Set(['x']));
  });
  it('compareTopicPartitions: topic, then partition numerically', () => {
    const tps = [{ topic: 'b', partition: 0 }, { topic: 'a', partition: 10 }, { topic: 'a', partition: 2 }];
    expect([...tps].sort(compareTopicPartitions)).toEqual([{ topic: 'a', partition: 2 }, { topic: 'a', partition: 10 }, { topic: 'b', partition: 0 }]);
    expect(compareStrings('a', 'a')).toBe(0);
  });
  it('addPartition appends, creating the topic list', () => {
    const a: Record<string, number[]> = {};
    addPartition(a, 't', 1);
    addPartition(a, 't', 0);
    expect(a).toEqual({ t: [1, 0] });
  });
  it('canonicalAssignment sorts partitions, drops empty topics, keeps empty members, and is idempotent', () => {
    expect(canonicalAssignment({ b: { t: [3, 1], u: [] }, a: {} })).toEqual({ a: {}, b: { t: [1, 3] } });
    expect(JSON.stringify(canonicalAssignment({ b: {}, a: {} }))).toBe('{"a":{},"b":{}}');
    fc.assert(
      // member ids and topic names as they come (never '__proto__', which a plain object cannot hold as a key)
      fc.property(fc.dictionary(fc.stringMatching(/^[a-z0-9-]{1,8}$/), fc.dictionary(fc.stringMatching(/^[a-z0-9._-]{1,8}$/), fc.array(fc.nat(50)))), (assignment) => {
        const once = canonicalAssignment(assignment);
        expect(canonicalAssignment(once)).toEqual(once);
        expect(Object.keys(once).sort()).toEqual(Object.keys(assignment).sort());
      }),
    );
  });
});
