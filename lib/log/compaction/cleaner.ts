// The log cleaner (Kafka's LogCleaner, `cleanup.policy=compact`) for one partition, run by its
// leader in the maintenance job (maintenance.ts), under the partition lease. One cleaning:
//
//   1. Plan (planCleaning). The log's merged segments below STATE's tail, from logStartOffset, are
//      split at the first dirty offset: the lowest `cleanedThrough + 1` of the segments a cleaning
//      wrote (Kafka's cleaner checkpoint, kept per segment), or the base of the first segment no
//      cleaning wrote. Below it the log is clean; the dirty segments after it are cleanable while
//      they are merged, older than the grace period and older than `min.compaction.lag.ms` (their
//      newest timestamp), up to the first that is not. Spilled items and STATE's tail (the active
//      segment) are never cleaned. A cleaning is due when dirty bytes / (clean + dirty bytes) is
//      at least `min.cleanable.dirty.ratio`, when the first dirty segment's oldest record is older
//      than `max.compaction.lag.ms`, or when a clean segment's tombstones reached their delete
//      horizon (KIP-534).
//   2. Map (OffsetMap, bounded by `dedupeBufferBytes`): each dirty segment is read once, whole
//      segments in offset order, each key's newest offset recorded, until the next segment might
//      not fit; the rest wait for the next cleaning (Kafka's passes). Segments read here are kept
//      for step 3 within the memory budget, so a small log is read once per cleaning.
//   3. Clean: every segment from the start of the log through the last one mapped, in groups of
//      consecutive segments of at most min(segment.bytes, the memory budget) bytes, in offset
//      order. A record stays when it has a key and the map holds no newer offset for it; a
//      tombstone also goes once its batch's delete horizon has passed; batches keep their offsets
//      (cleaned-batch.ts). A tombstone that is the newest of its key in a mapped segment gets the
//      horizon now + `delete.retention.ms`: every older record of its key is gone by then (this
//      cleaning drops them, in the groups before or with it), so dropping it later resurrects
//      nothing.
//   4. Swap each group in, as a merge swaps (merge.ts): PUT the cleaned `.log`, `.index` and
//      `.timeindex` under fresh keys named by the group's base offset; replace the group's first
//      item by the cleaned one (covering the group's offsets, `cleanedThrough` = the map's last
//      offset, `mergedCount` = the group's size), only if it is still the item seen; then delete
//      the others, each only if unchanged (leftovers a crash leaves are what merge.ts repairSwaps
//      deletes). A lone segment the map changes nothing in is not rewritten: only its
//      `cleanedThrough` is set (markSegmentCleaned). The first group that cannot swap (lost a
//      race, the PUTs took half the grace period, the lease ran out, the time budget) ends the
//      cleaning: later groups are left as they were, so a tombstone never goes while an older
//      record of its key stays in an earlier group. Old objects go with the sweep (cleanup.ts).
//
// Offsets are never renumbered and logStartOffset does not move; dropped records are gaps, which
// readers step over (read.ts). A reader sees each offset either from the old segment or from the
// cleaned one: the newest record of every key is in both.
import { SluiceError } from '../../errors.js';
import type { SluiceContext } from '../../context.js';
import { markSegmentCleaned, replaceSegmentItem } from '../../metadata/manifest.js';
import type { PartitionLease } from '../../metadata/partition-state.js';
import type { TopicConfig } from '../../metadata/topics.js';
import type { MergedSegmentItem, SegmentItem, TopicRef } from '../../metadata/types.js';
import { logger } from '../../observability/logger.js';
import { decodeRecordBatch, readBatchHeader } from '../../records/index.js';
import { batchSizeAt } from '../decode-segment.js';
import { DEFAULT_MAX_MERGE_BYTES } from '../merge.js';
import { putObject } from '../object-store.js';
import { OffsetIndexBuilder } from '../offset-index.js';
import { type PartitionSnapshot, deleteItemsIfUnchanged, itemsBelowTail, splitLeftovers } from '../partition-snapshot.js';
import { getObjectRange } from '../segment-fetch.js';
import { newSegmentId, segmentObjectKey } from '../segment-name.js';
import { TimeIndexBuilder } from '../time-index.js';
import { cleanBatch } from './cleaned-batch.js';
import { OffsetMap } from './offset-map.js';
import { MAX_MESSAGE_BYTES_LIMIT } from '../../metadata/topics.js';

