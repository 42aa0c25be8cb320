// Removes everything a partition stored (used by topic deletion): the STATE item first, so any
// writer still running fails its update on the missing item and nothing new becomes visible; then
// every SEG item; then every object under the partition's folder. Intake objects it shared with
// other partitions go with the maintenance sweep once nothing references them. Keys carry the
// topic id, so a late write of a writer stalled across the deletion can only land in keys no
// re-created topic of the same name ever reads.
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { SluiceContext } from '../context.js';
import { deleteAllSegmentItems } from '../metadata/manifest.js';
import { deletePartitionState } from '../metadata/partition-state.js';
import type { TopicRef } from '../metadata/types.js';
import { deleteObjects } from './cleanup.js';
import { partitionObjectPrefix } from './segment-name.js';

/** One DeleteObjects request's worth. */
const LIST_PAGE = 1000;

export async function deletePartitionData(ctx: SluiceContext, topic: TopicRef, partition: number): Promise<void> {
  await deletePartitionState(ctx, topic, partition);
  await deleteAllSegmentItems(ctx, topic, partition);

  // Each round deletes what it listed, so listing again from the start needs no continuation token.
  const folder = partitionObjectPrefix(ctx.prefix, topic, partition);
  for (;;) {
    const listed = await ctx.s3.send(new ListObjectsV2Command({ Bucket: ctx.bucket, Prefix: folder, MaxKeys: LIST_PAGE }));
    const keys = (listed.Contents ?? []).flatMap((o) => (o.Key ? [o.Key] : []));
    if (keys.length === 0) return;
    await deleteObjects(ctx, keys);
  }
}
