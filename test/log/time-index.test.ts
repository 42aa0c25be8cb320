// lib/log/time-index.ts: Kafka's TimeIndex. Entries only when the timestamp grows, at index
// intervals and on close; encode/decode round-trip; lookup = largest timestamp <= target.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TIME_INDEX_ENTRY_SIZE, TimeIndexBuilder, encodeTimeIndex, lookupTimeIndex } from '../../lib/log/time-index.js';
import { decodeTimeIndex } from './index-files.js';

describe('TimeIndexBuilder', () => {
  it('adds an entry once more than the interval was appended before a batch, and a last one on finish', () => {
    const b = new TimeIndexBuilder(100, 150);
    b.append(101, 10, 100); // 0 bytes before: no entry
    b.append(103, 20, 100); // 100 before: no entry
    b.append(105, 15, 100); // 200 > 150 before: entry for max so far (20 @ 103)
    b.append(107, 30, 100);
    b.finish(); // max 30 @ 107
    expect(decodeTimeIndex(100, b.toBuffer())).toEqual([
      { timestamp: 20, offset: 103 },
      { timestamp: 30, offset: 107 },
    ]);
    expect(b.entryCount).toBe(2);
  });
  it('never repeats a timestamp: finish adds nothing when the max did not grow; an empty segment has no entry', () => {
    const b = new TimeIndexBuilder(0, 0);
    b.append(0, 50, 10);
    b.append(1, 40, 10); // entry 50@0
    b.finish();
    expect(decodeTimeIndex(0, b.toBuffer())).toEqual([{ timestamp: 50, offset: 0 }]);
    const empty = new TimeIndexBuilder(0, 0);
    empty.finish();
    expect(empty.toBuffer().length).toBe(0);
  });
  it('property: timestamps strictly increase and each entry points at a batch that reached it', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ count: fc.integer({ min: 1, max: 5 }), ts: fc.integer({ min: 0, max: 1e6 }), size: fc.integer({ min: 1, max: 500 })}), { maxLength: 50 }), fc.nat(1000), (batches, interval) => {
        const b = new TimeIndexBuilder(1000, interval);
        let offset = 1000;
        const lastOffsets = new Map<number, number>();
        for (const batch of batches) {
          offset += batch.count;
          b.append(offset - 1, batch.ts, batch.size);
          lastOffsets.set(offset - 1, batch.ts);
        }
        b.finish();
        const entries = decodeTimeIndex(1000, b.toBuffer());
        for (let i = 1; i < entries.length; i++) expect(entries[i].timestamp).toBeGreaterThan(entries[i - 1].timestamp);
        for (const e of entries) expect(lastOffsets.get(e.offset)).toBe(e.timestamp);
        if (batches.length > 0) expect(entries[entries.length - 1].timestamp).toBe(Math.max(...batches.map((x) => x.ts)));
      }),
    );
  });
});

describe('encode / decode / lookup', () => {
  const entries = [{ timestamp: 10, offset: 500 }, { timestamp: 20, offset: 503 }, { timestamp: 35, offset: 520 }];
  const buf = encodeTimeIndex(500, entries);
  it('12 bytes per entry, big-endian int64 timestamp then int32 relative offset (Kafka\'s layout)', () => {
    expect(buf.length).toBe(3 * TIME_INDEX_ENTRY_SIZE);
    expect(buf.readBigInt64BE(12)).toBe(20n);
    expect(buf.readInt32BE(20)).toBe(3);
    expect(decodeTimeIndex(500, buf)).toEqual(entries);
    expect(decodeTimeIndex(500, buf.subarray(0, 20))).toEqual(entries.slice(0, 1)); // a partial entry is ignored
  });
  it('lookup: largest timestamp <= target, or (-1, base) before the first', () => {
    expect(lookupTimeIndex(500, buf, 5)).toEqual({ timestamp: -1, offset: 500 });
    expect(lookupTimeIndex(500, buf, 10)).toEqual({ timestamp: 10, offset: 500 });
    expect(lookupTimeIndex(500, buf, 34)).toEqual({ timestamp: 20, offset: 503 });
    expect(lookupTimeIndex(500, buf, 1e9)).toEqual({ timestamp: 35, offset: 520 });
    expect(lookupTimeIndex(500, Buffer.alloc(0), 1)).toEqual({ timestamp: -1, offset: 500 });
  });
  it('property: lookup agrees with a linear scan', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 1e9 }), { maxLength: 40 }), fc.integer({ min: -10, max: 1e9 + 10 }), (stamps, target) => {
        const sorted = [...stamps].sort((a, b) => a - b);
        const es = sorted.map((timestamp, i) => ({ timestamp, offset: 7 + i }));
        const want = [...es].reverse().find((e) => e.timestamp <= target) ?? { timestamp: -1, offset: 7 };
        expect(lookupTimeIndex(7, encodeTimeIndex(7, es), target)).toEqual(want);
      }),
    );
  });
});
