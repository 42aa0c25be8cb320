// Segment merging (Kafka's segment rolling, done after the fact; not Kafka's "log compaction",
// which keeps the newest record per key): appends leave one small range per produce request in a
// shared intake object, listed by STATE's tail and, once spilled, by SEG items (spill.ts). The
// partition leader merges runs of consecutive items into per-partition segments
// `<topic>-<id>/<p>/<base20>-<id>.log` of at most `segment.bytes` (and the merge's memory budget)
// whose records span at most `segment.ms`, with a rebuilt `.index` (Kafka's index.interval.bytes
// rule) and `.timeindex`. A spilled item is rewritten even alone, so the log at rest becomes
// Kafka's layout in bounded time; merged segments are merged again only when that grows the
// segment holding a byte by half at least (each byte is rewritten O(log) times).
//
// Only items wholly below the tailBase read, at or above logStartOffset, and older than the grace
// period are touched (docs/ARCHITECTURE.md rules 3 and 4): younger items may be the target of a late spill put or
// of the unknown-outcome search (rule 7).
//
// One intake object holds a produce request's batches for many partitions of a topic (keyed data
// spreads one request over all of them), so the merge of a topic is planned for all its partitions
// first, the ranges needed are grouped by object, and each object is read ONCE (one ranged GET
// spanning the ranges needed from it), not once per range. The plans are taken in order until
// the memory budget is used; the rest waits for the next run.
//
// Bytes are copied verbatim, batch by batch, after checking each batch's CRC-32C; batches from an
// intake object get their offsets (dense from the range's base) and PARTITION_LEADER_EPOCH stamped
// (batch-stamp.ts), exactly as a reader stamps them, so an offset returns the same bytes before
// and after a merge.
//
// The swap, so that readers never see a gap, a duplicate or a wrong byte, and a crash anywhere
// leaves a readable log that the next run finishes (repairSwaps):
//   1. PUT the merged .log/.index/.timeindex under fresh keys (invisible; orphans if we crash,
//      swept later).
//   2. replace the item at the run's first base by the merged item, only if that item is still the
//      one read (manifest.ts replaceSegmentItem). From now a reader whose floor is the first base
//      reads the merged object; one whose floor is a later replaced item still reads that item's
//      (not yet deleted) object: the same bytes either way.
//   3. delete the other replaced items, each only if still the one seen. Until then they are
//      "leftovers": items wholly inside the merged item's range, which readers step over (the
//      newer item wins: manifest.ts floorSegmentItem) and the next run deletes.
// STATE's `segments` counter is not decremented per merge (a crashed swap repaired later would be
// counted twice, or never): the leader sets it from what it sees (maintenance.ts reconciles it).
// Old objects are deleted by the sweep (cleanup.ts) once unreferenced for the grace period.
import { SluiceError } from '../errors.js';
import type { SluiceContext } from '../context.js';
import { replaceSegmentItem } from '../metadata/manifest.js';
import type { PartitionLease } from '../metadata/partition-state.js';
import type { ManifestRange, MergedSegmentItem, SegmentItem, TopicRef } from '../metadata/types.js';
import { crc32c, readBatchHeader } from '../records/index.js';
import { stampRange } from './batch-stamp.js';
import { batchSizeAt } from './decode-segment.js';
import { rangesOf } from './manifest-entry.js';
import { putObject } from './object-store.js';
import { OffsetIndexBuilder } from './offset-index.js';
import { type PartitionSnapshot, deleteItemsIfUnchanged, forEachLimited, itemsBelowTail, splitLeftovers } from './partition-snapshot.js';
import { getObjectRange } from './segment-fetch.js';
import { newSegmentId, parseIntakeObjectKey, segmentObjectKey } from './segment-name.js';
import { TimeIndexBuilder } from './time-index.js';

export interface MergeConfig {
  /** Topic `segment.bytes`: merged segments never exceed it. */
  readonly segmentBytes: number;
  /** Topic `segment.ms`: a merged segment's records span at most this (max - min timestamp). */
  readonly segmentMs: number;
  /** Topic `index.interval.bytes`. */
  readonly indexIntervalBytes: number;
}

