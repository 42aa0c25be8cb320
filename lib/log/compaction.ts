// Compaction into full segments (Kafka's segment rolling, done after the fact): appends leave one
// small range per produce, listed by SEG items once STATE's tail spills them (partition-tail.ts;
// an item listing several ranges reads as their concatenation); runs of consecutive small
// committed items are merged into one
// segment `<base20>-<id>.log` of at most `segment.bytes` (capped by what one job holds in memory)
// whose records span at most `segment.ms` (so compaction delays retention by at most segment.ms),
// with a rebuilt `.index` and a `.timeindex`. An item in a shared object (a byte range of an
// object that is not its partition's own, see position) is rewritten even alone, so the at-rest
// layout becomes Kafka's per-partition segments.
//
// Never touched: the log's newest segment (the last item, when STATE's tail lists nothing after it,
// unless it is shared), anything at or above nextOffset (the leader's), ranges still only in STATE's
// tail (the leader's too), and anything below logStartOffset (retention's). Bytes are copied verbatim, batch by batch, after
// checking each batch's CRC-32C and that offsets run densely through the run.
//
// The swap, so that readers never see a gap, a duplicate or a wrong byte, and a crash anywhere
// leaves a consistent log that the next run finishes (repairSwaps):
//   1. PUT the merged .log/.index/.timeindex under fresh keys (invisible; orphans if we crash).
//   2. put the merged item at SEG#<first base>, only if that item is still the one read. From now
//      a reader whose floor is the first base reads the merged object; one whose floor is a later
//      replaced item still reads that item's (not yet deleted) object: the same bytes either way.
//   3. STATE: segments -= replaced - 1, once per merge (the merged object key is kept as a marker).
//   4. delete the replaced items, each only if still the one seen. Until then they are "leftovers":
//      items wholly inside the merged item's range, which readers and retention step over.
// Old objects are deleted by the sweep (cleanup.ts) once unreferenced for the grace period. The
// merged item keeps the highest leader epoch of the items it replaces (manifest.ts requires it).
//
// Deleting an item frees its key, and a manifest put creates an absent item whatever its epoch. The
// first item a leader epoch committed sits at the base where the previous leader's view ended, so a
// stale leader of an older epoch whose put is still in flight may target exactly that key: were it
// deleted, the late put would recreate it, committed-looking, inside the merged range. So an item
// whose epoch differs from the one before it only ever starts a run (its key keeps an item of its
// epoch) until it is a grace period old, the bound the sweep already relies on for late requests.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SluiceError } from '../api/errors.js';
import type { SluiceContext } from '../context.js';
import { isConditionalCheckFailed } from '../metadata/aws-errors.js';
import { stateKey } from '../metadata/keys.js';
import { replaceSegmentItem } from '../metadata/manifest.js';
import { crc32c, readBatchHeader } from '../records/index.js';
import { batchSizeAt } from './decode-segment.js';
import { OffsetIndexBuilder } from './offset-index.js';
import {
  type PartitionSnapshot,
  type StoredSegmentItem,
  deleteSegmentItemsIfUnchanged,
  splitLeftovers,
} from './partition-snapshot.js';
import { fetchRanges } from './segment-fetch.js';
import { firstListedOffset, rangesOf } from './segment-range.js';
import { newSegmentId, partitionObjectPrefix, segmentObjectKey } from './segment-name.js';
import { TimeIndexBuilder } from './time-index.js';
import { putObject } from './write-segment.js';

export interface CompactionConfig {
  /** Topic `segment.bytes`: merged segments never exceed it. */
  readonly segmentBytes: number;
  /** Topic `segment.ms`: a merged segment's records span at most this (max - min timestamp). */
  readonly segmentMs: number;
  /** Topic `index.interval.bytes`. */
  readonly indexIntervalBytes: number;
  /** What one merge may hold in memory. @default DEFAULT_MAX_MERGE_BYTES */
  readonly maxMergeBytes?: number;
}

export interface CompactionResult {
  readonly merges: number;
  /** Items replaced by merged items. */
  readonly replacedItems: number;
  /** Ranges those items stood for (a spilled tail's item lists several): each was read once. */
  readonly replacedRanges: number;
  readonly rewrittenBytes: number;
  /** Merges given up (lost a race, or took too long to swap in safely). */
  readonly abandoned: number;
}

/** One merge is built in memory (the retention Lambda has 512 MB). */
export const DEFAULT_MAX_MERGE_BYTES = 64 * 1024 * 1024;
/** Byte offset of the attributes field: where a RecordBatch's CRC-32C coverage starts. */
const CRC_COVERAGE_START = 21;

/** Whether the item lists ranges, or is a range of an object other than its partition's own segment objects. */
function isShared(item: StoredSegmentItem, partitionFolder: string): boolean {
  return item.ranges !== undefined || item.position !== 0 || !item.objectKey.startsWith(partitionFolder);
}

/**
 * The runs to merge, in offset order. A run is consecutive, dense, within the byte limit and the
 * time span. A run is merged only when the rest of it is at least half its largest item
 * (oldest items are dropped from the run until that holds), so every rewrite grows the segment
 * holding a byte by half at least: each byte is rewritten O(log(segment size / append size))
 * times, not once per small append that follows a big segment.
 */
