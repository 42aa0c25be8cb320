// Fetch by offset (Kafka's Fetch for one partition), reading only committed data:
//
//   1. STATE, strongly consistent: highWatermark = nextOffset, logStartOffset; offset must lie in
//      [logStartOffset, highWatermark] (OFFSET_OUT_OF_RANGE otherwise; = highWatermark reads nothing).
//   2. ONE manifest floor Query (greatest SEG#<base> <= offset, consistent); following items by a
//      forward Query only while maxBytes has room; items at or above the nextOffset read in (1)
//      are never used (they are uncommitted).
//   3. Ranged GETs, adjacent ranges of one object coalesced, starting in the first segment at the
//      `.index` position nearest below the offset.
//
// As in Kafka, maxBytes bounds whole batches but the first batch holding the offset is returned
// even when larger; records below the requested offset (earlier records of that batch) are dropped.
// A missing object or manifest item means retention or compaction moved on: refresh and retry.
import { SluiceError } from '../api/errors.js';
import type { SluiceContext } from '../context.js';
import { toSluiceError } from '../metadata/aws-errors.js';
import { floorSegmentItem, segmentItemsAfter } from '../metadata/manifest.js';
import { getPartitionState } from '../metadata/partition-state.js';
import type { SegmentItem } from '../metadata/types.js';
import { type DecodedBatch, type DecodedRecord, RECORD_BATCH_OVERHEAD } from '../records/index.js';
import { batchSizeAt, decodeBatchOf, decodeCompleteBatches } from './decode-segment.js';
import { lookupOffsetIndex } from './offset-index.js';
import { StaleViewError, fetchRanges, getObjectRange, getOffsetIndexObject } from './segment-fetch.js';

export interface ReadResult {
  readonly records: DecodedRecord[];
  readonly nextOffset: number;
  readonly highWatermark: number;
  readonly logStartOffset: number;
}

/** Reads after a stale view (missing object or item) before giving up retriably. */
const VIEW_REFRESHES = 2;
/** Most manifest items fetched by one forward Query. */
const FOLLOWING_PAGE = 100;

export async function readRecords(
  ctx: SluiceContext,
  topic: string,
  partition: number,
  request: { readonly offset: number; readonly maxBytes: number },
): Promise<ReadResult> {
  try {
    return await readWithRefresh(ctx, topic, partition, request.offset, request.maxBytes);
  } catch (e) {
    throw toSluiceError(e, `read of ${topic}-${partition} at ${request.offset}`);
  }
}

async function readWithRefresh(
  ctx: SluiceContext,
  topic: string,
  partition: number,
  offset: number,
  maxBytes: number,
): Promise<ReadResult> {
  for (let refresh = 0; ; refresh++) {
    const state = await getPartitionState(ctx, topic, partition);
    const highWatermark = state.nextOffset;
    const logStartOffset = state.logStartOffset;
    if (offset < logStartOffset || offset > highWatermark) {
      throw new SluiceError(
        'OFFSET_OUT_OF_RANGE',
        `offset ${offset} is outside [${logStartOffset}, ${highWatermark}] of ${topic}-${partition}`,
        { logStartOffset, highWatermark },
      );
    }
    if (offset === highWatermark) return { records: [], nextOffset: offset, highWatermark, logStartOffset };
    try {
      const read = await readCommitted(ctx, topic, partition, offset, maxBytes, highWatermark);
      return { ...read, highWatermark, logStartOffset };
    } catch (e) {
      if (!(e instanceof StaleViewError)) throw e;
      if (refresh === VIEW_REFRESHES) {
        throw new SluiceError('UNKNOWN_SERVER_ERROR', `read of ${topic}-${partition} at ${offset}: ${e.message}`);
      }
    }
  }
}

/** Accumulates the records at or after `offset` (and below the high watermark) of decoded batches. */
class FetchCollector {
  readonly records: DecodedRecord[] = [];
  lastOffset = -1;
  constructor(
    private readonly offset: number,
    private readonly highWatermark: number,
  ) {}

  get found(): boolean {
    return this.lastOffset >= this.offset;
  }

