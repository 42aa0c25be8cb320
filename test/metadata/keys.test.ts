// lib/metadata/keys.ts: the single-table key layout. Padded offsets sort as numbers do, which the
// manifest's range queries rely on.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GROUPS_PK, TOPICS_PK, groupDirectoryKey, groupPk, padOffset, partitionPk, segmentKey, segmentSk, stateKey, topicKey } from '../../lib/metadata/keys.js';

describe('keys', () => {
  it('padOffset: 20 digits; refuses negatives, fractions and unsafe integers', () => {
    expect(padOffset(0)).toBe('00000000000000000000');
    expect(padOffset(42)).toBe('00000000000000000042');
    expect(padOffset(Number.MAX_SAFE_INTEGER)).toHaveLength(20);
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 53]) expect(() => padOffset(bad)).toThrow(RangeError);
  });
  it('property: lexicographic order of segment sort keys is numeric order of offsets', () => {
    fc.assert(
      fc.property(fc.nat({ max: Number.MAX_SAFE_INTEGER }), fc.nat({ max: Number.MAX_SAFE_INTEGER }), (a, b) => {
        const [sa, sb] = [segmentSk(a), segmentSk(b)];
        expect(Math.sign(sa < sb ? -1 : sa > sb ? 1 : 0)).toBe(Math.sign(a - b));
      }),
    );
  });
  it('item keys carry the topic id, so a re-created topic shares no key with its predecessor', () => {
    const t = { name: 'orders', id: 'ID1' };
    expect(partitionPk(t, 3)).toBe('PART#orders#ID1#3');
    expect(stateKey(t, 3)).toEqual({ pk: 'PART#orders#ID1#3', sk: 'STATE' });
    expect(segmentKey(t, 3, 7)).toEqual({ pk: 'PART#orders#ID1#3', sk: 'SEG#00000000000000000007' });
    expect(stateKey({ ...t, id: 'ID2' }, 3)).not.toEqual(stateKey(t, 3));
  });
  it('topic and group directories', () => {
    expect(topicKey('orders')).toEqual({ pk: TOPICS_PK, sk: 'orders' });
    expect(TOPICS_PK).toBe('TOPICS');
    expect(groupPk('g')).toBe('GROUP#g');
    expect(groupDirectoryKey('g')).toEqual({ pk: GROUPS_PK, sk: 'g' });
    expect(GROUPS_PK).toBe('GROUPS');
  });
});
