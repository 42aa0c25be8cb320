// lib/partitioners/round-robin-partitioner.ts: a per-topic counter, keys ignored, wrap-safe.
import { describe, expect, it } from 'vitest';
import { RoundRobinPartitioner } from '../../lib/partitioners/round-robin-partitioner.js';

describe('RoundRobinPartitioner', () => {
  it('cycles per topic, keyed or not', () => {
    const p = new RoundRobinPartitioner().partition;
    expect([0, 1, 2, 3].map(() => p({ topic: 'a', partitionCount: 3, key: Buffer.from('k') }))).toEqual([0, 1, 2, 0]);
    expect(p({ topic: 'b', partitionCount: 3, key: null })).toBe(0);
  });
  it('stays non-negative after the int32 counter wraps', () => {
    const rr = new RoundRobinPartitioner();
    (rr as unknown as { counters: Map<string, number> }).counters.set('t', 0x7fffffff);
    expect(rr.partition({ topic: 't', partitionCount: 10, key: null })).toBe(0x7fffffff % 10);
    expect(rr.partition({ topic: 't', partitionCount: 10, key: null })).toBe(0); // -2^31 → toPositive 0
  });
  it('refuses a bad partition count', () => {
    expect(() => new RoundRobinPartitioner().partition({ topic: 't', partitionCount: 0, key: null })).toThrow(RangeError);
  });
});
