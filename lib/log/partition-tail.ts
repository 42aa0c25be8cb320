// STATE's tail: the newest entries of a partition's manifest, kept on the STATE item itself, so
// that an append is ONE DynamoDB write per partition (its commit) instead of a SEG item put plus
// the commit. DynamoDB bills a write by the item's size in 1 KB units, so the tail is bounded to
// keep STATE within one unit; when the next entry would not fit, the leader "spills" the whole
// current tail into ONE SEG item listing its ranges (segment-range.ts) and starts a new tail:
//
//   append n:    1. PUT object  [∥ put SEG#<first tail base> = the old tail's ranges, if spilling]
//                2. commit STATE: nextOffset = base + count, tail = old tail + this range
//                                                     (or [this range] after a spill)
//
// So K appends cost K commits + 1 spill put (+ 1 delete when compaction later replaces it) instead
// of 2K writes + K deletes. The tail is written only by commits, which are conditioned on the
// leader's epoch, owner and nextOffset = base, so the leader knows it exactly (its view) and sets
// it whole; a spill lists only committed ranges, so a spilled item (even a stale leader's late one)
// never shows anything uncommitted, and spilling the same ranges twice is harmless (same bytes).
//
// Readers (read.ts) look in the tail first (it came with the STATE read they need anyway), then in
// the SEG items. Maintenance spills the tail of a partition with no live leader once its oldest
// range is min(segment.ms, TAIL_MAX_AGE_MS) old (spillIdleTail), so retention and compaction reach
// every range in bounded time.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';
import { isConditionalCheckFailed } from '../metadata/aws-errors.js';
import { WRITE_UNIT_BYTES, itemBytes, valueBytes } from '../metadata/item-size.js';
import { stateKey } from '../metadata/keys.js';
import { putSegmentItem } from '../metadata/manifest.js';
import type { PartitionState, SegmentItem } from '../metadata/types.js';
import type { LeaderView } from './partition-leader.js';
import { decodeRanges, encodeRange } from './segment-range.js';
import { newSegmentId, segmentObjectKey } from './segment-name.js';

/** Ranges the tail may hold. */
export const TAIL_MAX_RANGES = 8;
/**
 * Most bytes the tail attribute may take: its ranges become one SEG item (with ~250 B of summary),
 * which must stay within one write unit too.
 */
export const TAIL_MAX_BYTES = 720;
/** Fewest bytes worth a tail: with less room left in STATE's write unit, the tail takes the next unit. */
const TAIL_MIN_BYTES = 300;
/** Slack for DynamoDB's approximate number sizes and attributes STATE gains later (a compaction marker). */
const STATE_SIZE_MARGIN = 48;

/**
 * How many bytes the tail attribute may take on a STATE item whose other attributes take
 * `stateBytes`: what is left of the write unit STATE already fills, so that listing ranges costs
 * no extra unit per commit (a STATE of ~300 B leaves ~670 B). Idempotent producers' entries grow
 * STATE; when less than TAIL_MIN_BYTES is left, the tail uses the next unit, up to TAIL_MAX_BYTES.
 */
export function tailBudgetBytes(stateBytes: number): number {
  const used = stateBytes + STATE_SIZE_MARGIN;
  const left = Math.ceil(used / WRITE_UNIT_BYTES) * WRITE_UNIT_BYTES - used;
  return left >= TAIL_MIN_BYTES ? Math.min(left, TAIL_MAX_BYTES) : TAIL_MAX_BYTES;
}

/** DynamoDB size of STATE's `tail` attribute holding these ranges. */
export function tailAttributeBytes(tail: readonly string[]): number {
  return 'tail'.length + valueBytes(tail);
}

/**
 * DynamoDB size of the partition's STATE item without its tail, from what the leader knows (its
 * view) and the attributes others write, at their largest (a compaction marker names an object).
 */
export function stateBytesWithoutTail(ctx: SluiceContext, topic: string, partition: number, view: LeaderView): number {
  return itemBytes({
    ...stateKey(topic, partition),
    nextOffset: view.nextOffset,
    logStartOffset: view.nextOffset,
    owner: ctx.ownerId,
    epoch: view.epoch,
    expiresAt: view.expiresAt,
    bytes: Number.MAX_SAFE_INTEGER,
    segments: Number.MAX_SAFE_INTEGER,
    producers: view.producers,
    topic,
    partition,
    lastCompaction: segmentObjectKey(ctx.prefix, topic, partition, view.nextOffset, newSegmentId(view.epoch), '.log'),
  });
}
/**
 * A tail whose oldest range is this old (or the topic's `segment.ms`, if less: as Kafka rolls its
 * active segment) is spilled at the next commit, or by maintenance when the partition is idle.
 */
export const TAIL_MAX_AGE_MS = 60_000;

/** When a tail is spilled, beyond its size in STATE: the topic's segment limits, as Kafka rolls its active segment. */
export interface TailLimits {
  /** The oldest range's age, and the span of record timestamps: `segment.ms`, at most TAIL_MAX_AGE_MS. */
  readonly maxAgeMs: number;
  /** Bytes of the ranges listed: `segment.bytes`. */
  readonly maxDataBytes: number;
  /** Size of the tail attribute on STATE (tailBudgetBytes). @default TAIL_MAX_BYTES */
  readonly maxTailBytes?: number;
}

export function tailLimits(config: { readonly segmentMs?: number; readonly segmentBytes?: number } = {}): TailLimits {
  return { maxAgeMs: Math.min(config.segmentMs ?? Infinity, TAIL_MAX_AGE_MS), maxDataBytes: config.segmentBytes ?? Infinity };
}

