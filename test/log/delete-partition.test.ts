import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { appendToPartitions } from '../../lib/log/append.js';
import { deletePartitionData } from '../../lib/log/delete-partition.js';
import { partitionPk } from '../../lib/metadata/keys.js';
import { putSegmentItem } from '../../lib/metadata/manifest.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { createTestContext } from '../support/storage.js';
import { readAll } from './read-all.js';

const one = (v: string) => [{ timestamp: 0, key: null, value: Buffer.from(v) }];

describe('deletePartitionData', () => {
  it('removes STATE, every manifest item and every object of the partition, and leaves its neighbours alone', async () => {
    const ctx = await createTestContext();
    for (let i = 0; i < 3; i++) await appendToPartitions(ctx, 't', [{ partition: 1, records: one(`a${i}`) }, { partition: 10, records: one(`b${i}`) }]);
    // An orphan from a crashed writer: an object no manifest item references.
    await ctx.s3.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: 't/1/00000000000000000003-9-dead.log', Body: Buffer.from('x') }));

    await deletePartitionData(ctx, 't', 1);

    expect((await getPartitionState(ctx, 't', 1)).nextOffset).toBe(0);
    const items = await ctx.ddb.send(
      new QueryCommand({ TableName: ctx.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': partitionPk('t', 1) } }),
    );
    expect(items.Items).toEqual([]);
    const objects = await ctx.s3.send(new ListObjectsV2Command({ Bucket: ctx.bucket, Prefix: 't/1/' }));
    expect(objects.Contents ?? []).toEqual([]);
    const neighbour = await readAll(ctx, 't', 10);
    expect(neighbour.records.map((r) => r.value!.toString())).toEqual(['b0', 'b1', 'b2']);
  });

  it('lets a recreated partition start again at offset 0, replacing a leftover item of the old incarnation’s higher epoch', async () => {
    const ctx = await createTestContext();
    await appendToPartitions(ctx, 't', [{ partition: 0, records: one('old') }]);
    await deletePartitionData(ctx, 't', 0);
    // A fenced writer of the deleted incarnation (epoch 7) left SEG#0 behind after the delete.
    await putSegmentItem(ctx, 't', 0, {
      baseOffset: 0,
      lastOffset: 4,
      count: 5,
      objectKey: 't/0/00000000000000000000-7-gone.log',
      position: 0,
      size: 500,
      minTimestamp: 0,
      maxTimestamp: 0,
      epoch: 7,
      createdAt: 0,
    });
    expect(await appendToPartitions(ctx, 't', [{ partition: 0, records: one('new') }])).toEqual([{ partition: 0, baseOffset: 0, count: 1 }]);
    const read = await readAll(ctx, 't', 0);
    expect(read.records.map((r) => r.value!.toString())).toEqual(['new']);
  });
});
