// Decoding batches read from a segment object, with the checks a reader owes its callers: the
// CRC-32C of every batch (a corrupt batch is CORRUPT_MESSAGE, never data) and that each batch's
// offsets lie inside the manifest range it was read for.
import { SluiceError } from '../errors.js';
import { MAX_MESSAGE_BYTES_LIMIT } from '../metadata/topics.js';
import type { ManifestRange } from '../metadata/types.js';
import {
  CorruptRecordError,
  DecompressedSizeError,
  type DecodedBatch,
  LOG_OVERHEAD,
  type RecordBatchHeader,
  decodeRecordBatch,
  readBatchHeader,
} from '../records/index.js';

/** Size of the batch starting at `position`, or undefined when its length prefix is not in `buf`. */
export function batchSizeAt(buf: Buffer, position: number): number | undefined {
  return buf.length - position >= LOG_OVERHEAD ? LOG_OVERHEAD + buf.readInt32BE(position + 8) : undefined;
}

/**
 * What one stored batch may decompress to: produce refuses any batch whose records exceed the
 * largest max.message.bytes a topic may have, so a stored batch beyond it is corrupt (or written
 * before that check existed) and is refused rather than inflated without bound.
 */
const MAX_DECOMPRESSED_BATCH_BYTES = MAX_MESSAGE_BYTES_LIMIT;

export function decodeBatchOf(range: ManifestRange, buf: Buffer, position: number): DecodedBatch {
  const batch = asCorrupt(range, () => decodeRecordBatch(buf, position, { maxDecompressedBytes: MAX_DECOMPRESSED_BATCH_BYTES }));
  checkInsideRange(range, batch.header);
  return batch;
}

/** The header of the batch at `position` (its CRC is not checked), inside the range's offsets. */
export function batchHeaderOf(range: ManifestRange, buf: Buffer, position: number): RecordBatchHeader {
  const header = asCorrupt(range, () => readBatchHeader(buf, position));
  checkInsideRange(range, header);
  return header;
}

function asCorrupt<T>(range: ManifestRange, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof CorruptRecordError || e instanceof DecompressedSizeError || e instanceof RangeError) {
      throw new SluiceError('CORRUPT_MESSAGE', `segment ${range.objectKey}: ${e.message}`, { objectKey: range.objectKey });
    }
    throw e;
  }
}

function checkInsideRange(range: ManifestRange, { baseOffset, lastOffset }: RecordBatchHeader): void {
  if (baseOffset < range.baseOffset || lastOffset > range.lastOffset) {
    throw new SluiceError(
      'CORRUPT_MESSAGE',
      `segment ${range.objectKey}: batch [${baseOffset}, ${lastOffset}] lies outside its manifest range [${range.baseOffset}, ${range.lastOffset}]`,
      { objectKey: range.objectKey },
    );
  }
}

/** Every complete batch of `buf` (read from the range), and where the complete part ends. */
export function decodeCompleteBatches(range: ManifestRange, buf: Buffer): { batches: DecodedBatch[]; end: number } {
  const batches: DecodedBatch[] = [];
  let position = 0;
  for (;;) {
    const size = batchSizeAt(buf, position);
    if (size === undefined || position + size > buf.length) return { batches, end: position };
    batches.push(decodeBatchOf(range, buf, position));
    position += size;
  }
}
