import { describe, expect, it } from 'vitest';
import {
  OffsetIndexBuilder,
  encodeOffsetIndex,
  lookupOffsetIndex,
} from '../../lib/log/offset-index.js';
import { decodeOffsetIndex } from './index-files.js';
import { intakeObjectKey, parseIntakeObjectKey, partitionObjectPrefix, segmentObjectKey } from '../../lib/log/segment-name.js';

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

const orders = { name: 'orders', id: 'Zx3kQ9aTR0mS2bLw5nY8uA' };

describe('segment object names', () => {
  it('follow <prefix>/<topic>-<topic id>/<partition>/<base, 20 digits>-<segment id><suffix>, with no leading slash for an empty prefix', () => {
    expect(segmentObjectKey('', orders, 3, 42, '7-abc', '.log')).toBe('orders-Zx3kQ9aTR0mS2bLw5nY8uA/3/00000000000000000042-7-abc.log');
    expect(segmentObjectKey('env/dev', orders, 0, 0, '1-x', '.index')).toBe('env/dev/orders-Zx3kQ9aTR0mS2bLw5nY8uA/0/00000000000000000000-1-x.index');
  });

  it('differ between a topic and its re-created successor (a new topic id), so their objects never mix', () => {
    const successor = { name: 'orders', id: 'Q1w2E3r4T5y6U7i8O9p0Aa' };
    expect(segmentObjectKey('', successor, 3, 42, '7-abc', '.log')).not.toBe(segmentObjectKey('', orders, 3, 42, '7-abc', '.log'));
  });

  it('keep partition folders apart: partition 1 is not a prefix of partition 10', () => {
    expect(segmentObjectKey('', orders, 10, 0, '1-x', '.log').startsWith(partitionObjectPrefix('', orders, 1))).toBe(false);
  });
});

describe('intake object names', () => {
  it('are unique per request, under _intake/<hour>/, and parse back to their time and id', () => {
    const ms = Date.UTC(2026, 10, 30, 11, 5, 0);
    const a = intakeObjectKey('env', ms);
    const b = intakeObjectKey('env', ms);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^env\/_intake\/2026-11-30T11\/\d+-[0-9a-f]{16}\.log$/);
    expect(parseIntakeObjectKey('env', a)).toEqual({ ms, id: a.slice(-20, -4) });
    expect(parseIntakeObjectKey('env', segmentObjectKey('env', orders, 0, 0, '1-x', '.log'))).toBeUndefined();
  });
});