export interface TailPlan {
  /** STATE's tail after the commit. */
  readonly tail: string[];
  /** The SEG item to put in step 1, when the old tail is spilled. */
  readonly spill?: SegmentItem;
  /** Change of STATE's `segments` counter (SEG items + tail ranges): +1, less the ranges a spill folds into one item. */
  readonly segmentsDelta: number;
}

/** What the commit of `added` writes: the tail grown by it, or a spill of the old tail and [added]. */
export function planTail(
  ctx: SluiceContext,
  topic: string,
  partition: number,
  current: readonly string[],
  added: SegmentItem,
  epoch: number,
  limits: TailLimits = tailLimits(),
): TailPlan {
  const entry = encodeRange(ctx, topic, partition, added);
  const grown = [...current, entry];
  if (current.length === 0 || !mustSpill(ctx, topic, partition, grown, limits)) return { tail: grown, segmentsDelta: 1 };
  return { tail: [entry], spill: spillItem(ctx, topic, partition, current, epoch), segmentsDelta: 2 - current.length };
}

/**
 * Whether the grown tail is past a bound: its ranges or their encoded bytes (STATE's size), the
 * age of its oldest range, or (as Kafka rolls a segment) records spanning more than segment.ms or
 * data over segment.bytes, so that a spilled item, like a merged segment, stays within both
 * unless one range alone does not.
 */
function mustSpill(ctx: SluiceContext, topic: string, partition: number, tail: readonly string[], limits: TailLimits): boolean {
  if (tail.length > TAIL_MAX_RANGES) return true;
  if (tailAttributeBytes(tail) > Math.min(limits.maxTailBytes ?? TAIL_MAX_BYTES, TAIL_MAX_BYTES)) return true;
  const ranges = decodeRanges(ctx, topic, partition, tail);
  const span = Math.max(...ranges.map((r) => r.maxTimestamp)) - Math.min(...ranges.map((r) => r.minTimestamp));
  const dataBytes = ranges.reduce((n, r) => n + r.size, 0);
  return span > limits.maxAgeMs || dataBytes > limits.maxDataBytes || ctx.now() - ranges[0].createdAt >= limits.maxAgeMs;
}

function isTailOld(ctx: SluiceContext, topic: string, partition: number, tail: readonly string[], maxAgeMs: number): boolean {
  const [oldest] = decodeRanges(ctx, topic, partition, tail.slice(0, 1));
  return oldest !== undefined && ctx.now() - oldest.createdAt >= maxAgeMs;
}

/**
 * The SEG item standing for the tail's ranges: one range as a plain item, several as a listed one.
 * Either way it carries the spilling leader's epoch (at least its ranges') and the time of the
 * spill, which are what fence a late put at its key and what compaction's grace rule counts from.
 */
export function spillItem(ctx: SluiceContext, topic: string, partition: number, tail: readonly string[], epoch: number): SegmentItem {
  const ranges = decodeRanges(ctx, topic, partition, tail);
  if (ranges.length === 1) return { ...ranges[0], epoch: Math.max(epoch, ranges[0].epoch), createdAt: ctx.now() };
  const first = ranges[0];
  const last = ranges[ranges.length - 1];
  return {
    baseOffset: first.baseOffset,
    lastOffset: last.lastOffset,
    count: last.lastOffset - first.baseOffset + 1,
    objectKey: first.objectKey,
    position: first.position,
    size: ranges.reduce((n, r) => n + r.size, 0),
    minTimestamp: Math.min(...ranges.map((r) => r.minTimestamp)),
    maxTimestamp: Math.max(...ranges.map((r) => r.maxTimestamp)),
    epoch: Math.max(epoch, ...ranges.map((r) => r.epoch)),
    createdAt: ctx.now(),
    ranges: [...tail],
  };
}

/**
 * Maintenance's spill of an idle partition's old tail, without taking the lease: put the SEG
 * item, then drop the tail from STATE only if nothing moved since `state` was read and no lease is
 * live (a new leader must first acquire, which changes the epoch). A leader whose lease ran out
 * while its commit was in flight may still re-add the same ranges to the tail: they then appear
 * twice, with the same bytes, which readers, compaction and a later spill all tolerate.
 * Returns whether the tail was spilled.
 */
export async function spillIdleTail(ctx: SluiceContext, state: PartitionState, maxAgeMs = TAIL_MAX_AGE_MS): Promise<boolean> {
  const { topic, partition } = state;
  const tail = state.tail ?? [];
  const now = ctx.now();
  if (tail.length === 0 || state.expiresAt >= now || !isTailOld(ctx, topic, partition, tail, maxAgeMs)) return false;
  const item = spillItem(ctx, topic, partition, tail, state.epoch);
  try {
    await putSegmentItem(ctx, topic, partition, item);
    await ctx.ddb.send(
      new UpdateCommand({
        TableName: ctx.table,
        Key: stateKey(topic, partition),
        ConditionExpression: '#epoch = :epoch AND #nextOffset = :next AND #expiresAt < :now AND size(#tail) = :n',
        UpdateExpression: 'REMOVE #tail ADD #segments :fold',
        ExpressionAttributeNames: {
          '#epoch': 'epoch',
          '#nextOffset': 'nextOffset',
          '#expiresAt': 'expiresAt',
          '#tail': 'tail',
          '#segments': 'segments',
        },
        ExpressionAttributeValues: { ':epoch': state.epoch, ':next': state.nextOffset, ':now': now, ':n': tail.length, ':fold': 1 - tail.length },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionalCheckFailed(e)) return false; // a leader came back: its commits spill
    throw e;
  }
}
