// Batch compression codecs, identified by attribute bits 0-2 as Kafka numbers them:
// 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd (5-7 unassigned). Sluice writes and reads none and
// gzip (node:zlib, no native add-ons in the Lambda bundle); the rest are refused by name so an
// operator sees which codec a foreign producer used instead of a generic decode failure.

import { gunzipSync, gzipSync } from 'node:zlib';
import { CorruptRecordError, DecompressedSizeError, UnsupportedCompressionError } from './errors.js';

export type CompressionType = 'none' | 'gzip';

/** Mask of the compression codec inside the batch attributes. */
export const COMPRESSION_CODEC_MASK = 0x07;

const UNSUPPORTED_CODECS: Record<number, string> = { 2: 'snappy', 3: 'lz4', 4: 'zstd' };

/** Attribute bits for a codec. */
export function compressionCode(type: CompressionType): number {
  switch (type) {
    case 'none':
      return 0;
    case 'gzip':
      return 1;
    default:
      throw new UnsupportedCompressionError(`compression '${String(type)}' is not supported; use 'none' or 'gzip'`);
  }
}

/** The codec named by batch attributes. */
export function compressionFromAttributes(attributes: number): CompressionType {
  const code = attributes & COMPRESSION_CODEC_MASK;
  if (code === 0) return 'none';
  if (code === 1) return 'gzip';
  const name = UNSUPPORTED_CODECS[code];
  if (name !== undefined) {
    throw new UnsupportedCompressionError(`record batch uses ${name} compression, which Sluice does not support`);
  }
  throw new CorruptRecordError(`record batch attributes name unknown compression codec ${code}`);
}

export function compress(type: CompressionType, data: Buffer): Buffer {
  return type === 'gzip' ? gzipSync(data) : data;
}

/**
 * Decompresses a batch's records section; a broken stream is corruption. With `maxOutputLength`
 * zlib stops inflating once the output would pass it (DecompressedSizeError), so a few KB of
 * gzip can never make the caller allocate gigabytes: the limit bounds memory, not just the answer.
 */
export function decompress(type: CompressionType, data: Buffer, maxOutputLength?: number): Buffer {
  if (type === 'none') return data;
  try {
    return maxOutputLength === undefined ? gunzipSync(data) : gunzipSync(data, { maxOutputLength });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' && maxOutputLength !== undefined) {
      throw new DecompressedSizeError(
        `gzip records section decompresses to more than the limit of ${maxOutputLength} bytes`,
        maxOutputLength,
      );
    }
    throw new CorruptRecordError(`gzip records section does not decompress: ${(error as Error).message}`);
  }
}
