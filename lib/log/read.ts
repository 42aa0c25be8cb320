// Fetch by offset (Kafka's Fetch for one partition), reading only committed data, at a constant
// cost of at most 3 storage requests whatever the log length:
//
//   1. STATE, strongly consistent: highWatermark = logEndOffset, logStartOffset; offset must lie in
//      [logStartOffset, highWatermark] (OFFSET_OUT_OF_RANGE otherwise; = highWatermark reads nothing).
//      STATE's tail lists the newest entries from tailBase (manifest-entry.ts): a tailing
//      consumer's offset is found there, step 2 is skipped, and step 3 also reads the next tail
//      range when both fit in maxBytes (two GETs in parallel).
//   2. Otherwise (offset < tailBase) ONE manifest floor Query (greatest SEG#<base> <= offset,
//      consistent) and the range of that item holding the offset; an item at or above the tailBase
//      read in (1) is never used (it may be a pending spill: those offsets come from the tail).
//   3. ONE ranged GET of that range: from the `.index` position nearest below the offset (index
//      objects are immutable and served from a bounded in-process cache) for maxBytes, or the whole
//      range when it has no index (one produce batch, or batches under index.interval.bytes: the
//      batch holding the offset is returned whole anyway). All batches in the range come in one GET.
//
// Batches read from an intake object carry base offset 0: they are stamped with the range's offsets
// and the partition leader epoch before anything else sees them (batch-stamp.ts).
//
// A fetch reads from one manifest range (or two of the tail): ranges of appends not merged yet live
// in different objects, and reading them too would cost a GET each; the consumer continues from
// nextFetchOffset (segment merging joins small ranges, so a fetch of merged data fills maxBytes).
// As in Kafka, maxBytes bounds whole batches but the first batch holding the offset is returned
// even when larger; records below the requested offset (earlier records of that batch) are
// dropped. Only when maxBytes is smaller than the distance from the index position to the end of
// the batch holding the offset does a fetch walk the range batch by batch with further GETs. A
// missing object or SEG item means retention or a segment merge moved on: refresh and retry.
//
// Compacted topics: the log cleaner (compaction/cleaner.ts) drops records but never renumbers, so a
// cleaned segment has gaps, may hold no batch at or after an offset it covers, or none at all. As
// in Kafka, a fetch that starts in a gap gets the next surviving record: when a cleaned range has
// nothing at or after the offset the fetch goes on to the next range (a further floor Query and
// GET each). A cleaned batch keeps its last offset, so nextFetchOffset steps over the records it
// dropped at its end.
import { SluiceError } from '../errors.js';
import type { SluiceContext } from '../context.js';
import { toSluiceError } from '../metadata/aws-errors.js';
import { floorSegmentItem } from '../metadata/manifest.js';
import { getPartitionState } from '../metadata/partition-state.js';
import type { ManifestRange, TopicRef } from '../metadata/types.js';
import { type DecodedRecord, RECORD_BATCH_OVERHEAD } from '../records/index.js';
import { batchHeaderOf, batchSizeAt, decodeCompleteBatches } from './decode-segment.js';
import { lookupOffsetIndex } from './offset-index.js';
import { StaleViewError, fetchRanges, getObjectRange, getOffsetIndexObject } from './segment-fetch.js';
import { stampRange } from './batch-stamp.js';
import { decodeEntries, rangeHolding, rangesOf } from './manifest-entry.js';

export interface ReadResult {
  readonly records: DecodedRecord[];
  readonly nextFetchOffset: number;
  readonly highWatermark: number;
  readonly logStartOffset: number;
}

/** A fetch answered as stored: whole RecordBatches, as a Kafka broker answers a Fetch. */
export interface BatchReadResult {
  /**
   * Whole batches in offset order, byte for byte as stored (each batch's CRC intact); the first
   * may start before the offset asked for (Kafka's clients skip those records, and so must ours).
   * Every batch lies below the high watermark.
   */
  readonly batches: Buffer[];
  readonly nextFetchOffset: number;
  readonly highWatermark: number;
  readonly logStartOffset: number;
}

/** Reads after a stale view (missing object or item) before giving up retriably. */
const VIEW_REFRESHES = 2;

interface ReadRequest {
  readonly offset: number;
  readonly maxBytes: number;
}

/** Fetch, decoded: records at or after `offset`, every batch's CRC-32C verified. */
export async function readRecords(ctx: SluiceContext, topic: TopicRef, partition: number, request: ReadRequest): Promise<ReadResult> {
  try {
    const read = await readWithRefresh(ctx, topic, partition, request, () => decodeCollector(request.offset));
    return { ...read.collected, highWatermark: read.highWatermark, logStartOffset: read.logStartOffset };
  } catch (e) {
    throw toSluiceError(e, `read of ${topic.name}-${partition} at ${request.offset}`);
  }
}

