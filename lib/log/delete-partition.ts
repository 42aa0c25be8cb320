// Removes everything a partition stored (used by topic deletion): the STATE item first, so any
// writer still running fails its update on the missing item and nothing new becomes visible; then
// every SEG item; then every object under the partition's folder. Intake objects it shared with
// other partitions go with the maintenance sweep once nothing references them. Keys carry the
// topic id, so a late write of a writer stalled across the deletion can only land in keys no
// re-created topic of the same name ever reads.
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { BatchWriteCommand, DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';
import { segmentKey, stateKey } from '../metadata/keys.js';
import { allSegmentItems } from '../metadata/manifest.js';
import type { TopicRef } from '../metadata/types.js';
import { deleteObjects } from './cleanup.js';
import { partitionObjectPrefix } from './segment-name.js';

const BATCH_WRITE_LIMIT = 25;
/** One DeleteObjects request's worth. */
const LIST_PAGE = 1000;

async function deleteItems(ctx: SluiceContext, keys: { pk: string; sk: string }[]): Promise<void> {
  let pending = keys.map((Key) => ({ DeleteRequest: { Key } }));
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
    const out = await ctx.ddb.send(new BatchWriteCommand({ RequestItems: { [ctx.table]: pending } }));
    pending = (out.UnprocessedItems?.[ctx.table] ?? []) as typeof pending;
    if (attempt > 10 && pending.length > 0) throw new Error(`could not delete ${pending.length} manifest items`);
  }
}

export async function deletePartitionData(ctx: SluiceContext, topic: TopicRef, partition: number): Promise<void> {
  await ctx.ddb.send(new DeleteCommand({ TableName: ctx.table, Key: stateKey(topic, partition) }));

  let keys: { pk: string; sk: string }[] = [];
  for await (const item of allSegmentItems(ctx, topic, partition)) {
    keys.push(segmentKey(topic, partition, item.baseOffset));
    if (keys.length === BATCH_WRITE_LIMIT) {
      await deleteItems(ctx, keys);
      keys = [];
    }
  }
  if (keys.length > 0) await deleteItems(ctx, keys);

  // Each round deletes what it listed, so listing again from the start needs no continuation token.
  const folder = partitionObjectPrefix(ctx.prefix, topic, partition);
  for (;;) {
    const listed = await ctx.s3.send(new ListObjectsV2Command({ Bucket: ctx.bucket, Prefix: folder, MaxKeys: LIST_PAGE }));
    const keys = (listed.Contents ?? []).flatMap((o) => (o.Key ? [o.Key] : []));
    if (keys.length === 0) return;
    await deleteObjects(ctx, keys);
  }
}
