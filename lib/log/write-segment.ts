// Step 1 of the append protocol: in parallel, PUT the segment's `.log` object (and its `.index`
// object, when the index has entries) and put its manifest item SEG#<base> conditionally. Nothing
// written here is visible until the commit (step 2) moves nextOffset past the base.
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { SluiceContext } from '../context.js';
import { putSegmentItem } from '../metadata/manifest.js';
import type { SegmentItem } from '../metadata/types.js';
import { readBatchHeader } from '../records/index.js';
import { OffsetIndexBuilder } from './offset-index.js';
import { newSegmentId, segmentObjectKey } from './segment-name.js';

export interface SegmentWrite {
  readonly topic: string;
  readonly partition: number;
  readonly epoch: number;
  readonly baseOffset: number;
  /** Consecutive RecordBatches with dense offsets from baseOffset, already stamped. */
  readonly batches: readonly Buffer[];
  readonly minTimestamp: number;
  readonly indexIntervalBytes?: number;
}

/** Lays out the segment and its manifest item without writing anything. */
export function planSegment(ctx: SluiceContext, write: SegmentWrite): { item: SegmentItem; log: Buffer; index?: Buffer } {
  const segmentId = newSegmentId(write.epoch);
  const index = new OffsetIndexBuilder(write.baseOffset, write.indexIntervalBytes);
  let lastOffset = write.baseOffset - 1;
  let maxTimestamp = -1;
  for (const batch of write.batches) {
    const header = readBatchHeader(batch);
    index.append(header.lastOffset, header.sizeInBytes);
    lastOffset = header.lastOffset;
    maxTimestamp = Math.max(maxTimestamp, header.maxTimestamp);
  }
  const log = Buffer.concat(write.batches as Buffer[]);
  const key = (suffix: '.log' | '.index') =>
    segmentObjectKey(ctx.prefix, write.topic, write.partition, write.baseOffset, segmentId, suffix);
  const item: SegmentItem = {
    baseOffset: write.baseOffset,
    lastOffset,
    count: lastOffset - write.baseOffset + 1,
    objectKey: key('.log'),
    position: 0,
    size: log.length,
    indexKey: index.entryCount > 0 ? key('.index') : undefined,
    minTimestamp: write.minTimestamp,
    maxTimestamp,
    epoch: write.epoch,
    createdAt: ctx.now(),
  };
  return { item, log, index: index.entryCount > 0 ? index.toBuffer() : undefined };
}

/** One PUT of an immutable object (segment, index or produce object). */
export async function putObject(ctx: SluiceContext, key: string, body: Buffer): Promise<void> {
  await ctx.s3.send(
    new PutObjectCommand({
      Bucket: ctx.bucket,
      Key: key,
      Body: body,
      ContentLength: body.length,
      ContentType: 'application/octet-stream',
    }),
  );
}

/**
 * Writes the planned segment. Rejects with ConditionalCheckFailedException (from the manifest
 * put) when a newer leader epoch owns the item at this base; any other failure leaves the log
 * unchanged for readers.
 */
export async function writeSegment(
  ctx: SluiceContext,
  topic: string,
  partition: number,
  plan: { item: SegmentItem; log: Buffer; index?: Buffer },
): Promise<void> {
  const writes: Promise<void>[] = [putObject(ctx, plan.item.objectKey, plan.log), putSegmentItem(ctx, topic, partition, plan.item)];
  if (plan.index && plan.item.indexKey) writes.push(putObject(ctx, plan.item.indexKey, plan.index));
  // allSettled: report the manifest's condition failure in preference to an object error, and
  // never leave a request running after we return.
  const results = await Promise.allSettled(writes);
  const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as unknown);
  if (failures.length === 0) return;
  throw failures.find((e) => (e as { name?: string }).name === 'ConditionalCheckFailedException') ?? failures[0];
}