/**
 * Fetch, raw: the stored batches holding `offset` and after, not decoded (the consumer verifies
 * the CRC, as Kafka's consumers do). Each batch's offsets are checked against its manifest range.
 */
export async function readBatches(ctx: SluiceContext, topic: TopicRef, partition: number, request: ReadRequest): Promise<BatchReadResult> {
  try {
    const read = await readWithRefresh(ctx, topic, partition, request, () => rawCollector(request.offset));
    return { ...read.collected, highWatermark: read.highWatermark, logStartOffset: read.logStartOffset };
  } catch (e) {
    throw toSluiceError(e, `read of ${topic.name}-${partition} at ${request.offset}`);
  }
}

/**
 * What a fetch keeps of the batches it reads, in offset order: `add` takes the complete batches of
 * `buf` (read for `range`), `end` where the complete part ends; `found` once it holds something at
 * or after the offset (a record, or for raw batches a batch reaching it). `result(from)`: the next
 * fetch starts after the last batch kept, and at least at `from`.
 */
interface Collector<T> {
  readonly found: boolean;
  add(range: ManifestRange, buf: Buffer, highWatermark: number): number;
  result(from: number): T & { nextFetchOffset: number };
  empty(offset: number): T & { nextFetchOffset: number };
}

function decodeCollector(offset: number): Collector<{ records: DecodedRecord[] }> {
  const records: DecodedRecord[] = [];
  let lastOffset = -1;
  return {
    // A record, not just a batch: a cleaned batch reaching the offset may keep no record at or after it.
    get found() {
      return records.length > 0;
    },
    add(range, buf, highWatermark) {
      const { batches, end } = decodeCompleteBatches(range, buf);
      for (const { header, records: batchRecords } of batches) {
        if (header.lastOffset < offset) continue;
        for (const r of batchRecords) if (r.offset >= offset && r.offset < highWatermark) records.push(r);
        lastOffset = Math.min(header.lastOffset, highWatermark - 1);
      }
      return end;
    },
    result: (from) => ({ records, nextFetchOffset: Math.max(lastOffset + 1, from) }),
    empty: (at) => ({ records: [], nextFetchOffset: at }),
  };
}

function rawCollector(offset: number): Collector<{ batches: Buffer[] }> {
  const batches: Buffer[] = [];
  let lastOffset = -1;
  return {
    get found() {
      return lastOffset >= offset;
    },
    add(range, buf, highWatermark) {
      let position = 0;
      for (;;) {
        const size = batchSizeAt(buf, position);
        if (size === undefined || position + size > buf.length) return position;
        const header = batchHeaderOf(range, buf, position);
        // A committed range lies wholly below the high watermark; stop short of anything that does not.
        if (header.lastOffset >= highWatermark) return position;
        if (header.lastOffset >= offset) {
          batches.push(buf.subarray(position, position + size));
          lastOffset = header.lastOffset;
        }
        position += size;
      }
    },
    result: (from) => ({ batches, nextFetchOffset: Math.max(lastOffset + 1, from) }),
    empty: (at) => ({ batches: [], nextFetchOffset: at }),
  };
}

/** Cleaned ranges with nothing at or after the offset one fetch steps over before it answers with none. */
const MAX_EMPTY_CLEANED_RANGES = 16;

async function readWithRefresh<T>(
  ctx: SluiceContext,
  topic: TopicRef,
  partition: number,
  { offset, maxBytes }: ReadRequest,
  newCollector: () => Collector<T>,
): Promise<{ collected: T & { nextFetchOffset: number }; highWatermark: number; logStartOffset: number }> {
  for (let refresh = 0; ; refresh++) {
    const collector = newCollector();
    const state = await getPartitionState(ctx, topic, partition);
    const highWatermark = state.logEndOffset;
    const logStartOffset = state.logStartOffset;
    if (offset < logStartOffset || offset > highWatermark) {
      throw new SluiceError(
        'OFFSET_OUT_OF_RANGE',
        `offset ${offset} is outside [${logStartOffset}, ${highWatermark}] of ${topic.name}-${partition}`,
        { logStartOffset, highWatermark },
      );
    }
    if (offset === highWatermark) return { collected: collector.empty(offset), highWatermark, logStartOffset };
    try {
      const tail = decodeEntries(ctx, state.tailBase, state.tail);
      // `at` moves past cleaned ranges that hold nothing at or after the offset (compacted topics).
      for (let at = offset, skipped = 0; ; ) {
        const inTail = at >= state.tailBase ? tail.findIndex((r) => r.lastOffset >= at) : -1;
        if (inTail >= 0) {
          await readTailRanges(ctx, tail.slice(inTail, inTail + TAIL_RANGES_PER_FETCH), maxBytes, highWatermark, collector);
          return { collected: collector.result(at), highWatermark, logStartOffset };
        }
        const range = at < state.tailBase ? await floorRange(ctx, topic, partition, at) : undefined;
        if (!range || range.baseOffset >= state.tailBase || range.lastOffset < at) {
          throw new StaleViewError(`no committed manifest range holds offset ${at}`);
        }
        await readRange(ctx, range, at, maxBytes, highWatermark, collector);
        if (collector.found || !range.cleaned) return { collected: collector.result(at), highWatermark, logStartOffset };
        at = range.lastOffset + 1;
        if (at >= highWatermark || ++skipped === MAX_EMPTY_CLEANED_RANGES) {
          return { collected: collector.result(Math.min(at, highWatermark)), highWatermark, logStartOffset };
        }
      }
    } catch (e) {
      if (!(e instanceof StaleViewError)) throw e;
      if (refresh === VIEW_REFRESHES) {
        throw new SluiceError('UNKNOWN_SERVER_ERROR', `read of ${topic.name}-${partition} at ${offset}: ${e.message}`);
      }
    }
  }
}

