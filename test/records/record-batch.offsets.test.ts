import { describe, expect, it } from 'vitest';
import {
  CorruptRecordError,
  RECORD_BATCH_OVERHEAD,
  UnsupportedCompressionError,
  decodeRecordBatch,
  encodeRecordBatch,
  readBatchHeader,
} from '../../lib/records/index.js';
import { goldenBatchHex } from './fixtures/golden-batches.js';

const golden = Buffer.from(goldenBatchHex, 'hex');

describe('walking a segment by headers', () => {
  it('steps from batch to batch with readBatchHeader without decoding records', () => {
    const batches = [0, 3, 4].map((baseOffset, i) =>
      encodeRecordBatch(
        Array.from({ length: i + 1 }, (_, j) => ({ timestamp: 1000 + j, key: null, value: Buffer.alloc(10 * j) })),
        { baseOffset, compression: i === 1 ? 'gzip' : 'none' },
      ),
    );
    const segment = Buffer.concat(batches);
    const seen: [number, number, number][] = [];
    for (let position = 0; position < segment.length; ) {
      const header = readBatchHeader(segment, position);
      seen.push([position, header.baseOffset, header.lastOffset]);
      position += header.sizeInBytes;
    }
    expect(seen).toEqual([
      [0, 0, 0],
      [batches[0].length, 3, 4],
      [batches[0].length + batches[1].length, 4, 6],
    ]);
    expect(decodeRecordBatch(segment, batches[0].length).records.map((r) => r.offset)).toEqual([3, 4]);
  });

  it('refuses a position outside the buffer as a programming error', () => {
    expect(() => readBatchHeader(golden, -1)).toThrow(RangeError);
    expect(() => readBatchHeader(golden, golden.length + 1)).toThrow(RangeError);
    expect(() => readBatchHeader(golden, golden.length)).toThrow(CorruptRecordError);
  });
});

describe('encodeRecordBatch input checks', () => {
  const one = [{ timestamp: 1, key: null, value: Buffer.from('v') }];

  it('writes a batch of header plus records and nothing else', () => {
    expect(encodeRecordBatch(one, { baseOffset: 0 }).length).toBe(RECORD_BATCH_OVERHEAD + 8);
  });

  it('refuses an empty batch', () => {
    expect(() => encodeRecordBatch([], { baseOffset: 0 })).toThrow(/at least one record/);
  });

  it.each([
    ['a negative baseOffset', { baseOffset: -1 }],
    ['a fractional baseOffset', { baseOffset: 0.5 }],
    ['a partitionLeaderEpoch beyond int32', { baseOffset: 0, partitionLeaderEpoch: 2 ** 31 }],
    ['a producerEpoch beyond int16', { baseOffset: 0, producerEpoch: 2 ** 15 }],
    ['a baseSequence below -1', { baseOffset: 0, baseSequence: -2 }],
    ['a producerId beyond 2^53', { baseOffset: 0, producerId: 2 ** 53 }],
  ])('refuses %s', (_name, options) => {
    expect(() => encodeRecordBatch(one, options)).toThrow(RangeError);
  });

  it('refuses negative or non-integer timestamps and non-Buffer data', () => {
    expect(() => encodeRecordBatch([{ timestamp: -1, key: null, value: null }], { baseOffset: 0 })).toThrow(/timestamp of record 0/);
    expect(() => encodeRecordBatch([{ timestamp: 1.5, key: null, value: null }], { baseOffset: 0 })).toThrow(RangeError);
    const stringValue = [{ timestamp: 1, key: null, value: 'text' as unknown as Buffer }];
    expect(() => encodeRecordBatch(stringValue, { baseOffset: 0 })).toThrow(/record value must be a Buffer or null/);
    const nullHeaderKey = [{ timestamp: 1, key: null, value: null, headers: [{ key: null as unknown as string, value: null }] }];
    expect(() => encodeRecordBatch(nullHeaderKey, { baseOffset: 0 })).toThrow(/header key must be a string/);
  });

  it('refuses a codec it cannot write', () => {
    const options = { baseOffset: 0, compression: 'snappy' as unknown as 'gzip' };
    expect(() => encodeRecordBatch(one, options)).toThrow(UnsupportedCompressionError);
  });

  it('accepts a plain Uint8Array as key or value', () => {
    const batch = encodeRecordBatch([{ timestamp: 1, key: new Uint8Array([1, 2]) as Buffer, value: null }], { baseOffset: 0 });
    expect(decodeRecordBatch(batch).records[0].key).toEqual(Buffer.from([1, 2]));
  });
});
