// Stamping offsets on batches read from an intake object: appends store each batch with base
// offset 0 (offsets are assigned when the append commits), so a reader writes the base offset the
// manifest gives the range, and the partition leader epoch, into each batch before anyone sees it,
// exactly as a Kafka broker stamps a producer's batch: both fields lie outside the CRC-32C. The
// merge (merge.ts) stamps the same values into the segments it writes, so an offset returns the
// same bytes before and after a merge.
import { SluiceError } from '../errors.js';
import type { ManifestRange } from '../metadata/types.js';
import { LOG_OVERHEAD } from '../records/index.js';
import { writeInt64 } from '../records/int64.js';

/** RecordBatch v2 byte offsets of baseOffset (int64), partitionLeaderEpoch (int32) and lastOffsetDelta (int32). */
const BASE_OFFSET_FIELD = 0;
const PARTITION_LEADER_EPOCH_FIELD = 12;
const LAST_OFFSET_DELTA_FIELD = 23;
/** Bytes of a batch header up to and including lastOffsetDelta. */
const HEADER_THROUGH_LAST_OFFSET_DELTA = 27;

/**
 * The partition leader epoch every batch carries. Sluice never truncates a partition (no replica
 * can diverge: DynamoDB sequences every append), so no batch ever needs a newer epoch than another
 * to win; one constant keeps the bytes of an offset the same wherever they are read from.
 */
export const PARTITION_LEADER_EPOCH = 0;

/**
 * Stamps the whole batches of `buf` (all of `range`'s batches, from its first byte), in place:
 * the first gets the range's base offset, each next one the offset after the one before. Throws
 * CORRUPT_MESSAGE when the batches do not hold exactly the range's records.
 */
export function stampRange(range: ManifestRange, buf: Buffer): void {
  let offset = range.baseOffset;
  let position = 0;
  while (position < buf.length) {
    if (buf.length - position < HEADER_THROUGH_LAST_OFFSET_DELTA) throw corrupt(range, `truncated batch at byte ${position}`);
    const size = LOG_OVERHEAD + buf.readInt32BE(position + 8);
    if (position + size > buf.length) throw corrupt(range, `truncated batch at byte ${position}`);
    writeInt64(buf, offset, position + BASE_OFFSET_FIELD);
    buf.writeInt32BE(PARTITION_LEADER_EPOCH, position + PARTITION_LEADER_EPOCH_FIELD);
    offset += buf.readInt32BE(position + LAST_OFFSET_DELTA_FIELD) + 1;
    position += size;
  }
  if (offset !== range.lastOffset + 1) throw corrupt(range, `its batches hold offsets up to ${offset - 1}`);
}

function corrupt(range: ManifestRange, why: string): SluiceError {
  return new SluiceError('CORRUPT_MESSAGE', `${range.objectKey} [${range.baseOffset}, ${range.lastOffset}]: ${why}`, { objectKey: range.objectKey });
}
