import { describe, expect, it } from 'vitest';
import {
  CorruptRecordError,
  UnsupportedCompressionError,
  crc32c,
  decodeRecordBatch,
  encodeRecordBatch,
  readBatchHeader,
} from '../../lib/records/index.js';
import { decodeRecordBatches } from '../support/record-batches.js';
import { goldenBatchHex } from './fixtures/golden-batches.js';

const golden = Buffer.from(goldenBatchHex, 'hex');
const original = decodeRecordBatch(golden);

/** A copy of `batch` after `edit`, with the CRC recomputed so the edit reaches record validation. */
function edited(batch: Buffer, edit: (b: Buffer) => void): Buffer {
  const copy = Buffer.from(batch);
  edit(copy);
  copy.writeUInt32BE(crc32c(copy, 21), 17);
  return copy;
}

function decodeError(batch: Buffer): unknown {
  try {
    decodeRecordBatch(batch);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('RecordBatch v2 corruption', () => {
  it('detects every single-bit flip, except in baseOffset or partitionLeaderEpoch where only that field changes', () => {
    let decodedAfterFlip = 0;
    for (let byte = 0; byte < golden.length; byte++) {
      for (let bit = 0; bit < 8; bit++) {
        const flipped = Buffer.from(golden);
        flipped[byte] ^= 1 << bit;
        const error = decodeError(flipped);
        if (error !== undefined) {
          expect(error, `byte ${byte} bit ${bit}`).toBeInstanceOf(CorruptRecordError);
          continue;
        }
        decodedAfterFlip++;
        const outsideCrc = byte < 8 || (byte >= 12 && byte < 16);
        expect(outsideCrc, `flip at byte ${byte} bit ${bit} went unnoticed`).toBe(true);
        const { header, records } = decodeRecordBatch(flipped);
        const baseOffset = flipped.readBigInt64BE(0);
        const partitionLeaderEpoch = flipped.readInt32BE(12);
        expect(header).toEqual({
          ...original.header,
          baseOffset: Number(baseOffset),
          lastOffset: Number(baseOffset) + 1,
          partitionLeaderEpoch,
        });
        expect(records).toEqual(original.records.map((r, i) => ({ ...r, offset: Number(baseOffset) + i })));
      }
    }
    // Low bits of baseOffset and every bit of the epoch decode, with only that field changed.
    expect(decodedAfterFlip).toBeGreaterThan(40);
  });

  it('refuses the batch truncated at every length', () => {
    for (let length = 0; length < golden.length; length++) {
      const truncated = golden.subarray(0, length);
      expect(() => decodeRecordBatch(truncated), `length ${length}`).toThrow(CorruptRecordError);
      expect(() => readBatchHeader(truncated), `length ${length}`).toThrow(CorruptRecordError);
    }
  });

  it('refuses a run of batches truncated anywhere but at a batch boundary', () => {
    const second = encodeRecordBatch([{ timestamp: 1, key: null, value: Buffer.from('tail') }], { baseOffset: 44 });
    const run = Buffer.concat([golden, second]);
    for (let length = 0; length <= run.length; length++) {
      const truncated = run.subarray(0, length);
      if (length === 0 || length === golden.length || length === run.length) {
        expect(decodeRecordBatches(truncated).length).toBe(length === 0 ? 0 : length === golden.length ? 1 : 2);
      } else {
        expect(() => decodeRecordBatches(truncated), `length ${length}`).toThrow(CorruptRecordError);
      }
    }
  });

  it('reports a CRC mismatch with both values', () => {
    const bad = Buffer.from(golden);
    bad[70] ^= 0xff;
    expect(() => decodeRecordBatch(bad)).toThrow(/stored crc = 722654103, computed crc = \d+/);
  });

  it.each([
    ['a magic byte other than 2', (b: Buffer) => b.writeInt8(1, 16), /magic 1, expected 2/],
    ['a batchLength beyond the buffer', (b: Buffer) => b.writeInt32BE(78, 8), /batchLength 78 but only 77 bytes follow/],
    ['a batchLength below the header size', (b: Buffer) => b.writeInt32BE(48, 8), /below the minimum 49/],
    ['a negative batchLength', (b: Buffer) => b.writeInt32BE(-1, 8), /batchLength -1/],
    ['a negative baseOffset', (b: Buffer) => b.writeBigInt64BE(-5n, 0), /negative baseOffset/],
    ['a baseOffset beyond 2^53', (b: Buffer) => b.writeBigInt64BE(2n ** 60n, 0), /baseOffset .* 2\^53/],
  ])('refuses %s, whatever the CRC', (_name, edit, message) => {
    const bad = Buffer.from(golden);
    edit(bad);
    expect(() => decodeRecordBatch(bad)).toThrow(CorruptRecordError);
    expect(() => decodeRecordBatch(bad)).toThrow(message);
    expect(() => readBatchHeader(bad)).toThrow(CorruptRecordError);
  });

  // Offsets below are into the golden batch: records start at 61; record 0 is bytes 61..78
  // (length 61, key length 65, value length 67, header count 73), record 1 is bytes 79..88.
  it.each([
    ['more records declared than present', (b: Buffer) => b.writeInt32BE(3, 57), /declares 3 records|past the end|truncated/],
    ['fewer records declared than present', (b: Buffer) => b.writeInt32BE(1, 57), /10 bytes left after its 1 records/],
    ['a negative record count', (b: Buffer) => b.writeInt32BE(-1, 57), /negative record count -1/],
    ['a record count that could not fit', (b: Buffer) => b.writeInt32BE(2 ** 31 - 1, 57), /declares 2147483647 records/],
    ['fields running past their declared record length', (b: Buffer) => (b[61] = 0x20), /header value of 1 bytes at byte 77 runs past the end of its record/],
    ['a record declaring more bytes than its fields take', (b: Buffer) => (b[61] = 0x24), /declares 18 bytes but its fields take 17/],
    ['a record running past its batch', (b: Buffer) => (b[79] = 0x14), /runs past the end of its batch/],
    ['a negative record length', (b: Buffer) => (b[61] = 0x03), /invalid record size -2/],
    ['a key length below -1', (b: Buffer) => (b[65] = 0x03), /invalid key length -2/],
    ['a value running past its record', (b: Buffer) => (b[67] = 0x7e), /value of 63 bytes .* runs past the end of its record/],
    ['a negative header count', (b: Buffer) => (b[73] = 0x03), /invalid header count -2/],
    ['a null header key', (b: Buffer) => (b[74] = 0x01), /invalid header key length -1/],
    ['a varint cut off by its record end', (b: Buffer) => (b[88] = 0x81), /truncated varint/],
  ])('refuses %s even with a valid CRC', (_name, edit, message) => {
    const bad = edited(golden, edit);
    expect(() => decodeRecordBatch(bad)).toThrow(CorruptRecordError);
    expect(() => decodeRecordBatch(bad)).toThrow(message);
  });

  it('refuses a gzip batch whose records section is not gzip', () => {
    const bad = edited(golden, (b) => b.writeInt16BE(1, 21));
    expect(() => decodeRecordBatch(bad)).toThrow(/gzip records section does not decompress/);
  });

  it('refuses a gzip batch whose decompressed records do not match its count', () => {
    const gzip = encodeRecordBatch([{ timestamp: 1, key: null, value: Buffer.from('x') }], { baseOffset: 0, compression: 'gzip' });
    expect(() => decodeRecordBatch(edited(gzip, (b) => b.writeInt32BE(2, 57)))).toThrow(CorruptRecordError);
    expect(() => decodeRecordBatch(edited(gzip, (b) => b.writeInt32BE(0, 57)))).toThrow(/bytes left after its 0 records/);
  });

  it('names snappy, lz4 and zstd as unsupported rather than corrupt, and unknown codecs as corrupt', () => {
    for (const [code, name] of [
      [2, 'snappy'],
      [3, 'lz4'],
      [4, 'zstd'],
    ] as const) {
      const batch = edited(golden, (b) => b.writeInt16BE(code, 21));
      expect(() => decodeRecordBatch(batch)).toThrow(UnsupportedCompressionError);
      expect(() => readBatchHeader(batch)).toThrow(new RegExp(name));
    }
    expect(() => decodeRecordBatch(edited(golden, (b) => b.writeInt16BE(5, 21)))).toThrow(/unknown compression codec 5/);
  });

  it('decodes an empty batch (as log compaction leaves them) with no records', () => {
    const empty = edited(golden.subarray(0, 61), (b) => {
      b.writeInt32BE(49, 8);
      b.writeInt32BE(0, 57);
    });
    expect(decodeRecordBatch(empty)).toEqual({
      header: expect.objectContaining({ recordCount: 0, sizeInBytes: 61, lastOffset: 43 }),
      records: [],
    });
  });
});