/** Kafka's `log.cleaner.dedupe.buffer.size` for one cleaning (Kafka's default is 128 MiB for all its cleaner threads). */
export const DEFAULT_DEDUPE_BUFFER_BYTES = 16 * 1024 * 1024;
/** Relative offsets in `.index` and `.timeindex` entries are int32. */
const MAX_SEGMENT_OFFSET_SPAN = 0x7fff_ffff;

/** The topic configs the cleaner follows, by Kafka's names. */
export interface CleanerConfig {
  readonly minCleanableDirtyRatio: number;
  readonly minCompactionLagMs: number;
  readonly maxCompactionLagMs: number;
  readonly deleteRetentionMs: number;
  readonly segmentBytes: number;
  readonly indexIntervalBytes: number;
}

export function cleanerConfigOf(config: TopicConfig): CleanerConfig {
  return {
    minCleanableDirtyRatio: config['min.cleanable.dirty.ratio'],
    minCompactionLagMs: config['min.compaction.lag.ms'],
    maxCompactionLagMs: config['max.compaction.lag.ms'],
    deleteRetentionMs: config['delete.retention.ms'],
    segmentBytes: config['segment.bytes'],
    indexIntervalBytes: config['index.interval.bytes'],
  };
}

export interface CleanerOptions {
  /** Memory of the key map (Kafka's `log.cleaner.dedupe.buffer.size`). @default DEFAULT_DEDUPE_BUFFER_BYTES */
  readonly dedupeBufferBytes?: number;
  /** Object bytes held at once: a group's segments, and dirty segments kept from the map's reads. @default merge.ts DEFAULT_MAX_MERGE_BYTES */
  readonly maxBytes?: number;
  /** Checked before each segment read and each group: true leaves the rest for the next run. */
  readonly shouldStop?: () => boolean;
}

export type CleaningReason = 'dirty-ratio' | 'max-compaction-lag' | 'delete-horizon';

export interface CleaningPlan {
  /** Segments below the first dirty offset. */
  readonly clean: readonly MergedSegmentItem[];
  /** Cleanable dirty segments, in offset order. */
  readonly dirty: readonly MergedSegmentItem[];
  readonly firstDirtyOffset: number;
  readonly cleanBytes: number;
  readonly dirtyBytes: number;
  /** Why a cleaning is due now; undefined: it is not. */
  readonly reason?: CleaningReason;
}

export interface CleanResult {
  /** Cleanings that changed the log (0 or 1 per partition and run). */
  readonly cleanings: number;
  /** Segments replaced by cleaned ones. */
  readonly cleanedItems: number;
  /** Cleaned segments written. */
  readonly segmentsWritten: number;
  /** Segments the map changed nothing in: marked clean, not rewritten. */
  readonly markedItems: number;
  readonly keysMapped: number;
  /** Dirty segments the map had no room for: the next cleaning maps them. */
  readonly deferredItems: number;
  readonly recordsRemoved: number;
  readonly tombstonesRemoved: number;
  /** Segment bytes read (GETs below). */
  readonly bytesRead: number;
  readonly segmentObjectsRead: number;
  /** `.log` bytes written. */
  readonly bytesWritten: number;
  /** Bytes the rewritten groups shrank by: what cleaning freed. */
  readonly bytesRemoved: number;
  /** Objects PUT (`.log`, `.index`, `.timeindex`). */
  readonly objectsWritten: number;
  /** Cleanings ended early by a lost race, a slow PUT, the lease or the time budget. */
  readonly abandoned: number;
}

export function emptyCleanResult(): CleanResult {
  return {
    cleanings: 0,
    cleanedItems: 0,
    segmentsWritten: 0,
    markedItems: 0,
    keysMapped: 0,
    deferredItems: 0,
    recordsRemoved: 0,
    tombstonesRemoved: 0,
    bytesRead: 0,
    segmentObjectsRead: 0,
    bytesWritten: 0,
    bytesRemoved: 0,
    objectsWritten: 0,
    abandoned: 0,
  };
}

const isMerged = (item: SegmentItem): item is MergedSegmentItem => item.entries === undefined;

