// lib/log/manifest-entry.ts: the short tail entry. Encoding then decoding gives the range back
// (property), intake objects shrink to their id, entries chain from a base offset, and malformed
// entries are refused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../lib/context.js';
import { decodeEntries, decodeEntry, encodeEntry, entriesCount, entryCount, rangeHolding, rangesOf } from '../../lib/log/manifest-entry.js';
import { intakeObjectKey } from '../../lib/log/segment-name.js';
import type { ManifestEntry } from '../../lib/metadata/types.js';

const ctx = createContext({ s3: undefined as never, ddb: undefined as never }, { prefix: 'pre' });
const input = (over: Partial<Parameters<typeof encodeEntry>[1]> = {}) => ({
  count: 3,
  objectKey: 'some/key.log',
  position: 10,
  size: 200,
  minTimestamp: 900,
  maxTimestamp: 1100,
  createdAt: 1000,
  ...over,
});

describe('manifest entries', () => {
  it('an intake object written at createdAt is stored as its id; any other key in full', () => {
    const key = intakeObjectKey('pre', 1000, '0123456789abcdef');
    expect(encodeEntry(ctx, input({ objectKey: key }))).toBe('3,10,200,1000,100,100,i0123456789abcdef');
    expect(encodeEntry(ctx, input())).toBe('3,10,200,1000,100,100,ksome/key.log');
    // an intake key of another time (or another prefix) is stored in full
    expect(encodeEntry(ctx, input({ objectKey: intakeObjectKey('pre', 999, '0123456789abcdef') }))).toMatch(/,kpre\/_intake\//);
    expect(encodeEntry(ctx, input({ objectKey: intakeObjectKey('other', 1000, '0123456789abcdef') }))).toMatch(/,kother\//);
  });

  it('property: decode(encode(x)) at base b is x at [b, b + count - 1], flagged intake', () => {
    fc.assert(
      fc.property(
        fc.record({
          count: fc.integer({ min: 1, max: 1e6 }),
          position: fc.nat(),
          size: fc.nat(),
          createdAt: fc.integer({ min: 0, max: 4e12 }),
          minDelta: fc.integer({ min: -1e9, max: 1e9 }),
          maxDelta: fc.integer({ min: -1e9, max: 1e9 }),
          intake: fc.boolean(),
          key: fc.string({ minLength: 1 }),
          id: fc.stringMatching(/^[0-9a-f]{16}$/),
        }),
        fc.nat({ max: 2 ** 50 }),
        (r, base) => {
          const objectKey = r.intake ? intakeObjectKey('pre', r.createdAt, r.id) : r.key;
          const e = { count: r.count, objectKey, position: r.position, size: r.size, createdAt: r.createdAt, minTimestamp: r.createdAt - r.minDelta, maxTimestamp: r.createdAt + r.maxDelta };
          const encoded = encodeEntry(ctx, e);
          expect(entryCount(encoded)).toBe(r.count);
          expect(decodeEntry(ctx, base, encoded)).toEqual({ ...e, baseOffset: base, lastOffset: base + r.count - 1, intake: true });
        },
      ),
    );
  });

  it('refuses bad fields when encoding', () => {
    expect(() => encodeEntry(ctx, input({ count: 0 }))).toThrow(RangeError);
    expect(() => encodeEntry(ctx, input({ position: -1 }))).toThrow(RangeError);
    expect(() => encodeEntry(ctx, input({ size: 1.5 }))).toThrow(RangeError);
  });

  it.each(['', '3,10,200,1000,100', '0,10,200,1000,100,100,kx', '3,10,200,1000,100,100,k', '3,10,200,1000,100,100,zkey', 'a,10,200,1000,100,100,kx', '3,-1,200,1000,100,100,kx', '3,10,200,1000,1.5,100,kx'])(
    'decoding %j is a RangeError',
    (entry) => {
      expect(() => decodeEntry(ctx, 0, entry as ManifestEntry)).toThrow(RangeError);
    },
  );

  it('an object key may contain commas', () => {
    const e = encodeEntry(ctx, input({ objectKey: 'a,b,c' }));
    expect(decodeEntry(ctx, 0, e).objectKey).toBe('a,b,c');
  });

  it('entries chain: each starts where the one before ends; rangeHolding finds an offset', () => {
    const entries = [encodeEntry(ctx, input({ count: 2 })), encodeEntry(ctx, input({ count: 5 })), encodeEntry(ctx, input({ count: 1 }))];
    const ranges = decodeEntries(ctx, 10, entries);
    expect(ranges.map((r) => [r.baseOffset, r.lastOffset])).toEqual([[10, 11], [12, 16], [17, 17]]);
    expect(entriesCount(entries)).toBe(8);
    expect(rangeHolding(ranges, 12)?.baseOffset).toBe(12);
    expect(rangeHolding(ranges, 16)?.baseOffset).toBe(12);
    expect(rangeHolding(ranges, 9)).toBeUndefined();
    expect(rangeHolding(ranges, 18)).toBeUndefined();
  });

  it('rangesOf: a spilled item stands for its entries, a merged one for its own range (stamped already)', () => {
    const item = { baseOffset: 4, lastOffset: 5, count: 2, objectKey: 'm', position: 0, size: 1, minTimestamp: 0, maxTimestamp: 0, createdAt: 0, epoch: 1 };
    const { epoch: _epoch, ...range } = item;
    expect(rangesOf(ctx, item)).toEqual([{ ...range, intake: false }]);
    const spilled = { ...item, entries: [encodeEntry(ctx, input({ count: 2 }))] };
    expect(rangesOf(ctx, spilled)).toEqual([expect.objectContaining({ baseOffset: 4, lastOffset: 5, objectKey: 'some/key.log', intake: true })]);
  });
});
