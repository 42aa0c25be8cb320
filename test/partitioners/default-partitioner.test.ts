// lib/partitioners/default-partitioner.ts: toPositive(murmur2(key)) % n, as Kafka's BuiltInPartitioner.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { partitionForKey } from '../../lib/partitioners/default-partitioner.js';
import { murmur2, toPositive } from '../../lib/partitioners/murmur2.js';

describe('partitionForKey', () => {
  it('one partition takes every key; otherwise toPositive(murmur2(key)) % n', () => {
    const foo = Buffer.from('foo');
    expect(partitionForKey(foo, 1)).toBe(0);
    expect(partitionForKey(foo, 7)).toBe(toPositive(murmur2(foo)) % 7);
  });
  it('property: in range, deterministic, equals the formula', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.integer({ min: 1, max: 1000 }), (key, n) => {
        const p = partitionForKey(key, n);
        expect(p).toBeGreaterThanOrEqual(0);
        expect(p).toBeLessThan(n);
        expect(p).toBe((murmur2(key) & 0x7fffffff) % n);
      }),
    );
  });
  it('refuses a partition count that is not a positive integer', () => {
    for (const n of [0, -1, 1.5]) expect(() => partitionForKey(Buffer.from('k'), n)).toThrow(RangeError);
  });
});
