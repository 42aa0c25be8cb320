// One RecordBatch through the log cleaner, as Kafka's MemoryRecords.filterTo rewrites it:
//
//   - a control batch is kept as it is (it has no key to compact by);
//   - the records the cleaner keeps stay with their offsets: the batch keeps its baseOffset and
//     lastOffsetDelta (so a consumer continues after the batch's last offset even when its last
//     records are gone) and each record its offsetDelta; producerId, producerEpoch, baseSequence,
//     the transactional bit, the codec and the partition leader epoch stay the original batch's
//     (Kafka keeps the last offset "to ensure that the last sequence number from the batch
//     remains even after compaction");
//   - a batch whose records are all gone is dropped. Kafka keeps such an empty batch only while it
//     is a producer's last, because a broker rebuilds producer state from its log; Sluice keeps
//     that state in the partition's STATE item (producer-sequence.ts), never in the log;
//   - tombstones (null values) carry the delete horizon of KIP-534: attribute bit 6 set and
//     baseTimestamp holding the time after which the cleaner may drop the batch's tombstones
//     (the records' timestamp deltas are rewritten against it, so every record keeps its
//     timestamp). The cleaner sets it when a cleaning first sees the batch's tombstones as the
//     newest of their keys (cleaner.ts) and drops them once it has passed.
// An unchanged batch is returned as the same bytes.
import type { DecodedRecord, RecordBatchHeader } from '../../records/index.js';
import { LOG_OVERHEAD, RECORD_BATCH_OVERHEAD, crc32c, decodeRecordBatch, readBatchHeader } from '../../records/index.js';
import { compress } from '../../records/compression.js';
import { writeInt64 } from '../../records/int64.js';
import { sizeOfRecordBody, writeRecord } from '../../records/record.js';
import { sizeOfVarint } from '../../records/varint.js';
import { MAX_MESSAGE_BYTES_LIMIT } from '../../metadata/topics.js';

/** Kafka's RecordBatch.DELETE_HORIZON_FLAG_MASK: baseTimestamp is the delete horizon. */
export const DELETE_HORIZON_FLAG = 0x40;
const ATTRIBUTES_AT = 21;
const CRC_AT = 17;
const BASE_TIMESTAMP_AT = 27;
const MAX_TIMESTAMP_AT = 35;
const RECORD_COUNT_AT = 57;

export interface BatchVerdicts {
  /** Whether the record survives: it has a key and no newer record of its key is in the map. */
  readonly keep: (record: DecodedRecord) => boolean;
  /** Cleaning time (ms): tombstones whose batch's delete horizon is at or before it go. */
  readonly now: number;
  /** When set, a batch whose surviving tombstones have no horizon yet gets this one. */
  readonly newDeleteHorizonMs?: number;
}

export interface CleanedBatch {
  /** The batch to write (the input's own bytes when unchanged), or undefined when it is dropped. */
  readonly bytes: Buffer | undefined;
  readonly header: RecordBatchHeader;
  readonly changed: boolean;
  readonly recordsIn: number;
  readonly recordsKept: number;
  readonly tombstonesDropped: number;
  /** The delete horizon the written batch carries, if it holds tombstones. */
  readonly deleteHorizonMs?: number;
  /** Of the written batch. */
  readonly maxTimestamp: number;
  readonly minTimestamp: number;
}

/** The batch's delete horizon, when it carries one. */
export function deleteHorizonOf(header: RecordBatchHeader): number | undefined {
  return header.attributes & DELETE_HORIZON_FLAG ? header.baseTimestamp : undefined;
}

