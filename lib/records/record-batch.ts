// Kafka RecordBatch v2 (magic 2), byte for byte as Kafka's DefaultRecordBatch lays it out in a
// `.log` segment file. All integers big-endian.
//
//   offset  size  field
//        0     8  baseOffset            int64   offset of the first record
//        8     4  batchLength           int32   bytes after this field (total size = 12 + batchLength)
//       12     4  partitionLeaderEpoch  int32   leader epoch that wrote the batch (-1 from producers)
//       16     1  magic                 int8    2
//       17     4  crc                   uint32  CRC-32C of bytes 21 .. end
//       21     2  attributes            int16   bits 0-2 codec, 3 timestampType, 4 transactional, 5 control
//       23     4  lastOffsetDelta       int32
//       27     8  baseTimestamp         int64   first record's timestamp
//       35     8  maxTimestamp          int64   (the log append time for LogAppendTime batches)
//       43     8  producerId            int64   -1 when not idempotent
//       51     2  producerEpoch         int16
//       53     4  baseSequence          int32
//       57     4  recordCount           int32
//       61     -  records               (see record.ts), compressed as one stream when the codec is set
//
// baseOffset, batchLength and partitionLeaderEpoch sit outside the CRC, which is why a broker
// (here: a fetch and a merge, lib/log/batch-stamp.ts) can assign offsets and stamp its epoch
// without recomputing it.

import { type CompressionType, compress, compressionCode, compressionFromAttributes, decompress } from './compression.js';
import { crc32c } from './crc32c.js';
import { CorruptRecordError } from './errors.js';
import { readInt64, writeInt64 } from './int64.js';
import {
  type DecodedRecord,
  type RecordContext,
  type RecordInput,
  type RecordsSummary,
  readRecords,
  scanRecords,
  sizeOfRecordBody,
  writeRecord,
} from './record.js';
import { sizeOfVarint } from './varint.js';

/** Bytes before batchLength's coverage begins: baseOffset + batchLength. */
export const LOG_OVERHEAD = 12;
/** Size of a batch header, i.e. of a batch with no records. */
export const RECORD_BATCH_OVERHEAD = 61;

const BATCH_LENGTH_OFFSET = 8;
const PARTITION_LEADER_EPOCH_OFFSET = 12;
const MAGIC_OFFSET = 16;
const CRC_OFFSET = 17;
const ATTRIBUTES_OFFSET = 21;
const LAST_OFFSET_DELTA_OFFSET = 23;
const BASE_TIMESTAMP_OFFSET = 27;
const MAX_TIMESTAMP_OFFSET = 35;
const PRODUCER_ID_OFFSET = 43;
const PRODUCER_EPOCH_OFFSET = 51;
const BASE_SEQUENCE_OFFSET = 53;
const RECORD_COUNT_OFFSET = 57;
const RECORDS_OFFSET = 61;

const MAGIC = 2;
const TIMESTAMP_TYPE_MASK = 0x08;
const TRANSACTIONAL_MASK = 0x10;
const CONTROL_MASK = 0x20;
/** Smallest encoded record: length, attributes, timestampDelta, offsetDelta, key, value, headerCount. */
const MIN_RECORD_SIZE = 7;

export interface EncodeBatchOptions {
  readonly baseOffset: number;
  /** @default -1 (producers do not know the leader epoch; the append path stamps it) */
  readonly partitionLeaderEpoch?: number;
  /** @default 'none' */
  readonly compression?: CompressionType;
  /** @default -1 */
  readonly producerId?: number;
  /** @default -1 */
  readonly producerEpoch?: number;
  /** @default -1 */
  readonly baseSequence?: number;
  /** @default false */
  readonly isTransactional?: boolean;
  /**
   * With 'LogAppendTime' the batch's maxTimestamp is the append time and readers report it for
   * every record: stamp the records with the append time before encoding.
   * @default 'CreateTime'
   */
  readonly timestampType?: 'CreateTime' | 'LogAppendTime';
}

export interface RecordBatchHeader {
  baseOffset: number;
  batchLength: number;
  partitionLeaderEpoch: number;
  magic: number;
  crc: number;
  attributes: number;
  compression: CompressionType;
  timestampType: 'CreateTime' | 'LogAppendTime';
  isTransactional: boolean;
  isControl: boolean;
  lastOffsetDelta: number;
  /** baseOffset + lastOffsetDelta */
  lastOffset: number;
  baseTimestamp: number;
  maxTimestamp: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  recordCount: number;
  /** 12 + batchLength: the batch's whole size in the log */
  sizeInBytes: number;
}

