// lib/partitioners/sticky-partitioner.ts: KIP-480 with an injected random source.
import { describe, expect, it } from 'vitest';
import { partitionForKey } from '../../lib/partitioners/default-partitioner.js';
import { StickyPartitioner } from '../../lib/partitioners/sticky-partitioner.js';

describe('StickyPartitioner', () => {
  it('keyless: the random pick sticks until newBatch; the next pick avoids the previous partition', () => {
    const draws = [0.5, 0.0];
    const s = new StickyPartitioner(() => draws.shift() ?? 0);
    const args = { topic: 't', partitionCount: 4, key: null };
    expect(s.partition(args)).toBe(2);
    expect(s.partition(args)).toBe(2);
    s.newBatch('t');
    expect(s.partition(args)).toBe(3); // avoid 2: 2 + 1 + floor(0 * 3) = 3
  });
  it('a late completion of an older batch does not move a fresh choice; unknown topics are ignored', () => {
    const s = new StickyPartitioner(() => 0.3);
    const args = { topic: 't', partitionCount: 4, key: null };
    const first = s.partition(args);
    s.newBatch('t', (first + 1) % 4);
    expect(s.partition(args)).toBe(first);
    s.newBatch('other');
    expect(s.partition(args)).toBe(first);
  });
  it('keyed records go by hash; a shrunk count (a recreated topic) re-picks in range', () => {
    const s = new StickyPartitioner(() => 0.99);
    expect(s.partition({ topic: 't', partitionCount: 5, key: Buffer.from('x') })).toBe(partitionForKey(Buffer.from('x'), 5));
    expect(s.partition({ topic: 't', partitionCount: 8, key: null })).toBe(7);
    expect(s.partition({ topic: 't', partitionCount: 2, key: null })).toBe(1);
  });
});
