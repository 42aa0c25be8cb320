import { describe, expect, it } from 'vitest';
import { type Partitioner, RoundRobinPartitioner, StickyPartitioner, partitionForKey } from '../../lib/partitioners/index.js';

describe('partitionForKey', () => {
  it('places a key at toPositive(murmur2) % partitions, as Kafka does', () => {
    // murmur2("foobar") = -790332482; & 0x7fffffff = 1357151166
    expect(partitionForKey(Buffer.from('foobar'), 10)).toBe(1357151166 % 10);
    expect(partitionForKey(Buffer.from('foobar'), 7)).toBe(1357151166 % 7);
    // murmur2("21") = -973932308; & 0x7fffffff = 1173551340
    expect(partitionForKey(Buffer.from('21'), 12)).toBe(1173551340 % 12);
    expect(partitionForKey(Buffer.alloc(0), 3)).toBe(275646681 % 3);
  });

  it('rejects a partition count that is not a positive integer', () => {
    expect(() => partitionForKey(Buffer.from('k'), 0)).toThrow(RangeError);
    expect(() => partitionForKey(Buffer.from('k'), 1.5)).toThrow(RangeError);
  });
});

describe('RoundRobinPartitioner', () => {
  it('cycles through the partitions of each topic independently, keyed or not', () => {
    const { partition } = new RoundRobinPartitioner();
    const a = [0, 1, 2, 3, 4].map(() => partition({ topic: 'a', partitionCount: 3, key: Buffer.from('same') }));
    const b = [0, 1].map(() => partition({ topic: 'b', partitionCount: 3, key: null }));
    expect(a).toEqual([0, 1, 2, 0, 1]);
    expect(b).toEqual([0, 1]);
  });

  it('follows a raised partition count', () => {
    const { partition } = new RoundRobinPartitioner();
    expect([0, 1].map(() => partition({ topic: 't', partitionCount: 2, key: null }))).toEqual([0, 1]);
    expect([0, 1, 2].map(() => partition({ topic: 't', partitionCount: 5, key: null }))).toEqual([2, 3, 4]);
  });
});

describe('StickyPartitioner', () => {
  /** A deterministic random source cycling through `values`. */
  function sequence(...values: number[]): () => number {
    let i = 0;
    return () => values[i++ % values.length];
  }

  it('sends keyed records by key hash, not to the sticky partition', () => {
    const { partition } = new StickyPartitioner(sequence(0));
    expect(partition({ topic: 't', partitionCount: 10, key: Buffer.from('foobar') })).toBe(1357151166 % 10);
  });

  it('sticks keyless records to one partition until the batch completes, then moves to another', () => {
    const sticky = new StickyPartitioner(sequence(0.5, 0));
    const keyless = (): number => sticky.partition({ topic: 't', partitionCount: 4, key: null });
    expect([keyless(), keyless(), keyless()]).toEqual([2, 2, 2]);
    sticky.newBatch('t');
    const next = keyless();
    expect(next).not.toBe(2);
    expect(keyless()).toBe(next);
  });

  it('never picks the partition whose batch just completed, whatever the random source says', () => {
    for (const r of [0, 0.25, 0.5, 0.75, 0.999999]) {
      const sticky = new StickyPartitioner(() => r);
      const first = sticky.partition({ topic: 't', partitionCount: 4, key: null });
      sticky.newBatch('t');
      expect(sticky.partition({ topic: 't', partitionCount: 4, key: null })).not.toBe(first);
    }
  });

  it('ignores completion of a batch that is no longer the sticky one', () => {
    const sticky = new StickyPartitioner(sequence(0.5, 0));
    const first = sticky.partition({ topic: 't', partitionCount: 4, key: null });
    sticky.newBatch('t', first);
    const second = sticky.partition({ topic: 't', partitionCount: 4, key: null });
    sticky.newBatch('t', first); // a late, duplicate completion of the first batch
    expect(sticky.partition({ topic: 't', partitionCount: 4, key: null })).toBe(second);
  });

  it('keeps topics apart and stays on the only partition of a one-partition topic', () => {
    const sticky = new StickyPartitioner(sequence(0.9, 0.1));
    expect(sticky.partition({ topic: 'a', partitionCount: 10, key: null })).toBe(9);
    expect(sticky.partition({ topic: 'b', partitionCount: 10, key: null })).toBe(1);
    sticky.newBatch('a');
    expect(sticky.partition({ topic: 'b', partitionCount: 10, key: null })).toBe(1);
    const single = new StickyPartitioner();
    single.partition({ topic: 'one', partitionCount: 1, key: null });
    single.newBatch('one');
    expect(single.partition({ topic: 'one', partitionCount: 1, key: null })).toBe(0);
  });

  it('spreads keyless batches over every partition over time', () => {
    const sticky = new StickyPartitioner();
    const seen = new Set<number>();
    for (let i = 0; i < 400; i++) {
      const p = sticky.partition({ topic: 't', partitionCount: 5, key: null });
      expect(p).toBeGreaterThanOrEqual(0);
      expect(p).toBeLessThan(5);
      seen.add(p);
      sticky.newBatch('t', p);
    }
    expect(seen.size).toBe(5);
  });

  it('is usable wherever a Partitioner is expected', () => {
    const partitioners: Partitioner[] = [new StickyPartitioner().partition, new RoundRobinPartitioner().partition];
    for (const p of partitioners) expect(p({ topic: 't', partitionCount: 3, key: null })).toBeLessThan(3);
  });
});
