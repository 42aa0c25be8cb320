// The .timeindex a segment merge writes: Kafka's TimeIndex layout (8-byte timestamp, 4-byte relative
// offset, big-endian), entries added at the offset-index moments only when the max timestamp
// grew, a final entry when the segment closes, and Kafka's lookup (largest timestamp <= target).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { OffsetIndexBuilder } from '../../lib/log/offset-index.js';
import { TIME_INDEX_ENTRY_SIZE, TimeIndexBuilder, encodeTimeIndex, lookupTimeIndex } from '../../lib/log/time-index.js';
import { decodeTimeIndex } from './index-files.js';

describe('time index', () => {
  it('writes Kafka’s byte layout', () => {
    const buf = encodeTimeIndex(100, [{ timestamp: 1_700_000_000_123, offset: 105 }]);
    expect(buf.length).toBe(TIME_INDEX_ENTRY_SIZE);
    expect(buf.toString('hex')).toBe(`${(1_700_000_000_123).toString(16).padStart(16, '0')}00000005`);
    expect(decodeTimeIndex(100, buf)).toEqual([{ timestamp: 1_700_000_000_123, offset: 105 }]);
  });

  it('adds entries where the offset index does, only when the timestamp grew, plus a closing entry', () => {
    // Batches of 100 bytes, interval 150: Kafka indexes before the 3rd, 5th, 7th batch.
    const batches = [
      { last: 0, ts: 10 },
      { last: 1, ts: 30 },
      { last: 2, ts: 20 },
      { last: 3, ts: 25 },
      { last: 4, ts: 25 },
      { last: 5, ts: 40 },
      { last: 6, ts: 35 },
      { last: 7, ts: 50 },
    ];
    const time = new TimeIndexBuilder(0, 150);
    const offsets = new OffsetIndexBuilder(0, 150);
    for (const b of batches) {
      time.append(b.last, b.ts, 100);
      offsets.append(b.last, 100);
    }
    time.finish();
    // Before batch 2: max so far 30 at offset 1. Before batch 4: still 30 (not appended). Before
    // batch 6: 40 at offset 5. Closing: 50 at offset 7.
    expect(decodeTimeIndex(0, time.toBuffer())).toEqual([
      { timestamp: 30, offset: 1 },
      { timestamp: 40, offset: 5 },
      { timestamp: 50, offset: 7 },
    ]);
    expect(offsets.entryCount).toBe(3);
  });

  it('lookup: the scan from the entry found never misses the first record at or after the target', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ ts: fc.integer({ min: 0, max: 1000 }), size: fc.integer({ min: 70, max: 400 }) }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: -5, max: 1005 }),
        (batches, interval, target) => {
          const time = new TimeIndexBuilder(1000, interval);
          batches.forEach((b, i) => time.append(1000 + i, b.ts, b.size));
          time.finish();
          const entry = lookupTimeIndex(1000, time.toBuffer(), target);
          const firstHit = batches.findIndex((b) => b.ts >= target);
          if (firstHit >= 0) expect(entry.offset).toBeLessThanOrEqual(1000 + firstHit);
          if (entry.timestamp >= 0) expect(entry.timestamp).toBeLessThanOrEqual(target);
          else expect(entry.offset).toBe(1000);
        },
      ),
    );
  });
});