/**
 * Ranges of STATE's tail one fetch reads, in parallel: the one holding the offset and the next,
 * when both fit in maxBytes. With the STATE read that is 3 storage requests, the most a fetch
 * makes; a tailing consumer of keyed data (small ranges, each in its own object) gets twice as much
 * per fetch.
 */
const TAIL_RANGES_PER_FETCH = 2;

/** Reads whole tail ranges (produce batches, no index): the first always, the others while within maxBytes. */
async function readTailRanges(
  ctx: SluiceContext,
  candidates: readonly ManifestRange[],
  maxBytes: number,
  highWatermark: number,
  collector: Collector<unknown>,
): Promise<void> {
  const ranges = [candidates[0]];
  let bytes = candidates[0].size;
  for (const next of candidates.slice(1)) {
    if (bytes + next.size > maxBytes || next.baseOffset >= highWatermark) break;
    ranges.push(next);
    bytes += next.size;
  }
  const buffers = await fetchRanges(
    ctx,
    ranges.map((r) => ({ objectKey: r.objectKey, start: r.position, end: r.position + r.size })),
  );
  ranges.forEach((range, i) => {
    stampRange(range, buffers[i]);
    if (collector.add(range, buffers[i], highWatermark) !== buffers[i].length) {
      throw new SluiceError('CORRUPT_MESSAGE', `segment ${range.objectKey}: the range [${range.baseOffset}, ${range.lastOffset}] does not hold whole batches`);
    }
  });
}

/** The range of the SEG item holding `offset` (one Query). */
async function floorRange(ctx: SluiceContext, topic: TopicRef, partition: number, offset: number): Promise<ManifestRange | undefined> {
  const item = await floorSegmentItem(ctx, topic, partition, offset);
  return item && rangeHolding(rangesOf(ctx, item), offset);
}

/** Reads the batches of one committed range holding `offset` into the collector. */
async function readRange(
  ctx: SluiceContext,
  floor: ManifestRange,
  offset: number,
  maxBytes: number,
  highWatermark: number,
  collector: Collector<unknown>,
): Promise<void> {
  // A cleaned segment the cleaner left with no record.
  if (floor.size === 0) return;
  let start = floor.position;
  if (floor.indexKey && offset > floor.baseOffset) {
    const index = await getOffsetIndexObject(ctx, floor.indexKey);
    start += lookupOffsetIndex(floor.baseOffset, index, offset).position;
  }
  const floorEnd = floor.position + floor.size;
  // At least a batch header, so the size of an oversized first batch is known from this read.
  const firstLength = floor.indexKey ? Math.min(floorEnd - start, Math.max(maxBytes, RECORD_BATCH_OVERHEAD)) : floorEnd - start;
  const first = await getObjectRange(ctx, { objectKey: floor.objectKey, start, end: start + firstLength });
  // An intake range has no index, so it was read whole: stamp it.
  if (floor.intake) stampRange(floor, first);
  let resumeAt = start + collector.add(floor, first, highWatermark);

  // Nothing at or after the offset yet: the first batch holding it did not fit in maxBytes, or the
  // index position lay several batches before it. Walk the floor segment batch by batch.
  while (!collector.found) {
    if (resumeAt >= floorEnd) {
      // A cleaned range may hold nothing at or after the offset: the caller goes on to the next.
      if (floor.cleaned) return;
      throw new StaleViewError(`offset ${offset} not found in ${floor.objectKey}`);
    }
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
    collector.add(floor, whole.subarray(0, size), highWatermark);
    resumeAt += size;
  }
}
