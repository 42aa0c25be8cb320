// validateRecordBatch must accept and refuse exactly the bytes decodeRecordBatch accepts and refuses,
// with the same error (class and message), and summarise an accepted batch as its decoded records
// would: the produce path validates with it and stores the bytes, the fetch path decodes them.
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CompressionType,
  type DecodedBatch,
  crc32c,
  decodeRecordBatch,
  encodeRecordBatch,
  validateRecordBatch,
} from '../../lib/records/index.js';
import { batchFields, records } from './arbitraries.js';
import { goldenBatchHex } from './fixtures/golden-batches.js';

const golden = Buffer.from(goldenBatchHex, 'hex');
const RECORDS_OFFSET = 61;

type Verdict = { ok: true; value: unknown } | { ok: false; error: { name: string; message: string; ctor: unknown } };

function verdict(f: () => unknown): Verdict {
  try {
    return { ok: true, value: f() };
  } catch (e) {
    const error = e as Error;
    return { ok: false, error: { name: error.name, message: error.message, ctor: error.constructor } };
  }
}

/** What validateRecordBatch should say of a batch, computed from its decoded records. */
function summaryOf({ header, records: rs }: DecodedBatch, buf: Buffer, position: number) {
  let minTimestamp = Number.MAX_SAFE_INTEGER;
  let maxTimestamp = -1;
  for (const r of rs) {
    minTimestamp = Math.min(minTimestamp, r.timestamp);
    maxTimestamp = Math.max(maxTimestamp, r.timestamp);
  }
  // The records section inflated, plus the 61-byte header: what a reader holds once it decodes.
  const decompressedSizeInBytes =
    header.compression === 'gzip' ? 61 + gunzipSync(buf.subarray(position + 61, position + header.sizeInBytes)).length : header.sizeInBytes;
  return { header, minTimestamp, maxTimestamp, offsetsDense: rs.every((r, i) => r.offset - header.baseOffset === i), decompressedSizeInBytes };
}

/** Both verdicts on `buf` at `position`; returns whether the batch was accepted. */
function expectSameVerdict(buf: Buffer, position = 0): boolean {
  const decoded = verdict(() => decodeRecordBatch(buf, position));
  const validated = verdict(() => validateRecordBatch(buf, position));
  if (decoded.ok) {
    expect(validated.ok, `validate refused what decode accepted: ${validated.ok ? '' : validated.error.message}`).toBe(true);
    expect(validated.ok && validated.value).toEqual(summaryOf(decoded.value as DecodedBatch, buf, position));
  } else {
    expect(validated.ok, `validate accepted what decode refused: ${decoded.error.message}`).toBe(false);
    expect(!validated.ok && validated.error).toEqual(decoded.error);
  }
  return decoded.ok;
}

/** A copy of `batch` after `edit`, with the CRC recomputed so the edit reaches record validation. */
function edited(batch: Buffer, edit: (b: Buffer) => void): Buffer {
  const copy = Buffer.from(batch);
  edit(copy);
  copy.writeUInt32BE(crc32c(copy, 21), 17);
  return copy;
}

/** An uncompressed batch whose records section is replaced by `section` (batchLength and CRC made to fit). */
function withSection(batch: Buffer, section: Uint8Array): Buffer {
  const out = Buffer.concat([batch.subarray(0, RECORDS_OFFSET), section]);
  out.writeInt32BE(out.length - 12, 8);
  out.writeUInt32BE(crc32c(out, 21), 17);
  return out;
}

const compression = fc.constantFrom<CompressionType>('none', 'gzip');

