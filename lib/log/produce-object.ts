// The produce object: the ONE S3 object a produce request writes, holding the RecordBatch of every
// partition it appends to, back to back, each partition's SEG item pointing at its byte range:
//
//   [batch of partition a][batch of partition b]...      SEG item = (objectKey, position, size)
//
// Names:
//   one partition:  <prefix>/<topic>/<partition>/<baseOffset, 20 digits>-<segmentId>.log
//                   a segment named as Kafka's tiered storage names one (segment-name.ts)
//   several:        <prefix>/_produce/<yyyy-mm-ddTHH>/<ms>-<16 hex>.log
//                   a shared object; the hour folder (UTC, of the writer's clock) lets an orphan
//                   sweep list old objects without touching recent ones. `yyyy-mm-ddTHH` is never a
//                   partition number, so the folder cannot collide with a topic named `_produce`.
//
// No index object: each partition's range is one batch, and Kafka's index rule (offset-index.ts)
// gives a one-batch segment no entries. A shared object is garbage only when no SEG item of any
// partition references any range of it; compaction rewrites the ranges into per-partition,
// Kafka-named segments, after which the sweep may delete it (past the grace period).
import { randomBytes } from 'node:crypto';
import type { SluiceContext } from '../context.js';
import type { SegmentItem } from '../metadata/types.js';
import { readBatchHeader } from '../records/index.js';
import { writeInt64 } from '../records/int64.js';
import { newSegmentId, segmentObjectKey } from './segment-name.js';

export const SHARED_PRODUCE_FOLDER = '_produce';
/** RecordBatch v2 byte offsets of baseOffset (int64) and partitionLeaderEpoch (int32). */
const BASE_OFFSET_FIELD = 0;
const PARTITION_LEADER_EPOCH_FIELD = 12;

/** One partition's batch in a produce object, with the base offset and leader epoch to stamp on it. */
export interface ProduceRange {
  readonly partition: number;
  readonly epoch: number;
  readonly baseOffset: number;
  /**
   * Exactly one RecordBatch, as encoded (whatever base offset and epoch it carries). Alone in its
   * object it IS the body: stamped in place, not copied (restamped by a later round if need be).
   */
  readonly batch: Buffer;
  readonly minTimestamp: number;
}

export interface ProduceObject {
  readonly objectKey: string;
  readonly body: Buffer;
  /** One SEG item per range, in the order given. */
  readonly items: SegmentItem[];
}

/** Folder of the shared produce objects, with the trailing slash. */
export function sharedProduceFolder(prefix: string): string {
  return `${prefix ? `${prefix}/` : ''}${SHARED_PRODUCE_FOLDER}/`;
}

/** `<folder><yyyy-mm-ddTHH of ms>/<ms>-<id>.log`: the hour folder follows from the name (segment-range.ts relies on it). */
export function sharedProduceObjectKey(prefix: string, ms: number, id = randomBytes(8).toString('hex')): string {
  const hour = new Date(ms).toISOString().slice(0, 13);
  return `${sharedProduceFolder(prefix)}${hour}/${ms}-${id}.log`;
}

/**
 * Lays out the object and the range of each batch; writes nothing to storage. Each batch is copied
 * once, into the object's body (a lone batch is the body), and stamped there with its base offset
 * and partition leader epoch: both lie outside the CRC-32C, which is how a Kafka broker assigns
 * offsets to a producer's batch.
 */
export function layoutProduceObject(ctx: SluiceContext, topic: string, ranges: readonly ProduceRange[]): ProduceObject {
  if (ranges.length === 0) throw new RangeError('a produce object needs at least one range');
  const now = ctx.now();
  const headers = ranges.map((r) => {
    const header = readBatchHeader(r.batch);
    if (header.sizeInBytes !== r.batch.length) {
      throw new RangeError(`expected exactly one record batch of ${header.sizeInBytes} bytes, got ${r.batch.length} bytes`);
    }
    if (!Number.isSafeInteger(r.baseOffset + header.lastOffsetDelta) || r.baseOffset < 0) throw new RangeError(`bad base offset ${r.baseOffset}`);
    if (!Number.isInteger(r.epoch) || r.epoch < 0 || r.epoch > 0x7fff_ffff) throw new RangeError(`bad leader epoch ${r.epoch}`);
    return header;
  });
  const objectKey =
    ranges.length === 1
      ? segmentObjectKey(ctx.prefix, topic, ranges[0].partition, ranges[0].baseOffset, newSegmentId(ranges[0].epoch), '.log')
      : sharedProduceObjectKey(ctx.prefix, now);
  // One range: the batch itself is the body (a produce of 1 MiB to one partition copies nothing).
  const body = ranges.length === 1 ? ranges[0].batch : Buffer.allocUnsafe(ranges.reduce((n, r) => n + r.batch.length, 0));
  let position = 0;
  const items = ranges.map((r, i): SegmentItem => {
    const header = headers[i];
    if (body !== r.batch) r.batch.copy(body, position);
    writeInt64(body, r.baseOffset, position + BASE_OFFSET_FIELD);
    body.writeInt32BE(r.epoch, position + PARTITION_LEADER_EPOCH_FIELD);
    const item: SegmentItem = {
      baseOffset: r.baseOffset,
      lastOffset: r.baseOffset + header.lastOffsetDelta,
      count: header.lastOffsetDelta + 1,
      objectKey,
      position,
      size: r.batch.length,
      minTimestamp: r.minTimestamp,
      maxTimestamp: header.maxTimestamp,
      epoch: r.epoch,
      createdAt: now,
    };
    position += r.batch.length;
    return item;
  });
  return { objectKey, body, items };
}