export function planMergeRuns(
  snapshot: PartitionSnapshot,
  config: CompactionConfig,
  partitionFolder: string,
  /** Items created before this may be replaced whatever their epoch (see the top of the file). */
  fencedBefore = -Infinity,
): StoredSegmentItem[][] {
  const limit = Math.min(config.segmentBytes, config.maxMergeBytes ?? DEFAULT_MAX_MERGE_BYTES);
  const { state } = snapshot;
  // Ranges STATE's tail lists are the leader's; items repeating them (a tail spilled twice) wait.
  const tailBase = firstListedOffset(state.tail);
  const { chain } = splitLeftovers(
    snapshot.items.filter((i) => i.baseOffset >= state.logStartOffset && (tailBase === undefined || i.lastOffset < tailBase)),
  );
  // Never the log's newest segment: the last item, unless the tail lists ranges after it (the log
  // end is there) or it is shared (an idle partition's spilled tail, to be rewritten in bounded time).
  const newest = chain[chain.length - 1];
  const candidates = tailBase !== undefined || (newest && isShared(newest, partitionFolder)) ? chain : chain.slice(0, -1);
  const runs: StoredSegmentItem[][] = [];
  let run: StoredSegmentItem[] = [];
  let bytes = 0;
  let minTs = Infinity;
  let maxTs = -Infinity;
  const flush = () => {
    let r = run;
    let total = bytes;
    while (r.length > 1 && 3 * Math.max(...r.map((i) => i.size)) > 2 * total) {
      if (isShared(r[0], partitionFolder)) runs.push([r[0]]);
      total -= r[0].size;
      r = r.slice(1);
    }
    if (r.length > 1 || (r.length === 1 && isShared(r[0], partitionFolder))) runs.push(r);
    run = [];
    bytes = 0;
    minTs = Infinity;
    maxTs = -Infinity;
  };
  for (const item of candidates) {
    const last = run[run.length - 1];
    const joins =
      last !== undefined &&
      item.baseOffset === last.lastOffset + 1 &&
      (item.epoch === last.epoch || item.createdAt < fencedBefore) &&
      bytes + item.size <= limit &&
      Math.max(maxTs, item.maxTimestamp) - Math.min(minTs, item.minTimestamp) <= config.segmentMs;
    if (!joins) flush();
    if (item.size > limit || item.maxTimestamp - item.minTimestamp > config.segmentMs) {
      run = [item];
      bytes = item.size;
      flush(); // cannot grow; rewritten alone only when shared
      continue;
    }
    run.push(item);
    bytes += item.size;
    minTs = Math.min(minTs, item.minTimestamp);
    maxTs = Math.max(maxTs, item.maxTimestamp);
  }
  flush();
  return runs;
}

/** Copies the run's batches into one segment, checking every batch, and builds both indexes. */
export function buildMergedSegment(
  run: readonly StoredSegmentItem[],
  buffers: readonly Buffer[],
  indexIntervalBytes: number,
): { log: Buffer; index: Buffer | undefined; timeIndex: Buffer | undefined } {
  const base = run[0].baseOffset;
  const offsetIndex = new OffsetIndexBuilder(base, indexIntervalBytes);
  const timeIndex = new TimeIndexBuilder(base, indexIntervalBytes);
  let expected = base;
  run.forEach((item, i) => {
    const buf = buffers[i];
    const corrupt = (why: string) =>
      new SluiceError('CORRUPT_MESSAGE', `compaction of ${item.objectKey} [${item.baseOffset}, ${item.lastOffset}]: ${why}`);
    for (let position = 0; position < buf.length; ) {
      const size = batchSizeAt(buf, position);
      if (size === undefined || position + size > buf.length) throw corrupt(`truncated batch at byte ${position}`);
      const header = readBatchHeader(buf, position);
      if (crc32c(buf, position + CRC_COVERAGE_START, position + size) !== header.crc) throw corrupt(`CRC mismatch at byte ${position}`);
      if (header.baseOffset !== expected) throw corrupt(`batch at offset ${header.baseOffset}, expected ${expected}`);
      offsetIndex.append(header.lastOffset, size);
      timeIndex.append(header.lastOffset, header.maxTimestamp, size);
      expected = header.lastOffset + 1;
      position += size;
    }
    if (expected !== item.lastOffset + 1) throw corrupt(`batches end at ${expected - 1}`);
  });
  timeIndex.finish();
  return {
    log: Buffer.concat(buffers as Buffer[]),
    index: offsetIndex.entryCount > 0 ? offsetIndex.toBuffer() : undefined,
    timeIndex: timeIndex.entryCount > 0 ? timeIndex.toBuffer() : undefined,
  };
}