/** Step 1: the clean and dirty parts of the log, and whether a cleaning is due at `now`. */
export function planCleaning(snapshot: PartitionSnapshot, config: CleanerConfig, now: number, graceMs: number): CleaningPlan {
  const { state } = snapshot;
  const chain = splitLeftovers(itemsBelowTail(snapshot)).chain.filter((i) => i.lastOffset >= state.logStartOffset);
  // Only merged segments are cleaned, from the start of the log: the first spilled item ends them.
  const segments: MergedSegmentItem[] = [];
  for (const item of chain) {
    if (!isMerged(item)) break;
    segments.push(item);
  }
  let firstDirtyOffset = segments.length > 0 ? segments[segments.length - 1].lastOffset + 1 : state.logStartOffset;
  for (const s of segments) firstDirtyOffset = Math.min(firstDirtyOffset, s.cleanedThrough === undefined ? s.baseOffset : s.cleanedThrough + 1);
  const clean = segments.filter((s) => s.lastOffset < firstDirtyOffset);
  const dirty: MergedSegmentItem[] = [];
  for (const s of segments.filter((i) => i.lastOffset >= firstDirtyOffset)) {
    if (s.createdAt > now - graceMs || s.maxTimestamp > now - config.minCompactionLagMs) break;
    dirty.push(s);
  }
  const cleanBytes = clean.reduce((n, s) => n + s.size, 0);
  const dirtyBytes = dirty.reduce((n, s) => n + s.size, 0);
  const plan = { clean, dirty, firstDirtyOffset, cleanBytes, dirtyBytes };
  // Every segment a cleaning replaces must be older than the grace period (ARCHITECTURE.md rule 3);
  // a cleaning's own output is, all of it at once, a grace period later.
  if (clean.some((s) => s.createdAt > now - graceMs)) return plan;
  if (dirty.length > 0 && dirtyBytes >= config.minCleanableDirtyRatio * (cleanBytes + dirtyBytes)) return { ...plan, reason: 'dirty-ratio' };
  if (dirty.length > 0 && dirty[0].minTimestamp <= now - config.maxCompactionLagMs) return { ...plan, reason: 'max-compaction-lag' };
  if (clean.some((s) => s.deleteHorizonMs !== undefined && s.deleteHorizonMs <= now)) return { ...plan, reason: 'delete-horizon' };
  return plan;
}

/** Steps 1 to 4 for one partition the caller leads. */
export async function cleanPartition(
  ctx: SluiceContext,
  topic: TopicRef,
  lease: PartitionLease,
  snapshot: PartitionSnapshot,
  config: CleanerConfig,
  options: CleanerOptions = {},
): Promise<CleanResult> {
  const result = emptyCleanResult() as { -readonly [K in keyof CleanResult]: CleanResult[K] };
  const now = ctx.now();
  const plan = planCleaning(snapshot, config, now, ctx.graceMs);
  if (!plan.reason) return result;
  const shouldStop = options.shouldStop ?? (() => false);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_MERGE_BYTES;
  const read = async (item: MergedSegmentItem): Promise<Buffer> => {
    if (item.size === 0) return Buffer.alloc(0);
    const body = await getObjectRange(ctx, { objectKey: item.objectKey, start: item.position, end: item.position + item.size });
    result.bytesRead += body.length;
    result.segmentObjectsRead++;
    return body;
  };

  // 2. The key map over whole dirty segments, as many as it surely holds.
  const map = new OffsetMap(options.dedupeBufferBytes ?? DEFAULT_DEDUPE_BUFFER_BYTES, plan.dirty.reduce((n, s) => n + s.count, 0));
  const mapped: MergedSegmentItem[] = [];
  const kept = new Map<MergedSegmentItem, Buffer>();
  let keptBytes = 0;
  for (const item of plan.dirty) {
    if (shouldStop()) break;
    if (mapped.length > 0 && map.size + item.count > map.capacity) break;
    const body = await read(item);
    forEachBatch(item, body, (batch, header) => {
      if (header.isControl) return;
      for (const record of decodeRecordBatch(batch, 0, { maxDecompressedBytes: MAX_MESSAGE_BYTES_LIMIT }).records) {
        if (record.key === null) continue;
        if (!map.put(record.key, record.offset)) {
          throw new SluiceError(
            'UNKNOWN_SERVER_ERROR',
            `the log cleaner's key map (${map.memoryBytes} bytes, ${map.capacity} keys) cannot hold the keys of segment ${item.objectKey} alone: raise dedupeBufferBytes`,
          );
        }
      }
    });
    mapped.push(item);
    if (keptBytes + body.length <= maxBytes) {
      kept.set(item, body);
      keptBytes += body.length;
    }
  }
  result.keysMapped = map.size;
  result.deferredItems = plan.dirty.length - mapped.length;
  if (mapped.length === 0 && plan.reason !== 'delete-horizon') return result;
  const cleanedThrough = mapped.length > 0 ? mapped[mapped.length - 1].lastOffset : plan.firstDirtyOffset - 1;
  const mappedSet = new Set(mapped);

  // 3 and 4: groups in offset order, each swapped in before the next is read.
  const deleteHorizonMs = Math.min(now + config.deleteRetentionMs, Number.MAX_SAFE_INTEGER);
  const keep = (record: { key: Buffer | null; offset: number }) => record.key !== null && map.get(record.key) <= record.offset;
  let changedAny = false;
  for (const group of groupSegments([...plan.clean, ...mapped], Math.max(1, Math.min(config.segmentBytes, maxBytes)))) {
    if (shouldStop() || ctx.now() >= lease.expiresAt) {
      result.abandoned++;
      break;
    }
    const bodies: Buffer[] = [];
    for (const item of group) bodies.push(kept.get(item) ?? (await read(item)));
    const built = buildCleanedSegment(group, bodies, config.indexIntervalBytes, (item) => ({
      keep,
      now,
      newDeleteHorizonMs: mappedSet.has(item) ? deleteHorizonMs : undefined,
    }));
    result.recordsRemoved += built.recordsRemoved;
    result.tombstonesRemoved += built.tombstonesRemoved;
    if (group.length === 1 && !built.changed) {
      // Nothing to drop: the same bytes need no copy, only the new checkpoint.
      if (group[0].cleanedThrough !== cleanedThrough) {
        if (!(await markSegmentCleaned(ctx, topic, lease.partition, group[0], cleanedThrough))) {
          result.abandoned++;
          break;
        }
        result.markedItems++;
        changedAny = true;
      }
      continue;
    }
    const swapped = await swapInCleaned(ctx, topic, lease, group, built, cleanedThrough);
    result.objectsWritten += swapped.objectsWritten;
    result.bytesWritten += built.log.length;
    if (!swapped.ok) {
      result.abandoned++;
      break;
    }
    changedAny = true;
    result.cleanedItems += group.length;
    result.segmentsWritten++;
    result.bytesRemoved += group.reduce((n, s) => n + s.size, 0) - built.log.length;
  }
  if (changedAny) result.cleanings = 1;
  logger.info('log cleaner', {
    topic: topic.name,
    partition: lease.partition,
    reason: plan.reason,
    firstDirtyOffset: plan.firstDirtyOffset,
    cleanedThrough,
    ...result,
  });
  return result;
}

