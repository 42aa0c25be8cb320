// A manifest range: one run of a partition's RecordBatches at [position, position + size) of an S3
// object, the unit a fetch reads. A SEG item is one range, or (a spilled tail, partition-tail.ts)
// a list of them; STATE's tail is a list of them. Listed ranges are stored as short strings, so
// that the STATE item a leader rewrites on every append stays within one DynamoDB write unit:
//
//   <baseOffset>,<lastOffset>,<position>,<size>,<minTimestamp>,<maxTimestamp>,<epoch>,<createdAt>,<object>
//
// where <object> is `p<segmentId>` for the partition's own segment object at that base
// (segment-name.ts), `s<ms>-<16 hex>` for a shared produce object (produce-object.ts; its hour
// folder is the hour of <ms>), or `k<object key>` for any other key. Listed ranges have no index
// objects: they are produce batches, which Kafka's index rule gives no entries.
import type { SluiceContext } from '../context.js';
import { padOffset } from '../metadata/keys.js';
import type { SegmentItem } from '../metadata/types.js';
import { sharedProduceFolder, sharedProduceObjectKey } from './produce-object.js';
import { partitionObjectPrefix } from './segment-name.js';

const SHARED_NAME = /^(\d{4}-\d{2}-\d{2}T\d{2})\/(\d+)-([0-9a-f]{16})\.log$/;

function objectRef(ctx: SluiceContext, topic: string, partition: number, range: SegmentItem): string {
  const own = `${partitionObjectPrefix(ctx.prefix, topic, partition)}${padOffset(range.baseOffset)}-`;
  const key = range.objectKey;
  if (key.startsWith(own) && key.endsWith('.log') && !key.slice(own.length, -4).includes('/')) return `p${key.slice(own.length, -4)}`;
  const shared = sharedProduceFolder(ctx.prefix);
  if (key.startsWith(shared)) {
    const m = SHARED_NAME.exec(key.slice(shared.length));
    if (m && sharedProduceObjectKey(ctx.prefix, Number(m[2]), m[3]) === key) return `s${m[2]}-${m[3]}`;
  }
  return `k${key}`;
}

function objectKeyOf(ctx: SluiceContext, topic: string, partition: number, baseOffset: number, ref: string): string {
  switch (ref[0]) {
    case 'p':
      return `${partitionObjectPrefix(ctx.prefix, topic, partition)}${padOffset(baseOffset)}-${ref.slice(1)}.log`;
    case 's': {
      const dash = ref.indexOf('-');
      return sharedProduceObjectKey(ctx.prefix, Number(ref.slice(1, dash)), ref.slice(dash + 1));
    }
    case 'k':
      return ref.slice(1);
    default:
      throw new RangeError(`bad manifest range object reference ${ref}`);
  }
}

/** The stored form of one range (no index objects: see the top of the file). */
export function encodeRange(ctx: SluiceContext, topic: string, partition: number, range: SegmentItem): string {
  if (range.indexKey || range.timeIndexKey || range.ranges) throw new RangeError('only a plain range without indexes can be listed');
  const { baseOffset, lastOffset, position, size, minTimestamp, maxTimestamp, epoch, createdAt } = range;
  return `${baseOffset},${lastOffset},${position},${size},${minTimestamp},${maxTimestamp},${epoch},${createdAt},${objectRef(ctx, topic, partition, range)}`;
}

export function decodeRange(ctx: SluiceContext, topic: string, partition: number, encoded: string): SegmentItem {
  const fields = encoded.split(',', 8);
  const ref = encoded.slice(fields.reduce((n, f) => n + f.length + 1, 0));
  const [baseOffset, lastOffset, position, size, minTimestamp, maxTimestamp, epoch, createdAt] = fields.map(Number);
  if (fields.length !== 8 || !ref || [baseOffset, lastOffset, position, size].some((n) => !Number.isSafeInteger(n) || n < 0)) {
    throw new RangeError(`bad manifest range ${encoded}`);
  }
  return {
    baseOffset,
    lastOffset,
    count: lastOffset - baseOffset + 1,
    objectKey: objectKeyOf(ctx, topic, partition, baseOffset, ref),
    position,
    size,
    minTimestamp,
    maxTimestamp,
    epoch,
    createdAt,
  };
}

/** Base offset of the first of the listed ranges (no decoding of the rest), or undefined when none. */
export function firstListedOffset(encoded: readonly string[] | undefined): number | undefined {
  return encoded && encoded.length > 0 ? Number(encoded[0].slice(0, encoded[0].indexOf(','))) : undefined;
}

export function decodeRanges(ctx: SluiceContext, topic: string, partition: number, encoded: readonly string[] | undefined): SegmentItem[] {
  return (encoded ?? []).map((e) => decodeRange(ctx, topic, partition, e));
}

/** The ranges a SEG item stands for: its listed ranges, or itself. */
export function rangesOf(ctx: SluiceContext, topic: string, partition: number, item: SegmentItem): SegmentItem[] {
  return item.ranges ? decodeRanges(ctx, topic, partition, item.ranges) : [item];
}

/** The range holding `offset`, if any (ranges in offset order). */
export function rangeHolding(ranges: readonly SegmentItem[], offset: number): SegmentItem | undefined {
  return ranges.find((r) => r.baseOffset <= offset && offset <= r.lastOffset);
}