export interface MergeResult {
  readonly merges: number;
  /** Items replaced by merged items. */
  readonly replacedItems: number;
  /** Ranges those items stood for (a spilled item lists several). */
  readonly replacedRanges: number;
  readonly rewrittenBytes: number;
  /** Merges given up (lost a race, or took too long to swap in safely). */
  readonly abandoned: number;
  /** GETs of intake objects (each read at most once per merge of a topic). */
  readonly intakeObjectsRead: number;
  /** GETs of merged segment objects (merged again into bigger ones). */
  readonly segmentObjectsRead: number;
  /** Runs left for a later run by the memory budget. */
  readonly deferredRuns: number;
}

/** What one topic's merge holds in memory, in object bytes read (the maintenance Lambda has 512 MB). */
export const DEFAULT_MAX_MERGE_BYTES = 64 * 1024 * 1024;
/** Byte offset of the attributes field: where a RecordBatch's CRC-32C coverage starts. */
const CRC_COVERAGE_START = 21;
/** Object GETs in flight at once. */
const READ_CONCURRENCY = 8;
/** Partitions swapping in at once. */
const SWAP_CONCURRENCY = 4;

/** One partition's part of a topic's merge: the leader's lease, what it read, its runs. */
export interface PartitionMergePlan {
  readonly lease: PartitionLease;
  readonly snapshot: PartitionSnapshot;
  readonly runs: readonly (readonly SegmentItem[])[];
}

/** An item that is not (yet) a segment of its own: a spilled part of the tail. */
const isSpilled = (item: SegmentItem) => item.entries !== undefined;

/**
 * The runs to merge, in offset order. A run is consecutive, within `limitBytes` and the time span,
 * of items old enough. A run is merged only when the rest of it is at least half its largest item
 * (oldest items are dropped from the run until that holds); a spilled item dropped, or alone, is
 * rewritten alone.
 */
export function planMergeRuns(snapshot: PartitionSnapshot, config: MergeConfig, now: number, graceMs: number, limitBytes: number): SegmentItem[][] {
  const limit = Math.max(1, Math.min(config.segmentBytes, limitBytes));
  const { state } = snapshot;
  const { chain } = splitLeftovers(itemsBelowTail(snapshot));
  // A segment the log cleaner wrote has gaps where records were dropped: only the cleaner rewrites it.
  const eligible = (i: SegmentItem) => i.baseOffset >= state.logStartOffset && i.createdAt <= now - graceMs && i.cleanedThrough === undefined;
  const runs: SegmentItem[][] = [];
  let run: SegmentItem[] = [];
  let bytes = 0;
  let minTs = Infinity;
  let maxTs = -Infinity;
  const flush = () => {
    let r = run;
    let total = bytes;
    while (r.length > 1 && 3 * Math.max(...r.map((i) => i.size)) > 2 * total) {
      if (isSpilled(r[0])) runs.push([r[0]]);
      total -= r[0].size;
      r = r.slice(1);
    }
    if (r.length > 1 || (r.length === 1 && isSpilled(r[0]))) runs.push(r);
    run = [];
    bytes = 0;
    minTs = Infinity;
    maxTs = -Infinity;
  };
  for (const item of chain) {
    if (!eligible(item)) {
      flush();
      continue;
    }
    const last = run[run.length - 1];
    const joins =
      last !== undefined &&
      item.baseOffset === last.lastOffset + 1 &&
      bytes + item.size <= limit &&
      Math.max(maxTs, item.maxTimestamp) - Math.min(minTs, item.minTimestamp) <= config.segmentMs;
    if (!joins) flush();
    run.push(item);
    bytes += item.size;
    minTs = Math.min(minTs, item.minTimestamp);
    maxTs = Math.max(maxTs, item.maxTimestamp);
    // Cannot grow: rewritten alone only when spilled.
    if (item.size >= limit || item.maxTimestamp - item.minTimestamp > config.segmentMs) flush();
  }
  flush();
  return runs;
}

/**
 * Copies the ranges' batches (stamped when from an intake object) into one segment, checking
 * every batch's CRC and that offsets run densely through the run, and builds both indexes.
 */
