// The sweep: intake objects (shared by the partitions of a request) are deleted only when older
// than the grace period and referenced by no STATE tail and no SEG item of any partition of any
// topic; segment objects no item references go after the grace period too; folders of deleted
// topics are removed, and deleting a topic removes its folder.
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { appendToPartitions } from '../../lib/log/append.js';
import { deleteTopic } from '../../lib/log/delete-topic.js';
import { intakeFolder, segmentObjectKey, topicObjectPrefix } from '../../lib/log/segment-name.js';
import { partitionPk } from '../../lib/metadata/keys.js';
import { createTopic, deleteTopicItem } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';
import { type ClockedContext, bucketKeys, expectConsistentPartition, referencedObjectKeys, runOnce, withClock } from './maintenance-support.js';

/** Runs a grace period apart: one marks what is unreferenced, a later one deletes it. */
async function settle(ctx: ClockedContext, runs = 3) {
  for (let i = 0; i < runs; i++) {
    ctx.advance(61_000 + ctx.graceMs);
    const report = await runOnce(ctx);
    expect(report.errors).toEqual([]);
  }
}

describe('sweep', () => {
  it('keeps intake objects while any partition of any topic references them, deletes them once merged away', async () => {
    const ctx = withClock(await createTestContext());
    const a = await createTopic(ctx, 'a', 2);
    const b = await createTopic(ctx, 'b', 1);
    const expected = [new Map<number, string>(), new Map<number, string>()];
    for (let i = 0; i < 3; i++) {
      for (const res of await appendToPartitions(ctx, a, [0, 1].map((p) => ({ partition: p, records: [{ timestamp: ctx.now(), key: null, value: Buffer.from(`a${p}.${i}`) }] })))) {
        if ('error' in res) throw res.error;
        expected[res.partition].set(res.baseOffset, `a${res.partition}.${i}`);
      }
    }
    await appendToPartitions(ctx, b, [{ partition: 0, records: [{ timestamp: ctx.now(), key: null, value: Buffer.from('b') }] }]);
    const intake = await bucketKeys(ctx, intakeFolder(ctx.prefix));
    expect(intake).toHaveLength(4);

    // Old but referenced by STATE tails: kept, however many runs pass, until merged away.
    ctx.advance(ctx.graceMs * 3);
    const report = await runOnce(ctx);
    expect(report.sweep.deletedObjects).toBe(0);
    expect(await bucketKeys(ctx, intakeFolder(ctx.prefix))).toEqual(intake);

    // Spilled, merged, then unreferenced for a grace period (tasks run concurrently: a sweep may
    // look before a merge of the same run finished).
    await settle(ctx, 4);
    const left = await bucketKeys(ctx, intakeFolder(ctx.prefix));
    const referenced = new Set([...(await referencedObjectKeys(ctx, a, 2)), ...(await referencedObjectKeys(ctx, b, 1))]);
    for (const key of intake) expect(left.includes(key)).toBe(referenced.has(key));
    expect(left).toEqual([]);
    for (const p of [0, 1]) await expectConsistentPartition(ctx, a, expected[p], { partition: p });
  });

  it('deletes an intake object of a crashed request (never committed) after the grace period, and no other', async () => {
    const ctx = withClock(await createTestContext());
    const t = await createTopic(ctx, 't', 1);
    const expected = new Map<number, string>();
    const [res] = await appendToPartitions(ctx, t, [{ partition: 0, records: [{ timestamp: ctx.now(), key: null, value: Buffer.from('kept') }] }]);
    if ('error' in res) throw res.error;
    expected.set(res.baseOffset, 'kept');
    const orphan = `${intakeFolder(ctx.prefix)}${new Date(ctx.now()).toISOString().slice(0, 13)}/${ctx.now()}-00000000deadbeef.log`;
    await ctx.s3.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: orphan, Body: Buffer.from('x') }));
    const segmentOrphan = segmentObjectKey(ctx.prefix, t, 0, 0, '9-00000000deadbeef', '.log');
    await ctx.s3.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: segmentOrphan, Body: Buffer.from('x') }));

    // Young: kept.
    expect((await runOnce(ctx)).sweep.deletedObjects).toBe(0);
    expect(await bucketKeys(ctx)).toEqual(expect.arrayContaining([orphan, segmentOrphan]));
    // Marked unreferenced a grace period ago: deleted.
    ctx.advance(ctx.graceMs + 100);
    await runOnce(ctx);
    ctx.advance(ctx.graceMs + 100);
    await runOnce(ctx);
    const keys = await bucketKeys(ctx);
    expect(keys).not.toContain(orphan);
    expect(keys).not.toContain(segmentOrphan);
    for (const key of await referencedObjectKeys(ctx, t)) expect(keys).toContain(key);
    await expectConsistentPartition(ctx, t, expected);
  });

  it('finishes a topic deletion that crashed after the topic item was deleted', async () => {
    const ctx = withClock(await createTestContext());
    const t = await createTopic(ctx, 'gone', 2);
    const keep = await createTopic(ctx, 'kept', 1);
    for (let i = 0; i < 3; i++) {
      await appendToPartitions(ctx, t, [0, 1].map((p) => ({ partition: p, records: [{ timestamp: ctx.now(), key: null, value: Buffer.from(`g${i}`) }] })));
      await appendToPartitions(ctx, keep, [{ partition: 0, records: [{ timestamp: ctx.now(), key: null, value: Buffer.from(`k${i}`) }] }]);
    }
    await settle(ctx, 2);
    expect((await bucketKeys(ctx, topicObjectPrefix(ctx.prefix, t))).length).toBeGreaterThan(0);

    // The deletion crashed right after the topic item went: items and objects remain.
    await deleteTopicItem(ctx, 'gone');
    await settle(ctx, 2);
    expect(await bucketKeys(ctx, topicObjectPrefix(ctx.prefix, t))).toEqual([]);
    for (const p of [0, 1]) {
      const items = await ctx.ddb.send(
        new QueryCommand({ TableName: ctx.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': partitionPk(t, p) } }),
      );
      expect(items.Items).toEqual([]);
    }
    expect(await bucketKeys(ctx, intakeFolder(ctx.prefix))).toEqual([]);
    await expectConsistentPartition(ctx, keep, new Map([0, 1, 2].map((i) => [i, `k${i}`])));
    expect((await bucketKeys(ctx, topicObjectPrefix(ctx.prefix, keep))).length).toBeGreaterThan(0);
  });

  it('deleting a topic deletes its folder and items; its intake objects go once unreferenced', async () => {
    const ctx = withClock(await createTestContext());
    const t = await createTopic(ctx, 'del', 2);
    for (let i = 0; i < 3; i++) {
      await appendToPartitions(ctx, t, [0, 1].map((p) => ({ partition: p, records: [{ timestamp: ctx.now(), key: null, value: Buffer.from(`d${i}`) }] })));
    }
    await settle(ctx, 1);
    await deleteTopic(ctx, 'del');
    expect(await bucketKeys(ctx, topicObjectPrefix(ctx.prefix, t))).toEqual([]);
    await settle(ctx, 2);
    expect(await bucketKeys(ctx)).toEqual([]);
  });
});