/** Consecutive segments of at most `limitBytes` together (a larger one alone), within an int32 offset span. */
export function groupSegments<T extends SegmentItem>(segments: readonly T[], limitBytes: number): T[][] {
  const groups: T[][] = [];
  let group: T[] = [];
  let bytes = 0;
  for (const s of segments) {
    const fits = group.length > 0 && bytes + s.size <= limitBytes && s.lastOffset - group[0].baseOffset <= MAX_SEGMENT_OFFSET_SPAN;
    if (group.length > 0 && !fits) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(s);
    bytes += s.size;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** Calls `each` with every batch of a segment's bytes, checking that each lies inside the segment's offsets, in order. */
function forEachBatch(
  item: SegmentItem,
  body: Buffer,
  each: (batch: Buffer, header: ReturnType<typeof readBatchHeader>) => void,
): void {
  const corrupt = (why: string) =>
    new SluiceError('CORRUPT_MESSAGE', `cleaning of ${item.objectKey} [${item.baseOffset}, ${item.lastOffset}]: ${why}`, { objectKey: item.objectKey });
  let position = 0;
  let next = item.baseOffset;
  while (position < body.length) {
    const size = batchSizeAt(body, position);
    if (size === undefined || position + size > body.length) throw corrupt(`truncated batch at byte ${position}`);
    const batch = body.subarray(position, position + size);
    const header = readBatchHeader(batch);
    if (header.baseOffset < next || header.lastOffset > item.lastOffset) {
      throw corrupt(`batch [${header.baseOffset}, ${header.lastOffset}] out of order or outside the segment`);
    }
    each(batch, header);
    next = header.lastOffset + 1;
    position += size;
  }
}

interface BuiltSegment {
  readonly log: Buffer;
  readonly index: Buffer | undefined;
  readonly timeIndex: Buffer | undefined;
  /** Whether any batch changed or went. */
  readonly changed: boolean;
  readonly minTimestamp: number;
  readonly maxTimestamp: number;
  readonly deleteHorizonMs?: number;
  readonly recordsRemoved: number;
  readonly tombstonesRemoved: number;
}

/** The cleaned bytes of a group of segments, with both indexes. */
function buildCleanedSegment(
  group: readonly MergedSegmentItem[],
  bodies: readonly Buffer[],
  indexIntervalBytes: number,
  verdictsOf: (item: MergedSegmentItem) => Parameters<typeof cleanBatch>[1],
): BuiltSegment {
  const base = group[0].baseOffset;
  const offsetIndex = new OffsetIndexBuilder(base, indexIntervalBytes);
  const timeIndex = new TimeIndexBuilder(base, indexIntervalBytes);
  const out: Buffer[] = [];
  let changed = false;
  let minTimestamp = Number.MAX_SAFE_INTEGER;
  let maxTimestamp = -1;
  let deleteHorizonMs: number | undefined;
  let recordsRemoved = 0;
  let tombstonesRemoved = 0;
  group.forEach((item, i) => {
    const verdicts = verdictsOf(item);
    forEachBatch(item, bodies[i], (batch) => {
      const cleaned = cleanBatch(batch, verdicts);
      changed ||= cleaned.changed;
      recordsRemoved += cleaned.recordsIn - cleaned.recordsKept;
      tombstonesRemoved += cleaned.tombstonesDropped;
      if (!cleaned.bytes) return;
      out.push(cleaned.bytes);
      offsetIndex.append(cleaned.header.lastOffset, cleaned.bytes.length);
      timeIndex.append(cleaned.header.lastOffset, cleaned.maxTimestamp, cleaned.bytes.length);
      minTimestamp = Math.min(minTimestamp, cleaned.minTimestamp);
      maxTimestamp = Math.max(maxTimestamp, cleaned.maxTimestamp);
      if (cleaned.deleteHorizonMs !== undefined) deleteHorizonMs = Math.min(deleteHorizonMs ?? Infinity, cleaned.deleteHorizonMs);
    });
  });
  timeIndex.finish();
  return {
    log: Buffer.concat(out),
    index: offsetIndex.entryCount > 0 ? offsetIndex.toBuffer() : undefined,
    timeIndex: timeIndex.entryCount > 0 ? timeIndex.toBuffer() : undefined,
    changed,
    // A segment left with no record: timestamps no search or retention rule waits for.
    minTimestamp: out.length > 0 ? minTimestamp : -1,
    maxTimestamp: out.length > 0 ? maxTimestamp : -1,
    deleteHorizonMs,
    recordsRemoved,
    tombstonesRemoved,
  };
}

/** Step 4 for one group: PUTs, then the swap; ok false when it gave up (nothing visible changed). */
async function swapInCleaned(
  ctx: SluiceContext,
  topic: TopicRef,
  lease: PartitionLease,
  group: readonly MergedSegmentItem[],
  built: BuiltSegment,
  cleanedThrough: number,
): Promise<{ ok: boolean; objectsWritten: number }> {
  const { partition, epoch } = lease;
  const first = group[0];
  const last = group[group.length - 1];
  const id = newSegmentId(epoch);
  const key = (suffix: '.log' | '.index' | '.timeindex') => segmentObjectKey(ctx.prefix, topic, partition, first.baseOffset, id, suffix);
  const cleaned: MergedSegmentItem = {
    baseOffset: first.baseOffset,
    lastOffset: last.lastOffset,
    count: last.lastOffset - first.baseOffset + 1,
    objectKey: key('.log'),
    position: 0,
    size: built.log.length,
    indexKey: built.index ? key('.index') : undefined,
    timeIndexKey: built.timeIndex ? key('.timeindex') : undefined,
    minTimestamp: built.minTimestamp,
    maxTimestamp: built.maxTimestamp,
    createdAt: ctx.now(),
    epoch,
    mergedCount: group.length,
    cleanedThrough,
    deleteHorizonMs: built.deleteHorizonMs,
  };
  const putStarted = ctx.now();
  // The .log even when empty: every item names an object that exists.
  const puts = [putObject(ctx, cleaned.objectKey, built.log)];
  if (built.index) puts.push(putObject(ctx, cleaned.indexKey!, built.index));
  if (built.timeIndex) puts.push(putObject(ctx, cleaned.timeIndexKey!, built.timeIndex));
  await Promise.all(puts);
  const objectsWritten = puts.length;
  // As merge.ts swapIn: the sweep may delete unreferenced objects a grace period old, and the lease must still be ours.
  const now = ctx.now();
  if (now - putStarted > ctx.graceMs / 2 || now >= lease.expiresAt) return { ok: false, objectsWritten };
  if (!(await replaceSegmentItem(ctx, topic, partition, { ...cleaned, createdAt: now }, first))) return { ok: false, objectsWritten };
  await deleteItemsIfUnchanged(ctx, topic, partition, group.slice(1));
  return { ok: true, objectsWritten };
}
