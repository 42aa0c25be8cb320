// lib/records/record.ts: one record's wire layout (Kafka's Record v2) and the decoder's bounds.
// Whole batches are covered by the record-batch.*.test.ts files; this holds the record level:
// sizes match what is written, writeRecord/readRecords round-trip, scanRecords agrees.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DecodedRecord, type RecordInput, type RecordsSummary, readRecords, scanRecords, sizeOfRecordBody, writeRecord } from '../../lib/records/record.js';
import { sizeOfVarint } from '../../lib/records/varint.js';

const bytes = fc.option(fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)), { nil: null });
const recordArb: fc.Arbitrary<RecordInput> = fc.record({
  timestamp: fc.integer({ min: 0, max: 2 ** 42 }),
  key: bytes,
  value: bytes,
  headers: fc.array(fc.record({ key: fc.string({ maxLength: 20 }), value: bytes }), { maxLength: 4 }),
});

function encode(records: RecordInput[], baseTimestamp: number): Buffer {
  const parts = records.map((r, i) => {
    const body = sizeOfRecordBody(r, r.timestamp - baseTimestamp, i);
    const buf = Buffer.alloc(sizeOfVarint(body) + body);
    expect(writeRecord(buf, r, r.timestamp - baseTimestamp, i, body, 0)).toBe(buf.length);
    return buf;
  });
  return Buffer.concat(parts);
}

describe('record codec', () => {
  it('a known record, byte for byte (Kafka\'s layout: length, attributes, deltas, key, value, headers)', () => {
    const r: RecordInput = { timestamp: 1001, key: Buffer.from('k'), value: null, headers: [{ key: 'h', value: Buffer.from('v') }] };
    const buf = encode([r], 1000);
    // body 11: attrs 0, tsDelta 1 (zigzag 2), offsetDelta 0, key len 1 (2) 'k', value -1 (1), 1 header (2), key len 1 (2) 'h', value len 1 (2) 'v'
    expect(buf.toString('hex')).toBe(['16', '00', '02', '00', '02', '6b', '01', '02', '02', '68', '02', '76'].join(''));
  });

  it('property: readRecords(writeRecord(x)) = x with offsets and timestamps from the context; scanRecords agrees', () => {
    fc.assert(
      fc.property(fc.array(recordArb, { minLength: 1, maxLength: 10 }), fc.nat({ max: 2 ** 40 }), (records, baseOffset) => {
        const baseTimestamp = Math.min(...records.map((r) => r.timestamp));
        const buf = encode(records, baseTimestamp);
        const out: DecodedRecord[] = new Array(records.length); // one slot per record the batch declares
        expect(readRecords(buf, 0, buf.length, { baseOffset, baseTimestamp, logAppendTime: null }, out)).toBe(buf.length);
        expect(out).toHaveLength(records.length);
        out.forEach((d, i) => {
          expect(d.offset).toBe(baseOffset + i);
          expect(d.timestamp).toBe(records[i].timestamp);
          expect(d.key).toEqual(records[i].key);
          expect(d.value).toEqual(records[i].value);
          expect(d.headers).toEqual(records[i].headers);
        });
        const summary = { minTimestamp: Number.MAX_SAFE_INTEGER, maxTimestamp: -1, offsetsDense: true } as RecordsSummary;
        expect(scanRecords(buf, 0, buf.length, { baseOffset, baseTimestamp, logAppendTime: null }, records.length, summary)).toBe(buf.length);
        expect(summary.minTimestamp).toBe(baseTimestamp);
        expect(summary.maxTimestamp).toBe(Math.max(...records.map((r) => r.timestamp)));
        expect(summary.offsetsDense).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('LogAppendTime: every record reports the batch time', () => {
    const buf = encode([{ timestamp: 5, key: null, value: null }, { timestamp: 9, key: null, value: null }], 5);
    const out: DecodedRecord[] = new Array(2);
    readRecords(buf, 0, buf.length, { baseOffset: 0, baseTimestamp: 5, logAppendTime: 777 }, out);
    expect(out.map((r) => r.timestamp)).toEqual([777, 777]);
  });

  it('refuses wrong input types', () => {
    expect(() => sizeOfRecordBody({ timestamp: 0, key: 'str' as never, value: null }, 0, 0)).toThrow(TypeError);
    expect(() => sizeOfRecordBody({ timestamp: 0, key: null, value: null, headers: [{ key: 1 as never, value: null }] }, 0, 0)).toThrow(/header key/);
  });

  it('never reads past `end`: a record cut short is an error, not a read beyond', () => {
    const buf = encode([{ timestamp: 0, key: Buffer.from('key'), value: Buffer.from('value') }], 0);
    for (let end = 0; end < buf.length; end++) {
      expect(() => readRecords(buf, 0, end, { baseOffset: 0, baseTimestamp: 0, logAppendTime: null }, new Array(1))).toThrow();
      expect(() => scanRecords(buf, 0, end, { baseOffset: 0, baseTimestamp: 0, logAppendTime: null }, 1, {} as RecordsSummary)).toThrow();
    }
  });
});