  add(batches: readonly DecodedBatch[]): void {
    for (const { header, records } of batches) {
      if (header.lastOffset < this.offset) continue;
      for (const r of records) if (r.offset >= this.offset && r.offset < this.highWatermark) this.records.push(r);
      this.lastOffset = Math.min(header.lastOffset, this.highWatermark - 1);
    }
  }
}

interface PlannedRange {
  readonly item: SegmentItem;
  readonly objectKey: string;
  readonly start: number;
  readonly end: number;
}

async function readCommitted(
  ctx: SluiceContext,
  topic: string,
  partition: number,
  offset: number,
  maxBytes: number,
  highWatermark: number,
): Promise<{ records: DecodedRecord[]; nextOffset: number }> {
  const floor = await floorSegmentItem(ctx, topic, partition, offset);
  if (!floor || floor.baseOffset >= highWatermark || floor.lastOffset < offset) {
    throw new StaleViewError(`no committed manifest item holds offset ${offset}`);
  }
  let start = floor.position;
  if (floor.indexKey && offset > floor.baseOffset) {
    const index = await getOffsetIndexObject(ctx, floor.indexKey);
    start += lookupOffsetIndex(floor.baseOffset, index, offset).position;
  }
  const floorEnd = floor.position + floor.size;
  // At least a batch header, so the size of an oversized first batch is known from this read.
  const firstLength = Math.min(floorEnd - start, Math.max(maxBytes, RECORD_BATCH_OVERHEAD));
  const ranges: PlannedRange[] = [{ item: floor, objectKey: floor.objectKey, start, end: start + firstLength }];
  let budget = maxBytes - firstLength;
  if (start + firstLength === floorEnd) {
    let previous = floor;
    let more = true;
    while (more && budget > 0) {
      // Ask for about as many items as the budget could take, judging by the last item's size.
      const limit = Math.min(FOLLOWING_PAGE, Math.ceil(budget / Math.max(1, previous.size)) + 1);
      const page = await segmentItemsAfter(ctx, topic, partition, previous.baseOffset, limit);
      more = page.length === limit;
      for (const item of page) {
        // Only whole, committed, contiguous items that fit the remaining budget.
        if (item.baseOffset >= highWatermark || item.baseOffset !== previous.lastOffset + 1 || item.size > budget) {
          more = false;
          break;
        }
        ranges.push({ item, objectKey: item.objectKey, start: item.position, end: item.position + item.size });
        budget -= item.size;
        previous = item;
      }
    }
  }

  const buffers = await fetchRanges(ctx, ranges);
  const collector = new FetchCollector(offset, highWatermark);
  let resumeAt = start + firstLength;
  for (let i = 0; i < ranges.length; i++) {
    const { batches, end } = decodeCompleteBatches(ranges[i].item, buffers[i]);
    collector.add(batches);
    if (i === 0) resumeAt = start + end;
    if (end !== buffers[i].length) break; // a cut batch: nothing after it is usable
  }

  // Nothing at or after the offset yet: the first batch holding it did not fit in maxBytes, or the
  // index position lay several batches before it. Walk the floor segment batch by batch.
  while (!collector.found) {
    if (resumeAt >= floorEnd) throw new StaleViewError(`offset ${offset} not found in ${floor.objectKey}`);
    const head = await getObjectRange(ctx, {
      objectKey: floor.objectKey,
      start: resumeAt,
      end: Math.min(floorEnd, resumeAt + Math.max(maxBytes, RECORD_BATCH_OVERHEAD)),
    });
    const size = batchSizeAt(head, 0);
    if (size === undefined || size < RECORD_BATCH_OVERHEAD || resumeAt + size > floorEnd) {
      throw new SluiceError('CORRUPT_MESSAGE', `segment ${floor.objectKey}: bad batch length at byte ${resumeAt}`);
    }
    const whole =
      size <= head.length ? head : await getObjectRange(ctx, { objectKey: floor.objectKey, start: resumeAt, end: resumeAt + size });
    collector.add([decodeBatchOf(floor, whole, 0)]);
    resumeAt += size;
  }
  return { records: collector.records, nextOffset: collector.lastOffset + 1 };
}