describe('validateRecordBatch', () => {
  it('agrees with decodeRecordBatch on every encodable batch, compressed or not', () => {
    fc.assert(
      fc.property(records, batchFields, compression, (rs, fields, codec) => {
        const batch = encodeRecordBatch(rs, { ...fields, compression: codec });
        expect(expectSameVerdict(batch)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('agrees on every byte of the golden batch set to boundary values, the CRC made valid so records are walked', () => {
    let refused = 0;
    for (let byte = 0; byte < golden.length; byte++) {
      for (const value of [0x00, 0x01, 0x7f, 0x80, 0xff, golden[byte] ^ 0x01, golden[byte] ^ 0x40]) {
        if (!expectSameVerdict(edited(golden, (b) => (b[byte] = value)))) refused++;
      }
    }
    expect(refused).toBeGreaterThan(0);
  });

  it('agrees on random overwrites, insertions and cuts of a records section', () => {
    const edit = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
      fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 6 }) }),
      fc.record({ kind: fc.constant('cut' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 6 }) }),
    );
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(records, batchFields, fc.array(edit, { minLength: 1, maxLength: 3 }), (rs, fields, edits) => {
        const batch = encodeRecordBatch(rs, fields);
        let section = Buffer.from(batch.subarray(RECORDS_OFFSET));
        for (const e of edits) {
          const at = section.length === 0 ? 0 : e.at % section.length;
          if (e.kind === 'set') {
            if (section.length > 0) section[at] = e.value;
          } else if (e.kind === 'insert') {
            section = Buffer.concat([section.subarray(0, at), e.bytes, section.subarray(at)]);
          } else {
            section = Buffer.concat([section.subarray(0, at), section.subarray(at + e.length)]);
          }
        }
        if (expectSameVerdict(withSection(batch, section))) accepted++;
        else refused++;
      }),
      { numRuns: 400 },
    );
    expect(refused).toBeGreaterThan(0);
    expect(accepted + refused).toBe(400);
  });

  it('agrees on header edits: record count, lastOffsetDelta, codec bits, timestamps, baseOffset', () => {
    const field = fc.constantFrom(
      { at: 57, size: 4 }, // recordCount
      { at: 23, size: 4 }, // lastOffsetDelta
      { at: 21, size: 2 }, // attributes
      { at: 27, size: 8 }, // baseTimestamp
      { at: 35, size: 8 }, // maxTimestamp
      { at: 0, size: 8 }, // baseOffset
      { at: 43, size: 8 }, // producerId
    );
    fc.assert(
      fc.property(records, batchFields, field, fc.uint8Array({ minLength: 8, maxLength: 8 }), (rs, fields, f, bytes) => {
        const batch = edited(encodeRecordBatch(rs, fields), (b) => b.set(bytes.subarray(0, f.size), f.at));
        expectSameVerdict(batch);
      }),
      { numRuns: 300 },
    );
  });

  it('agrees on truncated buffers, a flipped CRC, and a batch at a position inside a larger buffer', () => {
    const batch = encodeRecordBatch(
      [
        { timestamp: 1_700_000_000_000, key: Buffer.from('k'), value: Buffer.from('v'), headers: [{ key: 'h', value: null }] },
        { timestamp: 1_700_000_000_005, key: null, value: null },
      ],
      { baseOffset: 0 },
    );
    for (let length = 0; length < batch.length; length++) expect(expectSameVerdict(batch.subarray(0, length))).toBe(false);
    const flipped = Buffer.from(batch);
    flipped[batch.length - 1] ^= 0x10;
    expect(expectSameVerdict(flipped)).toBe(false);
    const inside = Buffer.concat([Buffer.alloc(5, 0xaa), batch, Buffer.alloc(3)]);
    expect(expectSameVerdict(inside, 5)).toBe(true);
    expect(validateRecordBatch(inside, 5)).toMatchObject({ minTimestamp: 1_700_000_000_000, maxTimestamp: 1_700_000_000_005, offsetsDense: true });
  });

  it('reports offsets that are not 0..count-1 as not dense', () => {
    // Swap the two records' offsetDelta varints (each one byte: 0 and 2 in zigzag) in place.
    const batch = encodeRecordBatch(
      [
        { timestamp: 1, key: null, value: Buffer.from('a') },
        { timestamp: 2, key: null, value: Buffer.from('b') },
      ],
      { baseOffset: 0 },
    );
    const swapped = edited(batch, (b) => {
      // record: length, attributes, timestampDelta, offsetDelta, ...; each record here is 8 bytes (length + 7).
      b[RECORDS_OFFSET + 3] = 2; // record 0: offsetDelta 1
      b[RECORDS_OFFSET + 8 + 3] = 0; // record 1: offsetDelta 0
    });
    expect(expectSameVerdict(swapped)).toBe(true);
    expect(validateRecordBatch(swapped).offsetsDense).toBe(false);
    expect(validateRecordBatch(batch).offsetsDense).toBe(true);
  });
});
