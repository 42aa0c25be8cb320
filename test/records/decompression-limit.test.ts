// The codec's decompression limit: a gzip batch that inflates past `maxDecompressedBytes` is
// refused with DecompressedSizeError (zlib stops at the limit, it never allocates the whole output),
// a batch within it decodes as before, and validate reports the decompressed size a size limit needs.
import { describe, expect, it } from 'vitest';
import {
  DecompressedSizeError,
  decodeRecordBatch,
  encodeRecordBatch,
  validateRecordBatch,
} from '../../lib/records/index.js';

const T0 = 1_700_000_000_000;

/** One record of `size` zero bytes, gzip-compressed: a few KB that inflate to `size`. */
function bomb(size: number): Buffer {
  return encodeRecordBatch([{ timestamp: T0, key: null, value: Buffer.alloc(size) }], { baseOffset: 0, compression: 'gzip' });
}

describe('decompression limit', () => {
  it('refuses a gzip batch that inflates past the limit, in decode and validate alike', () => {
    const batch = bomb(8 * 1024 * 1024);
    expect(batch.length).toBeLessThan(16 * 1024);
    expect(() => decodeRecordBatch(batch, 0, { maxDecompressedBytes: 1024 * 1024 })).toThrow(DecompressedSizeError);
    expect(() => validateRecordBatch(batch, 0, { maxDecompressedBytes: 1024 * 1024 })).toThrow(
      expect.objectContaining({ name: 'DecompressedSizeError', limit: 1024 * 1024 }),
    );
  });

  it('decodes a batch within the limit and reports its decompressed size', () => {
    const batch = bomb(100_000);
    const decoded = decodeRecordBatch(batch, 0, { maxDecompressedBytes: 200_000 });
    expect(decoded.records[0].value!.length).toBe(100_000);
    const summary = validateRecordBatch(batch, 0, { maxDecompressedBytes: 200_000 });
    expect(summary.decompressedSizeInBytes).toBeGreaterThan(100_000);
    expect(summary.decompressedSizeInBytes).toBeGreaterThan(batch.length);
  });

  it('reports an uncompressed batch at its own size', () => {
    const batch = encodeRecordBatch([{ timestamp: T0, key: null, value: Buffer.from('v') }], { baseOffset: 0 });
    expect(validateRecordBatch(batch).decompressedSizeInBytes).toBe(batch.length);
  });
});
