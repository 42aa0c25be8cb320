// Kafka's offsetsForTimes inside one manifest range: the first record at or after `timestamp`
// (and inside [logStartOffset, highWatermark)). With a `.timeindex` (merged segments) the read
// starts at the batch the time index points to, found through the `.index` (time-index.ts
// explains why nothing before it can qualify), and proceeds in bounded windows, so a lookup in a
// large segment reads a few KB rather than the whole segment. Without one (an intake range: one
// produce's batch, small) the range is read whole and stamped with its offsets (batch-stamp.ts). Both index objects are immutable and cached.
import type { SluiceContext } from '../context.js';
import type { ManifestRange } from '../metadata/types.js';
import { stampRange } from './batch-stamp.js';
import { batchSizeAt, decodeBatchOf, decodeCompleteBatches } from './decode-segment.js';
import { lookupOffsetIndex } from './offset-index.js';
import { getObjectRange, getOffsetIndexObject } from './segment-fetch.js';
import { lookupTimeIndex } from './time-index.js';
import type { DecodedBatch } from '../records/index.js';

/** Bytes read per GET while scanning for the timestamp. */
const WINDOW_BYTES = 256 * 1024;

export async function offsetForTimeInRange(
  ctx: SluiceContext,
  range: ManifestRange,
  timestamp: number,
  logStartOffset: number,
  highWatermark: number,
): Promise<{ offset: number; timestamp: number } | undefined> {
  let at = range.position;
  if (range.timeIndexKey && range.indexKey) {
    const entry = lookupTimeIndex(range.baseOffset, await getOffsetIndexObject(ctx, range.timeIndexKey), timestamp);
    if (entry.timestamp >= 0) at += lookupOffsetIndex(range.baseOffset, await getOffsetIndexObject(ctx, range.indexKey), entry.offset).position;
  }
  const end = range.position + range.size;
  const match = (batches: readonly DecodedBatch[]) => {
    for (const { header, records } of batches) {
      if (header.maxTimestamp < timestamp) continue;
      const hit = records.find((r) => r.timestamp >= timestamp && r.offset >= logStartOffset && r.offset < highWatermark);
      if (hit) return { offset: hit.offset, timestamp: hit.timestamp };
    }
    return undefined;
  };
  if (range.intake) {
    const whole = await getObjectRange(ctx, { objectKey: range.objectKey, start: range.position, end });
    stampRange(range, whole);
    return match(decodeCompleteBatches(range, whole).batches);
  }
  while (at < end) {
    const buf = await getObjectRange(ctx, { objectKey: range.objectKey, start: at, end: Math.min(end, at + WINDOW_BYTES) });
    const { batches, end: used } = decodeCompleteBatches(range, buf);
    const hit = match(batches);
    if (hit) return hit;
    if (used > 0) {
      at += used;
      continue;
    }
    // One batch larger than the window: read it whole.
    const size = batchSizeAt(buf, 0) ?? end - at;
    const whole = await getObjectRange(ctx, { objectKey: range.objectKey, start: at, end: Math.min(end, at + size) });
    const found = match([decodeBatchOf(range, whole, 0)]);
    if (found) return found;
    at += size;
  }
  return undefined;
}
