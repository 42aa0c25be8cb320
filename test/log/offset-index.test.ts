import { describe, expect, it } from 'vitest';
import {
  OffsetIndexBuilder,
  decodeOffsetIndex,
  encodeOffsetIndex,
  lookupOffsetIndex,
} from '../../lib/log/offset-index.js';
import { segmentObjectKey } from '../../lib/log/segment-name.js';

describe('OffsetIndex', () => {
  it('adds an entry when more than index.interval.bytes were appended since the last one, as LogSegment.append does', () => {
    const index = new OffsetIndexBuilder(100, 4096);
    // 12 batches of 1000 bytes holding 2 records each: offsets 100..123. The check runs before a
    // batch's own bytes count, so the entries land on the 6th batch and 5 batches after it.
    for (let i = 0; i < 12; i++) index.append(100 + 2 * i + 1, 1000);
    expect(decodeOffsetIndex(100, index.toBuffer())).toEqual([
      { offset: 111, position: 5000 },
      { offset: 121, position: 10000 },
    ]);
  });

  it('has no entries for a single batch, however large', () => {
    const index = new OffsetIndexBuilder(0, 4096);
    index.append(9, 1 << 20);
    expect(index.entryCount).toBe(0);
  });

  it('lays entries out as Kafka does: 4-byte relative offset, 4-byte position, big-endian', () => {
    expect(encodeOffsetIndex(1000, [{ offset: 1005, position: 258 }]).toString('hex')).toBe('0000000500000102');
  });

  it('looks up the greatest entry at or below the target, or the segment start', () => {
    const buf = encodeOffsetIndex(100, [
      { offset: 111, position: 5000 },
      { offset: 123, position: 11000 },
    ]);
    expect(lookupOffsetIndex(100, buf, 100)).toEqual({ offset: 100, position: 0 });
    expect(lookupOffsetIndex(100, buf, 110)).toEqual({ offset: 100, position: 0 });
    expect(lookupOffsetIndex(100, buf, 111)).toEqual({ offset: 111, position: 5000 });
    expect(lookupOffsetIndex(100, buf, 122)).toEqual({ offset: 111, position: 5000 });
    expect(lookupOffsetIndex(100, buf, 500)).toEqual({ offset: 123, position: 11000 });
  });
});

describe('segment object names', () => {
  it('follow <prefix>/<topic>/<partition>/<base, 20 digits>-<segment id><suffix>, with no leading slash for an empty prefix', () => {
    expect(segmentObjectKey('', 'orders', 3, 42, '7-abc', '.log')).toBe('orders/3/00000000000000000042-7-abc.log');
    expect(segmentObjectKey('env/dev', 'orders', 0, 0, '1-x', '.index')).toBe('env/dev/orders/0/00000000000000000000-1-x.index');
  });
});