/** Merges one run and swaps it in; false when it gave up (nothing visible changed). */
export async function mergeRun(
  ctx: SluiceContext,
  topic: string,
  partition: number,
  run: readonly StoredSegmentItem[],
  config: CompactionConfig,
): Promise<boolean> {
  const first = run[0];
  const ranges = run.flatMap((item) => rangesOf(ctx, topic, partition, item));
  const buffers = await fetchRanges(
    ctx,
    ranges.map((r) => ({ objectKey: r.objectKey, start: r.position, end: r.position + r.size })),
  );
  const { log, index, timeIndex } = buildMergedSegment(ranges, buffers, config.indexIntervalBytes);
  const epoch = Math.max(...run.map((i) => i.epoch));
  const id = newSegmentId(epoch);
  const key = (suffix: '.log' | '.index' | '.timeindex') => segmentObjectKey(ctx.prefix, topic, partition, first.baseOffset, id, suffix);
  const merged: StoredSegmentItem = {
    baseOffset: first.baseOffset,
    lastOffset: run[run.length - 1].lastOffset,
    count: run[run.length - 1].lastOffset - first.baseOffset + 1,
    objectKey: key('.log'),
    position: 0,
    size: log.length,
    indexKey: index ? key('.index') : undefined,
    timeIndexKey: timeIndex ? key('.timeindex') : undefined,
    minTimestamp: Math.min(...run.map((i) => i.minTimestamp)),
    maxTimestamp: Math.max(...run.map((i) => i.maxTimestamp)),
    epoch,
    createdAt: ctx.now(),
    mergedCount: run.length,
  };

  const putStarted = Date.now();
  const puts = [putObject(ctx, merged.objectKey, log)];
  if (index && merged.indexKey) puts.push(putObject(ctx, merged.indexKey, index));
  if (timeIndex && merged.timeIndexKey) puts.push(putObject(ctx, merged.timeIndexKey, timeIndex));
  await Promise.all(puts);
  // The sweep may delete objects no item references once they are a grace period old: an item
  // put later than that could point at a deleted object. Give up well before.
  if (Date.now() - putStarted > ctx.graceMs / 2) return false;

  // Refused when retention or another merge got there first.
  if (!(await replaceSegmentItem(ctx, topic, partition, merged, first))) return false;
  await settleSwap(ctx, topic, partition, merged, run.slice(1));
  return true;
}

/** Steps 3 and 4 of the swap; safe to repeat (the counter change applies once per merged item). */
async function settleSwap(
  ctx: SluiceContext,
  topic: string,
  partition: number,
  merged: StoredSegmentItem,
  replaced: readonly StoredSegmentItem[],
): Promise<number> {
  const surplus = (merged.mergedCount ?? 1) - 1;
  if (surplus > 0) {
    try {
      await ctx.ddb.send(
        new UpdateCommand({
          TableName: ctx.table,
          Key: stateKey(topic, partition),
          ConditionExpression: 'attribute_exists(#segments) AND (attribute_not_exists(#mark) OR #mark <> :key)',
          UpdateExpression: 'SET #mark = :key ADD #segments :minus',
          ExpressionAttributeNames: { '#segments': 'segments', '#mark': 'lastCompaction' },
          ExpressionAttributeValues: { ':key': merged.objectKey, ':minus': -surplus },
        }),
      );
    } catch (e) {
      if (!isConditionalCheckFailed(e)) throw e; // already counted (or the partition is gone)
    }
  }
  return deleteSegmentItemsIfUnchanged(ctx, topic, partition, replaced);
}

/** Finishes swaps a crash interrupted: leftovers inside a merged item's range go. Returns items removed. */
export async function repairSwaps(ctx: SluiceContext, snapshot: PartitionSnapshot): Promise<number> {
  const { leftovers } = splitLeftovers(snapshot.items);
  const byCover = new Map<StoredSegmentItem, StoredSegmentItem[]>();
  for (const { item, coveredBy } of leftovers) {
    // Only compaction creates containment; anything else is left alone for a human to look at.
    if (coveredBy.mergedCount === undefined) continue;
    byCover.set(coveredBy, [...(byCover.get(coveredBy) ?? []), item]);
  }
  let removed = 0;
  for (const [cover, items] of byCover) removed += await settleSwap(ctx, snapshot.topic, snapshot.partition, cover, items);
  return removed;
}

/** Plans and performs this partition's merges, one at a time, until done or `shouldStop()`. */
export async function compactPartition(
  ctx: SluiceContext,
  snapshot: PartitionSnapshot,
  config: CompactionConfig,
  shouldStop: () => boolean = () => false,
): Promise<CompactionResult> {
  const folder = partitionObjectPrefix(ctx.prefix, snapshot.topic, snapshot.partition);
  let merges = 0;
  let replacedItems = 0;
  let replacedRanges = 0;
  let rewrittenBytes = 0;
  let abandoned = 0;
  for (const run of planMergeRuns(snapshot, config, folder, ctx.now() - ctx.graceMs)) {
    if (shouldStop()) break;
    if (await mergeRun(ctx, snapshot.topic, snapshot.partition, run, config)) {
      merges++;
      replacedItems += run.length;
      replacedRanges += run.reduce((n, i) => n + (i.ranges?.length ?? 1), 0);
      rewrittenBytes += run.reduce((n, i) => n + i.size, 0);
    } else {
      abandoned++;
    }
  }
  return { merges, replacedItems, replacedRanges, rewrittenBytes, abandoned };
}