export interface DecodedBatch {
  header: RecordBatchHeader;
  /** Keys and values alias `buf` (or the decompressed records section): copy before reusing `buf`. */
  records: DecodedRecord[];
}

function requireInteger(value: number, min: number, max: number, what: string): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${what} must be an integer in [${min}, ${max}], got ${value}`);
  }
}

/**
 * Encodes records as one RecordBatch v2 with dense offsets baseOffset .. baseOffset+n-1.
 * baseTimestamp is the first record's timestamp (as Kafka's MemoryRecordsBuilder sets it).
 */
export function encodeRecordBatch(records: readonly RecordInput[], options: EncodeBatchOptions): Buffer {
  const {
    baseOffset,
    partitionLeaderEpoch = -1,
    compression = 'none',
    producerId = -1,
    producerEpoch = -1,
    baseSequence = -1,
    isTransactional = false,
    timestampType = 'CreateTime',
  } = options;
  if (records.length === 0) throw new RangeError('a record batch needs at least one record');
  requireInteger(baseOffset, 0, Number.MAX_SAFE_INTEGER - records.length, 'baseOffset');
  requireInteger(partitionLeaderEpoch, -1, 0x7fff_ffff, 'partitionLeaderEpoch');
  requireInteger(producerId, -1, Number.MAX_SAFE_INTEGER, 'producerId');
  requireInteger(producerEpoch, -1, 0x7fff, 'producerEpoch');
  requireInteger(baseSequence, -1, 0x7fff_ffff, 'baseSequence');
  if (timestampType !== 'CreateTime' && timestampType !== 'LogAppendTime') {
    throw new RangeError(`timestampType must be 'CreateTime' or 'LogAppendTime', got ${String(timestampType)}`);
  }
  const attributes =
    compressionCode(compression) |
    (timestampType === 'LogAppendTime' ? TIMESTAMP_TYPE_MASK : 0) |
    (isTransactional ? TRANSACTIONAL_MASK : 0);

  const baseTimestamp = records[0].timestamp;
  let maxTimestamp = -1;
  const bodySizes = new Array<number>(records.length);
  let recordsSize = 0;
  for (let i = 0; i < records.length; i++) {
    const { timestamp } = records[i];
    requireInteger(timestamp, 0, Number.MAX_SAFE_INTEGER, `timestamp of record ${i}`);
    if (timestamp > maxTimestamp) maxTimestamp = timestamp;
    const bodySize = sizeOfRecordBody(records[i], timestamp - baseTimestamp, i);
    bodySizes[i] = bodySize;
    recordsSize += sizeOfVarint(bodySize) + bodySize;
  }

  let batch: Buffer;
  if (compression === 'none') {
    batch = Buffer.allocUnsafe(RECORDS_OFFSET + recordsSize);
    writeRecords(batch, records, baseTimestamp, bodySizes, RECORDS_OFFSET);
  } else {
    const section = Buffer.allocUnsafe(recordsSize);
    writeRecords(section, records, baseTimestamp, bodySizes, 0);
    const compressed = compress(compression, section);
    batch = Buffer.allocUnsafe(RECORDS_OFFSET + compressed.length);
    compressed.copy(batch, RECORDS_OFFSET);
  }
  writeInt64(batch, baseOffset, 0);
  batch.writeInt32BE(batch.length - LOG_OVERHEAD, BATCH_LENGTH_OFFSET);
  batch.writeInt32BE(partitionLeaderEpoch, PARTITION_LEADER_EPOCH_OFFSET);
  batch.writeInt8(MAGIC, MAGIC_OFFSET);
  batch.writeInt16BE(attributes, ATTRIBUTES_OFFSET);
  batch.writeInt32BE(records.length - 1, LAST_OFFSET_DELTA_OFFSET);
  writeInt64(batch, baseTimestamp, BASE_TIMESTAMP_OFFSET);
  writeInt64(batch, maxTimestamp, MAX_TIMESTAMP_OFFSET);
  writeInt64(batch, producerId, PRODUCER_ID_OFFSET);
  batch.writeInt16BE(producerEpoch, PRODUCER_EPOCH_OFFSET);
  batch.writeInt32BE(baseSequence, BASE_SEQUENCE_OFFSET);
  batch.writeInt32BE(records.length, RECORD_COUNT_OFFSET);
  batch.writeUInt32BE(crc32c(batch, ATTRIBUTES_OFFSET), CRC_OFFSET);
  return batch;
}

function writeRecords(
  buf: Buffer,
  records: readonly RecordInput[],
  baseTimestamp: number,
  bodySizes: number[],
  position: number,
): void {
  for (let i = 0; i < records.length; i++) {
    position = writeRecord(buf, records[i], records[i].timestamp - baseTimestamp, i, bodySizes[i], position);
  }
  if (position !== buf.length) throw new Error(`record encoder wrote ${position} of ${buf.length} bytes`);
}

/**
 * Checks that a whole batch with magic 2 lies in `buf` at `position`; returns its batchLength.
 * Only fields outside the CRC are read, so this is safe to trust before the CRC is checked.
 */
function checkBatchExtent(buf: Buffer, position: number): number {
  if (!Number.isInteger(position) || position < 0 || position > buf.length) {
    throw new RangeError(`position ${position} is outside a buffer of ${buf.length} bytes`);
  }
  const available = buf.length - position;
  if (available < RECORD_BATCH_OVERHEAD) {
    throw new CorruptRecordError(
      `truncated record batch at byte ${position}: ${available} bytes remain, a batch header takes ${RECORD_BATCH_OVERHEAD}`,
    );
  }
  const batchLength = buf.readInt32BE(position + BATCH_LENGTH_OFFSET);
  if (batchLength < RECORD_BATCH_OVERHEAD - LOG_OVERHEAD) {
    throw new CorruptRecordError(
      `record batch at byte ${position} has batchLength ${batchLength}, below the minimum ${RECORD_BATCH_OVERHEAD - LOG_OVERHEAD}`,
    );
  }
  if (batchLength > available - LOG_OVERHEAD) {
    throw new CorruptRecordError(
      `record batch at byte ${position} has batchLength ${batchLength} but only ${available - LOG_OVERHEAD} bytes follow`,
    );
  }
  const magic = buf.readInt8(position + MAGIC_OFFSET);
  if (magic !== MAGIC) throw new CorruptRecordError(`record batch at byte ${position} has magic ${magic}, expected ${MAGIC}`);
  return batchLength;
}

function parseBatchHeader(buf: Buffer, position: number, batchLength: number): RecordBatchHeader {
  const baseOffset = readInt64(buf, position, 'baseOffset');
  if (baseOffset < 0) throw new CorruptRecordError(`record batch at byte ${position} has negative baseOffset ${baseOffset}`);
  const attributes = buf.readInt16BE(position + ATTRIBUTES_OFFSET);
  const lastOffsetDelta = buf.readInt32BE(position + LAST_OFFSET_DELTA_OFFSET);
  const recordCount = buf.readInt32BE(position + RECORD_COUNT_OFFSET);
  if (recordCount < 0) throw new CorruptRecordError(`record batch at byte ${position} has negative record count ${recordCount}`);
  const lastOffset = baseOffset + lastOffsetDelta;
  if (!Number.isSafeInteger(lastOffset)) {
    throw new CorruptRecordError(`record batch at byte ${position} has a lastOffset beyond the 2^53 range Sluice supports`);
  }
  return {
    baseOffset,
    batchLength,
    partitionLeaderEpoch: buf.readInt32BE(position + PARTITION_LEADER_EPOCH_OFFSET),
    magic: MAGIC,
    crc: buf.readUInt32BE(position + CRC_OFFSET),
    attributes,
    compression: compressionFromAttributes(attributes),
    timestampType: attributes & TIMESTAMP_TYPE_MASK ? 'LogAppendTime' : 'CreateTime',
    isTransactional: (attributes & TRANSACTIONAL_MASK) !== 0,
    isControl: (attributes & CONTROL_MASK) !== 0,
    lastOffsetDelta,
    lastOffset,
    baseTimestamp: readInt64(buf, position + BASE_TIMESTAMP_OFFSET, 'baseTimestamp'),
    maxTimestamp: readInt64(buf, position + MAX_TIMESTAMP_OFFSET, 'maxTimestamp'),
    producerId: readInt64(buf, position + PRODUCER_ID_OFFSET, 'producerId'),
    producerEpoch: buf.readInt16BE(position + PRODUCER_EPOCH_OFFSET),
    baseSequence: buf.readInt32BE(position + BASE_SEQUENCE_OFFSET),
    recordCount,
    sizeInBytes: LOG_OVERHEAD + batchLength,
  };
}

/**
 * Reads the header of the batch at `position` without checking its CRC or decoding its records:
 * the cheap way to walk a segment batch by batch (next batch at position + sizeInBytes).
 * Checks that the whole batch lies inside `buf`, the magic byte, and the header fields' ranges.
 */
export function readBatchHeader(buf: Buffer, position = 0): RecordBatchHeader {
  return parseBatchHeader(buf, position, checkBatchExtent(buf, position));
}

/**
 * Decodes and validates the batch at `position`: CRC-32C, lengths, every record inside its
 * declared size, exactly `recordCount` records filling the records section.
 */
export function decodeRecordBatch(buf: Buffer, position = 0, limits: DecodeLimits = {}): DecodedBatch {
  const { header, section, recordsStart, recordsEnd, context } = openBatch(buf, position, limits);
  const records: DecodedRecord[] = new Array(header.recordCount);
  const recordsStop = readRecords(section, recordsStart, recordsEnd, context, records);
  checkRecordsEnd(position, header.recordCount, recordsStop, recordsEnd);
  return { header, records };
}

/** What validateRecordBatch learns of a batch: its header and a summary of its records. */
export interface BatchSummary extends RecordsSummary {
  header: RecordBatchHeader;
  /**
   * The batch's size with its records section decompressed (= sizeInBytes when uncompressed):
   * what a reader holds in memory once it decodes the batch, so what a size limit must bound.
   */
  decompressedSizeInBytes: number;
}

/** Bounds on what decoding a batch may allocate. */
export interface DecodeLimits {
  /**
   * Most bytes a compressed records section may inflate to; more throws DecompressedSizeError,
   * and zlib stops at the limit rather than allocating the whole output first.
   * @default no limit (the caller bounds its input some other way)
   */
  readonly maxDecompressedBytes?: number;
}

/**
 * Checks the batch at `position` exactly as decodeRecordBatch does — it accepts and refuses the
 * same bytes, with the same errors — without decoding its records: for a produce that validates a
 * producer's batch and stores its bytes. Returns the header, the records' smallest and largest
 * timestamps and whether record i has offsetDelta i throughout.
 */
export function validateRecordBatch(buf: Buffer, position = 0, limits: DecodeLimits = {}): BatchSummary {
  const { header, section, recordsStart, recordsEnd, context } = openBatch(buf, position, limits);
  const summary: BatchSummary = {
    header,
    minTimestamp: Number.MAX_SAFE_INTEGER,
    maxTimestamp: -1,
    offsetsDense: true,
    decompressedSizeInBytes: RECORD_BATCH_OVERHEAD + recordsEnd - recordsStart,
  };
  const recordsStop = scanRecords(section, recordsStart, recordsEnd, context, header.recordCount, summary);
  checkRecordsEnd(position, header.recordCount, recordsStop, recordsEnd);
  return summary;
}

/** The checks before the records, shared by decode and validate; the records section to read. */
function openBatch(buf: Buffer, position: number, limits: DecodeLimits) {
  const batchLength = checkBatchExtent(buf, position);
  const end = position + LOG_OVERHEAD + batchLength;
  // The CRC is checked before any field it covers is interpreted, so a flipped bit reads as
  // corruption rather than as, say, an unsupported codec.
  const stored = buf.readUInt32BE(position + CRC_OFFSET);
  const computed = crc32c(buf, position + ATTRIBUTES_OFFSET, end);
  if (computed !== stored) {
    throw new CorruptRecordError(
      `record batch at byte ${position} is corrupt (stored crc = ${stored}, computed crc = ${computed})`,
    );
  }
  const header = parseBatchHeader(buf, position, batchLength);
  let section = buf;
  let recordsStart = position + RECORDS_OFFSET;
  let recordsEnd = end;
  if (header.compression !== 'none') {
    section = decompress(header.compression, buf.subarray(recordsStart, end), limits.maxDecompressedBytes);
    recordsStart = 0;
    recordsEnd = section.length;
  }
  const { recordCount } = header;
  if (recordCount * MIN_RECORD_SIZE > recordsEnd - recordsStart) {
    throw new CorruptRecordError(
      `record batch at byte ${position} declares ${recordCount} records but its records section has only ${recordsEnd - recordsStart} bytes`,
    );
  }
  const context: RecordContext = {
    baseOffset: header.baseOffset,
    baseTimestamp: header.baseTimestamp,
    logAppendTime: header.timestampType === 'LogAppendTime' ? header.maxTimestamp : null,
  };
  return { header, section, recordsStart, recordsEnd, context };
}

function checkRecordsEnd(position: number, recordCount: number, recordsStop: number, recordsEnd: number): void {
  if (recordsStop !== recordsEnd) {
    throw new CorruptRecordError(
      `record batch at byte ${position} has ${recordsEnd - recordsStop} bytes left after its ${recordCount} records`,
    );
  }
}
