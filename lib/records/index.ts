// Public API of the RecordBatch v2 codec: pure bytes, no I/O, no AWS.

export type { CompressionType } from './compression.js';
export { crc32c } from './crc32c.js';
export { CorruptRecordError, DecompressedSizeError, UnsupportedCompressionError } from './errors.js';
export type { DecodedRecord, RecordHeader, RecordInput, RecordsSummary } from './record.js';
export {
  type BatchSummary,
  type DecodeLimits,
  type DecodedBatch,
  type EncodeBatchOptions,
  LOG_OVERHEAD,
  RECORD_BATCH_OVERHEAD,
  type RecordBatchHeader,
  decodeRecordBatch,
  encodeRecordBatch,
  readBatchHeader,
  validateRecordBatch,
} from './record-batch.js';
