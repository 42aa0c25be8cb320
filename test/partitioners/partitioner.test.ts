// lib/partitioners/partitioner.ts: the shared partition-count check.
import { describe, expect, it } from 'vitest';
import { checkPartitionCount } from '../../lib/partitioners/partitioner.js';

describe('checkPartitionCount', () => {
  it('positive integers pass; anything else is a RangeError naming the value', () => {
    expect(() => checkPartitionCount(1)).not.toThrow();
    expect(() => checkPartitionCount(1000)).not.toThrow();
    for (const n of [0, -3, 2.5, Number.NaN, Infinity]) expect(() => checkPartitionCount(n)).toThrow(RangeError);
    expect(() => checkPartitionCount(0)).toThrow(/got 0/);
  });
});
