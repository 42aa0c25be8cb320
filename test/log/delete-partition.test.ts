import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { appendToPartitions } from '../../lib/log/append.js';
import { deletePartitionData } from '../../lib/log/delete-partition.js';
import { partitionObjectPrefix, segmentObjectKey } from '../../lib/log/segment-name.js';
import { partitionPk } from '../../lib/metadata/keys.js';
import { readPartitionState } from '../../lib/metadata/partition-state.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';
import { runOnce, withClock } from './maintenance-support.js';
import { readAll } from './read-all.js';

const one = (v: string) => [{ timestamp: Date.now(), key: null, value: Buffer.from(v) }];

describe('deletePartitionData', () => {
  it('removes STATE, every manifest item and every object of the partition, and leaves its neighbours alone', async () => {
    const ctx = withClock(await createTestContext());
    const t = await createTopic(ctx, 't', 11);
    for (let i = 0; i < 3; i++) await appendToPartitions(ctx, t, [{ partition: 1, records: one(`a${i}`) }, { partition: 10, records: one(`b${i}`) }]);
    // Merged segments in the partitions' folders.
    for (let i = 0; i < 2; i++) {
      ctx.advance(61_000 + ctx.graceMs);
      await runOnce(ctx);
    }
    expect((await ctx.s3.send(new ListObjectsV2Command({ Bucket: ctx.bucket, Prefix: partitionObjectPrefix(ctx.prefix, t, 1) }))).Contents?.length).toBeGreaterThan(0);
    // An orphan from a crashed merge: an object no manifest item references.
    await ctx.s3.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: segmentObjectKey(ctx.prefix, t, 1, 3, '9-00000000deadbeef', '.log'), Body: Buffer.from('x') }));

    await deletePartitionData(ctx, t, 1);

    expect(await readPartitionState(ctx, t, 1)).toBeUndefined();
    const items = await ctx.ddb.send(
      new QueryCommand({ TableName: ctx.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': partitionPk(t, 1) } }),
    );
    expect(items.Items).toEqual([]);
    const objects = await ctx.s3.send(new ListObjectsV2Command({ Bucket: ctx.bucket, Prefix: partitionObjectPrefix(ctx.prefix, t, 1) }));
    expect(objects.Contents ?? []).toEqual([]);
    const neighbour = await readAll(ctx, t, 10);
    expect(neighbour.records.map((r) => r.value!.toString())).toEqual(['b0', 'b1', 'b2']);
  });

  it('a topic re-created under the same name shares no item or object with its predecessor', async () => {
    const ctx = await createTestContext();
    const old = await createTopic(ctx, 'again', 1);
    await appendToPartitions(ctx, old, [{ partition: 0, records: one('old') }]);
    await deletePartitionData(ctx, old, 0);
    const { deleteTopicItem } = await import('../../lib/metadata/topics.js');
    await deleteTopicItem(ctx, 'again');
    const fresh = await createTopic(ctx, 'again', 1);
    expect(fresh.id).not.toBe(old.id);
    expect(await appendToPartitions(ctx, fresh, [{ partition: 0, records: one('new') }])).toEqual([{ partition: 0, baseOffset: 0, count: 1 }]);
    expect((await readAll(ctx, fresh, 0)).records.map((r) => r.value!.toString())).toEqual(['new']);
  });
});
