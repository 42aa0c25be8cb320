// The consumer decodes fetched gzip batches with an output limit: a batch inflating past it fails
// with MESSAGE_TOO_LARGE (not retriable: the same offset returns the same batch) instead of being
// inflated into memory; the default (8 MiB) takes every batch a server can have accepted.
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES, decodeFetchedBatches } from '../../lib/client/consumed-message.js';
import { encodeRecordBatch } from '../../lib/records/index.js';

const gzipBatch = (valueBytes: number) =>
  encodeRecordBatch([{ timestamp: 1, key: null, value: Buffer.alloc(valueBytes, 7) }], { baseOffset: 0, compression: 'gzip' });

describe('client decompression limit', () => {
  it('refuses a fetched batch inflating past the default limit', () => {
    const bomb = gzipBatch(DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES + 1);
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(() => decodeFetchedBatches(bomb, 0)).toThrow(expect.objectContaining({ code: 'MESSAGE_TOO_LARGE', retriable: false }));
  });

  it('takes a configured limit, and decodes batches within it', () => {
    const batch = gzipBatch(4 * 1024 * 1024);
    expect(decodeFetchedBatches(batch, 0)[0].value!.length).toBe(4 * 1024 * 1024);
    expect(() => decodeFetchedBatches(batch, 0, { maxDecompressedBytes: 1024 * 1024 })).toThrow(
      expect.objectContaining({ code: 'MESSAGE_TOO_LARGE', details: { maxDecompressedBytes: 1024 * 1024 } }),
    );
  });
});
