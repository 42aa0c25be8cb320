// Reading segments that hold many batches (as compaction writes them), corrupt bytes, and objects
// that disappear under a reader.
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { listOffsets } from '../../lib/log/list-offsets.js';
import { readRecords } from '../../lib/log/read.js';
import { planSegment, writeSegment } from '../../lib/log/write-segment.js';
import { acquireLease } from '../../lib/metadata/lease.js';
import { stateKey } from '../../lib/metadata/keys.js';
import { putSegmentItem } from '../../lib/metadata/manifest.js';
import { commitAppend } from '../../lib/metadata/partition-state.js';
import { encodeRecordBatch } from '../../lib/records/index.js';
import { createTestContext } from '../support/storage.js';
import { rangeAt } from './read-all.js';
import { observeSdk } from './sdk-faults.js';

/** Writes and commits one segment of `batches` batches of 2 records (~1 KB each) at offset 0. */
async function writeMultiBatchSegment(ctx: SluiceContext, topic: string, batches: number) {
  const state = await acquireLease(ctx, topic, 0, ctx.now() + 1000);
  const encoded = Array.from({ length: batches }, (_, b) =>
    encodeRecordBatch(
      [0, 1].map((i) => ({ timestamp: 1000 * b + i, key: null, value: Buffer.alloc(450, `${b}-${i}|`) })),
      { baseOffset: 2 * b, partitionLeaderEpoch: state.epoch },
    ),
  );
  const plan = planSegment(ctx, { topic, partition: 0, epoch: state.epoch, baseOffset: 0, batches: encoded, minTimestamp: 0 });
  await writeSegment(ctx, topic, 0, plan);
  await commitAppend(ctx, {
    topic,
    partition: 0,
    epoch: state.epoch,
    baseOffset: 0,
    count: 2 * batches,
    bytes: plan.log.length,
    expiresAt: ctx.now() + ctx.leaseMs,
  });
  return plan;
}

describe('reading segments', () => {
  it('starts a read at the .index position nearest below the offset and returns whole batches up to maxBytes', async () => {
    const ctx = await createTestContext();
    const plan = await writeMultiBatchSegment(ctx, 't', 20);
    expect(plan.item.indexKey).toMatch(/\.index$/);
    const sdk = observeSdk(ctx);

    const read = await readRecords(ctx, 't', 0, { offset: 31, maxBytes: 2500 });
    const ranges = sdk.calls.filter((c) => c.command === 'GetObject' && c.input.Range).map((c) => c.input.Range);
    expect(ranges).toHaveLength(1);
    expect(Number(/bytes=(\d+)-/.exec(String(ranges[0]))![1])).toBeGreaterThan(0);
    expect(read.records[0].offset).toBe(31);
    expect(read.records[0].value!.subarray(0, 5).toString()).toBe('15-1|');
    // Whole batches only: the read ends on a batch boundary (an even offset).
    expect(read.nextOffset % 2).toBe(0);
    expect(read.records.map((r) => r.offset)).toEqual(Array.from({ length: read.nextOffset - 31 }, (_, i) => 31 + i));

    // Timestamps are found inside multi-batch segments too.
    expect(await listOffsets(ctx, 't', 0, 7001)).toEqual({ offset: 15, timestamp: 7001 });
  });

  it('walks to the batch holding the offset even when maxBytes is tiny', async () => {
    const ctx = await createTestContext();
    await writeMultiBatchSegment(ctx, 't', 20);
    const read = await readRecords(ctx, 't', 0, { offset: 25, maxBytes: 1 });
    expect(read.records.map((r) => r.offset)).toEqual([25]);
    expect(read.nextOffset).toBe(26);
  });

  it('reports a batch whose bytes do not match its CRC as CORRUPT_MESSAGE', async () => {
    const ctx = await createTestContext();
    await appendToPartitions(ctx, 't', [{ partition: 0, records: [{ timestamp: 0, key: null, value: Buffer.from('hello') }] }]);
    const item = (await rangeAt(ctx, 't', 0, 0))!;
    const got = await ctx.s3.send(new GetObjectCommand({ Bucket: ctx.bucket, Key: item.objectKey }));
    const bytes = Buffer.from(await got.Body!.transformToByteArray());
    bytes[bytes.length - 3] ^= 0xff;
    await ctx.s3.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: item.objectKey, Body: bytes }));
    await expect(readRecords(ctx, 't', 0, { offset: 0, maxBytes: 1000 })).rejects.toMatchObject({ code: 'CORRUPT_MESSAGE' });
  });

  it('refreshes its view and retries when an object vanishes under it (a segment moved by compaction)', async () => {
    const ctx = await createTestContext();
    await appendToPartitions(ctx, 't', [{ partition: 0, records: [{ timestamp: 0, key: null, value: Buffer.from('v') }] }]);
    const item = (await rangeAt(ctx, 't', 0, 0))!;
    const sdk = observeSdk(ctx);
    let moved = false;
    sdk.gate = async (call) => {
      if (call.command !== 'GetObject' || moved) return;
      moved = true;
      // Copy to a new key, move the range from STATE's tail to a SEG item pointing at the copy,
      // delete the old object: what a spill, compaction and the sweep do together.
      const got = await ctx.s3.send(new GetObjectCommand({ Bucket: ctx.bucket, Key: item.objectKey }));
      const newKey = item.objectKey.replace('.log', '-moved.log');
      await ctx.s3.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: newKey, Body: Buffer.from(await got.Body!.transformToByteArray()) }));
      await putSegmentItem(ctx, 't', 0, { ...item, objectKey: newKey });
      await ctx.ddb.send(new UpdateCommand({ TableName: ctx.table, Key: stateKey('t', 0), UpdateExpression: 'REMOVE tail' }));
      await ctx.s3.send(new DeleteObjectCommand({ Bucket: ctx.bucket, Key: item.objectKey }));
    };
    const read = await readRecords(ctx, 't', 0, { offset: 0, maxBytes: 1000 });
    expect(read.records.map((r) => r.value!.toString())).toEqual(['v']);
    expect(moved).toBe(true);
  });
});
