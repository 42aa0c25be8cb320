// Fetch by offset (Kafka's Fetch for one partition), reading only committed data, at a constant
// cost of at most 3 storage requests whatever the log length:
//
//   1. STATE, strongly consistent: highWatermark = nextOffset, logStartOffset; offset must lie in
//      [logStartOffset, highWatermark] (OFFSET_OUT_OF_RANGE otherwise; = highWatermark reads nothing).
//   2. ONE manifest floor Query (greatest SEG#<base> <= offset, consistent); an item at or above
//      the nextOffset read in (1) is never used (it is uncommitted).
//   3. ONE ranged GET of that item: from the `.index` position nearest below the offset (index
//      objects are immutable and served from a bounded in-process cache) for maxBytes, or the whole
//      item when it has no index (one produce batch, or batches under index.interval.bytes: the
//      batch holding the offset is returned whole anyway). All batches in the range come in one GET.
//
// A fetch reads from one manifest item: items of uncompacted appends live in different objects,
// and reading them too would cost a GET each; the consumer continues from nextOffset (compaction
// merges small items, so a fetch of compacted data fills maxBytes). As in Kafka, maxBytes bounds
// whole batches but the first batch holding the offset is returned even when larger; records below
// the requested offset (earlier records of that batch) are dropped. Only when maxBytes is smaller
// than the distance from the index position to the end of the batch holding the offset does a
// fetch walk the item batch by batch with further GETs. A missing object or manifest item means
// retention or compaction moved on: refresh and retry.
import { SluiceError } from '../api/errors.js';
import type { SluiceContext } from '../context.js';
import { toSluiceError } from '../metadata/aws-errors.js';
import { floorSegmentItem } from '../metadata/manifest.js';
import { getPartitionState } from '../metadata/partition-state.js';
import { type DecodedBatch, type DecodedRecord, RECORD_BATCH_OVERHEAD } from '../records/index.js';
import { batchSizeAt, decodeBatchOf, decodeCompleteBatches } from './decode-segment.js';
import { lookupOffsetIndex } from './offset-index.js';
import { StaleViewError, getObjectRange, getOffsetIndexObject } from './segment-fetch.js';

export interface ReadResult {
  readonly records: DecodedRecord[];
  readonly nextOffset: number;
  readonly highWatermark: number;
  readonly logStartOffset: number;
}

/** Reads after a stale view (missing object or item) before giving up retriably. */
const VIEW_REFRESHES = 2;

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
  const firstLength = floor.indexKey ? Math.min(floorEnd - start, Math.max(maxBytes, RECORD_BATCH_OVERHEAD)) : floorEnd - start;
  const first = await getObjectRange(ctx, { objectKey: floor.objectKey, start, end: start + firstLength });
  const collector = new FetchCollector(offset, highWatermark);
  const { batches, end } = decodeCompleteBatches(floor, first);
  collector.add(batches);
  let resumeAt = start + end;

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
