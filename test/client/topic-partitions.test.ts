// lib/client/topic-partitions.ts: topic-partition sets between the wire's grouped lists and keys.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flatten, fromTpKey, group, minus, tpKey } from '../../lib/client/topic-partitions.js';

describe('topic-partition sets', () => {
  it('property: fromTpKey inverts tpKey (topic names may hold any character but NUL)', () => {
    fc.assert(
      fc.property(fc.string().filter((s) => !s.includes('\u0000')), fc.nat(), (topic, partition) => {
        expect(fromTpKey(tpKey(topic, partition))).toEqual({ topic, partition });
      }),
    );
  });
  it('flatten and group are inverse on sorted lists; group sorts topics and partitions', () => {
    const wire = [{ topic: 'b', partitions: [2, 0] }, { topic: 'a', partitions: [1] }];
    const flat = flatten(wire);
    expect(flat).toEqual([{ topic: 'b', partition: 2 }, { topic: 'b', partition: 0 }, { topic: 'a', partition: 1 }]);
    expect(group(flat)).toEqual([{ topic: 'a', partitions: [1] }, { topic: 'b', partitions: [0, 2] }]);
    expect(group([])).toEqual([]);
  });
  it('minus: what is in a and not in b', () => {
    const a = [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }, { topic: 'u', partition: 0 }];
    expect(minus(a, [{ topic: 't', partition: 1 }, { topic: 'x', partition: 9 }])).toEqual([{ topic: 't', partition: 0 }, { topic: 'u', partition: 0 }]);
    expect(minus(a, [])).toEqual(a);
  });
});