export function buildMergedSegment(
  ranges: readonly ManifestRange[],
  buffers: readonly Buffer[],
  indexIntervalBytes: number,
): { log: Buffer; index: Buffer | undefined; timeIndex: Buffer | undefined } {
  const base = ranges[0].baseOffset;
  const offsetIndex = new OffsetIndexBuilder(base, indexIntervalBytes);
  const timeIndex = new TimeIndexBuilder(base, indexIntervalBytes);
  const log = Buffer.concat(buffers as Buffer[]);
  let expected = base;
  let position = 0;
  ranges.forEach((range, i) => {
    const corrupt = (why: string) =>
      new SluiceError('CORRUPT_MESSAGE', `merge of ${range.objectKey} [${range.baseOffset}, ${range.lastOffset}]: ${why}`, { objectKey: range.objectKey });
    if (range.baseOffset !== expected) throw corrupt(`range starts at ${range.baseOffset}, expected ${expected}`);
    const end = position + buffers[i].length;
    // The copy in `log` is stamped, never the buffer read (another partition's range may share it).
    if (range.intake) stampRange(range, log.subarray(position, end));
    while (position < end) {
      const size = batchSizeAt(log, position);
      if (size === undefined || position + size > end) throw corrupt(`truncated batch at byte ${position}`);
      const header = readBatchHeader(log, position);
      if (crc32c(log, position + CRC_COVERAGE_START, position + size) !== header.crc) throw corrupt(`CRC mismatch at byte ${position}`);
      if (header.baseOffset !== expected) throw corrupt(`batch at offset ${header.baseOffset}, expected ${expected}`);
      offsetIndex.append(header.lastOffset, size);
      timeIndex.append(header.lastOffset, header.maxTimestamp, size);
      expected = header.lastOffset + 1;
      position += size;
    }
    if (expected !== range.lastOffset + 1) throw corrupt(`batches end at ${expected - 1}`);
  });
  timeIndex.finish();
  return {
    log,
    index: offsetIndex.entryCount > 0 ? offsetIndex.toBuffer() : undefined,
    timeIndex: timeIndex.entryCount > 0 ? timeIndex.toBuffer() : undefined,
  };
}

/** A selected run: its partition's plan, its items and the ranges they stand for. */
interface SelectedRun {
  readonly plan: PartitionMergePlan;
  readonly items: readonly SegmentItem[];
  readonly ranges: readonly ManifestRange[];
}

/** The byte span to read of each object. */
type Spans = Map<string, { start: number; end: number }>;

function spanCost(spans: Spans, ranges: readonly ManifestRange[]): { cost: number; next: Spans } {
  const next: Spans = new Map();
  for (const r of ranges) {
    const current = next.get(r.objectKey) ?? spans.get(r.objectKey);
    next.set(r.objectKey, {
      start: Math.min(current?.start ?? Infinity, r.position),
      end: Math.max(current?.end ?? -Infinity, r.position + r.size),
    });
  }
  let cost = 0;
  for (const [key, span] of next) {
    const before = spans.get(key);
    cost += span.end - span.start - (before ? before.end - before.start : 0);
  }
  return { cost, next };
}

/**
 * Merges the planned runs of one topic's partitions: selects runs in order within `maxBytes` of
 * object reads, reads each object once, then builds and swaps in each partition's segments.
 */
export async function mergeTopic(
  ctx: SluiceContext,
  topic: TopicRef,
  plans: readonly PartitionMergePlan[],
  config: MergeConfig,
  maxBytes: number = DEFAULT_MAX_MERGE_BYTES,
  shouldStop: () => boolean = () => false,
): Promise<MergeResult> {
  const selected: SelectedRun[] = [];
  const spans: Spans = new Map();
  let used = 0;
  let deferredRuns = 0;
  for (const plan of plans) {
    for (const items of plan.runs) {
      const ranges = items.flatMap((item) => rangesOf(ctx, item));
      const { cost, next } = spanCost(spans, ranges);
      if (selected.length > 0 && used + cost > maxBytes) {
        deferredRuns++;
        continue;
      }
      for (const [key, span] of next) spans.set(key, span);
      used += cost;
      selected.push({ plan, items, ranges });
    }
  }
  const result = { merges: 0, replacedItems: 0, replacedRanges: 0, rewrittenBytes: 0, abandoned: 0, intakeObjectsRead: 0, segmentObjectsRead: 0, deferredRuns };
  if (selected.length === 0 || shouldStop()) return { ...result, deferredRuns: deferredRuns + selected.length };

  // Each object once, for every partition whose ranges it holds.
  const bodies = new Map<string, { start: number; body: Buffer }>();
  await forEachLimited([...spans], READ_CONCURRENCY, async ([objectKey, span]) => {
    const body = await getObjectRange(ctx, { objectKey, start: span.start, end: span.end });
    bodies.set(objectKey, { start: span.start, body });
    if (parseIntakeObjectKey(ctx.prefix, objectKey)) result.intakeObjectsRead++;
    else result.segmentObjectsRead++;
  });

  // Runs of one partition in offset order; partitions side by side.
  const byPartition = new Map<PartitionMergePlan, SelectedRun[]>();
  for (const run of selected) byPartition.set(run.plan, [...(byPartition.get(run.plan) ?? []), run]);
  await forEachLimited([...byPartition.values()], SWAP_CONCURRENCY, async (runs) => {
    for (const run of runs) {
      if (shouldStop()) {
        result.deferredRuns++;
        continue;
      }
      const buffers = run.ranges.map((r) => {
        const { start, body } = bodies.get(r.objectKey)!;
        return body.subarray(r.position - start, r.position - start + r.size);
      });
      if (await swapIn(ctx, topic, run.plan.lease, run.items, run.ranges, buffers, config)) {
        result.merges++;
        result.replacedItems += run.items.length;
        result.replacedRanges += run.ranges.length;
        result.rewrittenBytes += run.items.reduce((n, i) => n + i.size, 0);
      } else {
        result.abandoned++;
      }
    }
  });
  return result;
}

