// lib/records/compression.ts: codec bits as Kafka numbers them; gzip round-trips; unsupported
// codecs are named; a broken stream is corruption; the output limit stops inflation.
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMPRESSION_CODEC_MASK, compress, compressionCode, compressionFromAttributes, decompress } from '../../lib/records/compression.js';
import { CorruptRecordError, DecompressedSizeError, UnsupportedCompressionError } from '../../lib/records/errors.js';

describe('compression', () => {
  it('codes: none 0, gzip 1; anything else refused', () => {
    expect(compressionCode('none')).toBe(0);
    expect(compressionCode('gzip')).toBe(1);
    expect(() => compressionCode('snappy' as never)).toThrow(UnsupportedCompressionError);
    expect(COMPRESSION_CODEC_MASK).toBe(7);
  });
  it('attributes: only bits 0-2 name the codec; snappy, lz4, zstd named; 5-7 corrupt', () => {
    expect(compressionFromAttributes(0)).toBe('none');
    expect(compressionFromAttributes(1)).toBe('gzip');
    expect(compressionFromAttributes(0x18 | 1)).toBe('gzip'); // timestamp type / transactional bits ignored
    expect(() => compressionFromAttributes(2)).toThrow(/snappy/);
    expect(() => compressionFromAttributes(3)).toThrow(/lz4/);
    expect(() => compressionFromAttributes(4)).toThrow(expect.objectContaining({ name: 'UnsupportedCompressionError', message: expect.stringMatching(/zstd/) }));
    for (const code of [5, 6, 7]) expect(() => compressionFromAttributes(code)).toThrow(CorruptRecordError);
  });
  it('property: decompress(compress(x)) = x for both codecs; none is the identity', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), (bytes) => {
        const data = Buffer.from(bytes);
        expect(compress('none', data)).toBe(data);
        expect(decompress('gzip', compress('gzip', data))).toEqual(data);
        expect(decompress('gzip', compress('gzip', data), Math.max(1, data.length))).toEqual(data); // zlib's limit is at least 1
      }),
      { numRuns: 50 },
    );
  });
  it('a broken gzip stream is CorruptRecordError', () => {
    expect(() => decompress('gzip', Buffer.from('not gzip'))).toThrow(CorruptRecordError);
  });
  it('past maxOutputLength: DecompressedSizeError carrying the limit', () => {
    const bomb = gzipSync(Buffer.alloc(1 << 20));
    const e = (() => {
      try {
        decompress('gzip', bomb, 1000);
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(DecompressedSizeError);
    expect((e as DecompressedSizeError).limit).toBe(1000);
  });
});
