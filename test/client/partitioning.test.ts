// lib/client/partitioning.ts: the producer's partitioner option resolved to one function.
import { describe, expect, it } from 'vitest';
import { resolvePartitioner } from '../../lib/client/partitioning.js';
import { partitionForKey } from '../../lib/partitioners/index.js';

const args = (key: Buffer | null, partitionCount = 4) => ({ topic: 't', partitionCount, key, message: { value: 'v' } });

describe('resolvePartitioner', () => {
  it('default: keyed by murmur2 like Kafka, keyless round-robin', () => {
    const p = resolvePartitioner();
    expect(p.partition(args(Buffer.from('user-1')))).toBe(partitionForKey(Buffer.from('user-1'), 4));
    expect([0, 1, 2, 3, 4].map(() => p.partition(args(null)))).toEqual([0, 1, 2, 3, 0]);
  });
  it('round-robin ignores keys', () => {
    const p = resolvePartitioner('round-robin');
    expect([0, 1, 2].map(() => p.partition(args(Buffer.from('same'))))).toEqual([0, 1, 2]);
  });
  it('sticky: keyless records stay on one partition until a batch is sent, then move', () => {
    const p = resolvePartitioner('sticky');
    const first = p.partition(args(null));
    expect(new Set([0, 1, 2, 3, 4].map(() => p.partition(args(null))))).toEqual(new Set([first]));
    p.batchSent('t');
    expect(p.partition(args(null))).not.toBe(first);
    expect(p.partition(args(Buffer.from('k')))).toBe(partitionForKey(Buffer.from('k'), 4));
  });
  it('a function is used as given (with the message); unknown names are refused', () => {
    const p = resolvePartitioner(({ message, partitionCount }) => (message.value === 'v' ? partitionCount - 1 : 0));
    expect(p.partition(args(null, 7))).toBe(6);
    expect(() => p.batchSent('t')).not.toThrow();
    expect(() => resolvePartitioner('hash' as never)).toThrow(RangeError);
  });
});