/** Builds one run's segment and swaps it in; false when it gave up (nothing visible changed). */
async function swapIn(
  ctx: SluiceContext,
  topic: TopicRef,
  lease: PartitionLease,
  run: readonly SegmentItem[],
  ranges: readonly ManifestRange[],
  buffers: readonly Buffer[],
  config: MergeConfig,
): Promise<boolean> {
  const { partition, epoch } = lease;
  const first = run[0];
  const last = run[run.length - 1];
  const { log, index, timeIndex } = buildMergedSegment(ranges, buffers, config.indexIntervalBytes);
  const id = newSegmentId(epoch);
  const key = (suffix: '.log' | '.index' | '.timeindex') => segmentObjectKey(ctx.prefix, topic, partition, first.baseOffset, id, suffix);
  const merged: MergedSegmentItem = {
    baseOffset: first.baseOffset,
    lastOffset: last.lastOffset,
    count: last.lastOffset - first.baseOffset + 1,
    objectKey: key('.log'),
    position: 0,
    size: log.length,
    indexKey: index ? key('.index') : undefined,
    timeIndexKey: timeIndex ? key('.timeindex') : undefined,
    minTimestamp: Math.min(...run.map((i) => i.minTimestamp)),
    maxTimestamp: Math.max(...run.map((i) => i.maxTimestamp)),
    createdAt: ctx.now(),
    epoch,
    mergedCount: run.length,
  };

  const putStarted = ctx.now();
  const puts = [putObject(ctx, merged.objectKey, log)];
  if (index) puts.push(putObject(ctx, merged.indexKey!, index));
  if (timeIndex) puts.push(putObject(ctx, merged.timeIndexKey!, timeIndex));
  await Promise.all(puts);
  // The sweep deletes objects no item references once they are a grace period old: an item put
  // later than that could point at a deleted object. Give up well before; and while the lease is
  // ours only (another leader may be merging the same items).
  const now = ctx.now();
  if (now - putStarted > ctx.graceMs / 2 || now >= lease.expiresAt) return false;

  // Refused when retention or another merge got there first.
  if (!(await replaceSegmentItem(ctx, topic, partition, { ...merged, createdAt: now }, first))) return false;
  await deleteItemsIfUnchanged(ctx, topic, partition, run.slice(1));
  return true;
}

/**
 * Finishes swaps a crash interrupted: items wholly inside a merged item's range (below the
 * tailBase read) are deleted, each only if unchanged. Returns how many went.
 */
export async function repairSwaps(ctx: SluiceContext, snapshot: PartitionSnapshot): Promise<number> {
  const { leftovers } = splitLeftovers(itemsBelowTail(snapshot));
  // Only a merge creates containment; anything else is left alone for a human to look at.
  const doomed = leftovers.filter(({ coveredBy }) => coveredBy.mergedCount !== undefined).map(({ item }) => item);
  if (doomed.length === 0) return 0;
  return deleteItemsIfUnchanged(ctx, snapshot.topic, snapshot.partition, doomed);
}