/** Cleans the whole batch in `batch` (its CRC is checked: a corrupt batch throws). */
export function cleanBatch(batch: Buffer, verdicts: BatchVerdicts): CleanedBatch {
  const header = readBatchHeader(batch);
  if (header.isControl) {
    return { bytes: batch, header, changed: false, recordsIn: 0, recordsKept: 0, tombstonesDropped: 0, maxTimestamp: header.maxTimestamp, minTimestamp: header.baseTimestamp };
  }
  const { records } = decodeRecordBatch(batch, 0, { maxDecompressedBytes: MAX_MESSAGE_BYTES_LIMIT });
  const horizon = deleteHorizonOf(header);
  let tombstonesDropped = 0;
  const kept = records.filter((r) => {
    if (!verdicts.keep(r)) return false;
    if (r.value === null && horizon !== undefined && verdicts.now >= horizon) {
      tombstonesDropped++;
      return false;
    }
    return true;
  });
  const holdsTombstones = kept.some((r) => r.value === null);
  const nextHorizon = holdsTombstones ? (horizon ?? verdicts.newDeleteHorizonMs) : undefined;
  const base = { header, recordsIn: records.length, recordsKept: kept.length, tombstonesDropped };
  if (kept.length === 0) return { ...base, bytes: undefined, changed: true, maxTimestamp: -1, minTimestamp: Number.MAX_SAFE_INTEGER };
  let minTimestamp = Number.MAX_SAFE_INTEGER;
  let maxKept = -1;
  for (const r of kept) {
    if (r.timestamp < minTimestamp) minTimestamp = r.timestamp;
    if (r.timestamp > maxKept) maxKept = r.timestamp;
  }
  if (kept.length === records.length && nextHorizon === horizon) {
    return { ...base, bytes: batch, changed: false, deleteHorizonMs: horizon, maxTimestamp: header.maxTimestamp, minTimestamp };
  }
  // Kafka's builder recomputes maxTimestamp from the records it keeps (LogAppendTime: the append time).
  const maxTimestamp = header.timestampType === 'LogAppendTime' ? header.maxTimestamp : maxKept;
  const bytes = encodeRetained(batch, header, kept, nextHorizon, maxTimestamp);
  return { ...base, bytes, changed: true, deleteHorizonMs: nextHorizon, maxTimestamp, minTimestamp };
}

/** A batch of `kept` with the original's header fields, each record at its original offset delta. */
function encodeRetained(
  original: Buffer,
  header: RecordBatchHeader,
  kept: readonly DecodedRecord[],
  deleteHorizonMs: number | undefined,
  maxTimestamp: number,
): Buffer {
  const logAppendTime = header.timestampType === 'LogAppendTime';
  const baseTimestamp = deleteHorizonMs ?? (logAppendTime ? header.baseTimestamp : kept[0].timestamp);
  const deltas = kept.map((r) => ({ timestamp: logAppendTime ? 0 : r.timestamp - baseTimestamp, offset: r.offset - header.baseOffset }));
  const sizes = kept.map((r, i) => sizeOfRecordBody(r, deltas[i].timestamp, deltas[i].offset));
  const sectionSize = sizes.reduce((n, s) => n + sizeOfVarint(s) + s, 0);
  const section = Buffer.allocUnsafe(sectionSize);
  let position = 0;
  kept.forEach((r, i) => {
    position = writeRecord(section, r, deltas[i].timestamp, deltas[i].offset, sizes[i], position);
  });
  const records = compress(header.compression, section);
  const batch = Buffer.allocUnsafe(RECORD_BATCH_OVERHEAD + records.length);
  // baseOffset, partitionLeaderEpoch, magic, lastOffsetDelta, producer fields: the original's.
  original.copy(batch, 0, 0, RECORD_BATCH_OVERHEAD);
  records.copy(batch, RECORD_BATCH_OVERHEAD);
  batch.writeInt32BE(batch.length - LOG_OVERHEAD, 8);
  const attributes = deleteHorizonMs === undefined ? header.attributes & ~DELETE_HORIZON_FLAG : header.attributes | DELETE_HORIZON_FLAG;
  batch.writeInt16BE(attributes, ATTRIBUTES_AT);
  writeInt64(batch, baseTimestamp, BASE_TIMESTAMP_AT);
  writeInt64(batch, maxTimestamp, MAX_TIMESTAMP_AT);
  batch.writeInt32BE(kept.length, RECORD_COUNT_AT);
  batch.writeUInt32BE(crc32c(batch, ATTRIBUTES_AT), CRC_AT);
  return batch;
}
