// Reading: fetch stamps each batch read from an intake object (stored with base offset 0 and
// whatever leader epoch the producer sent) with its base offset and the partition leader epoch,
// both outside the CRC, for raw (readBatches) and decoded (readRecords) fetches; merged segments
// holding many batches are read from their .index position for maxBytes; corrupt bytes are
// CORRUPT_MESSAGE; an object vanishing under a reader (spilled, merged, deleted meanwhile) makes it
// refresh its view and read the new one.
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { PARTITION_LEADER_EPOCH } from '../../lib/log/batch-stamp.js';
import { listOffsets } from '../../lib/log/list-offsets.js';
import { putObject } from '../../lib/log/object-store.js';
import { OffsetIndexBuilder } from '../../lib/log/offset-index.js';
import { readBatches, readRecords } from '../../lib/log/read.js';
import { newSegmentId, segmentObjectKey } from '../../lib/log/segment-name.js';
import { spillTail } from '../../lib/log/spill.js';
import { stateKey } from '../../lib/metadata/keys.js';
import { getSegmentItem, replaceSegmentItem } from '../../lib/metadata/manifest.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { createTopic } from '../../lib/metadata/topics.js';
import type { MergedSegmentItem, TopicRef } from '../../lib/metadata/types.js';
import { crc32c, decodeRecordBatch, encodeRecordBatch, readBatchHeader } from '../../lib/records/index.js';
import { putMergedItem } from '../support/manifest-items.js';
import { createTestContext } from '../support/storage.js';
import { startProcess } from '../proof/processes.js';
import { rangeAt } from './read-all.js';
import { observeSdk } from './sdk-faults.js';

/** Byte offset where a RecordBatch's CRC-32C coverage starts (attributes) and where the CRC sits. */
const CRC_FIELD = 17;
const CRC_START = 21;

async function getObject(ctx: SluiceContext, key: string): Promise<Buffer> {
  const got = await ctx.s3.send(new GetObjectCommand({ Bucket: ctx.bucket, Key: key }));
  return Buffer.from(await got.Body!.transformToByteArray());
}

/**
 * A merged segment of `batches` batches of 2 records (~1 KB each) at offset 0, as a partition
 * leader's merge lays it out: .log with offsets and PARTITION_LEADER_EPOCH stamped, sparse .index,
 * one SEG item (manifest.ts) and STATE's tailBase/logEndOffset past it.
 */
async function writeMergedSegment(ctx: SluiceContext, topic: TopicRef, batches: number) {
  const encoded = Array.from({ length: batches }, (_, b) =>
    encodeRecordBatch(
      [0, 1].map((i) => ({ timestamp: 1000 * b + i, key: null, value: Buffer.alloc(450, `${b}-${i}|`) })),
      { baseOffset: 2 * b, partitionLeaderEpoch: PARTITION_LEADER_EPOCH },
    ),
  );
  const index = new OffsetIndexBuilder(0, 4096);
  encoded.forEach((batch, b) => index.append(2 * b + 1, batch.length));
  const log = Buffer.concat(encoded);
  const id = newSegmentId(1);
  const logKey = segmentObjectKey(ctx.prefix, topic, 0, 0, id, '.log');
  const indexKey = segmentObjectKey(ctx.prefix, topic, 0, 0, id, '.index');
  await Promise.all([putObject(ctx, logKey, log), putObject(ctx, indexKey, index.toBuffer())]);
  const count = 2 * batches;
  const item: MergedSegmentItem = {
    baseOffset: 0,
    lastOffset: count - 1,
    count,
    objectKey: logKey,
    position: 0,
    size: log.length,
    indexKey,
    minTimestamp: 0,
    maxTimestamp: 1000 * (batches - 1) + 1,
    createdAt: ctx.now(),
    epoch: 1,
    mergedCount: batches,
  };
  await putMergedItem(ctx, topic, 0, item);
  await ctx.ddb.send(
    new UpdateCommand({
      TableName: ctx.table,
      Key: stateKey(topic, 0),
      UpdateExpression: 'SET logEndOffset = :n, tailBase = :n, #bytes = :b',
      ConditionExpression: 'attribute_exists(pk) AND logEndOffset = :zero',
      ExpressionAttributeNames: { '#bytes': 'bytes' },
      ExpressionAttributeValues: { ':n': count, ':b': log.length, ':zero': 0 },
    }),
  );
  return { item, index: index.toBuffer() };
}

describe('fetch stamps offsets', () => {
  it('an intake batch stored with base offset 0 is returned with its base offset and the partition leader epoch, CRC intact (readBatches)', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    await appendToPartitions(ctx, t, [{ partition: 0, records: [0, 1, 2].map((i) => ({ timestamp: i, key: null, value: Buffer.from(`a${i}`) })) }]);
    // A client-encoded batch, as Kafka's wire protocol brings it: base offset 0, its own leader epoch.
    const clientBatch = encodeRecordBatch([0, 1].map((i) => ({ timestamp: 10 + i, key: Buffer.from('k'), value: Buffer.from(`b${i}`) })), {
      baseOffset: 0,
      partitionLeaderEpoch: 77,
      producerId: 9,
      producerEpoch: 2,
      baseSequence: 5,
    });
    await appendToPartitions(ctx, t, [{ partition: 0, batch: { bytes: clientBatch, count: 2, minTimestamp: 10 } }]);
    const stored = await getObject(ctx, (await rangeAt(ctx, t, 0, 3))!.objectKey);
    expect(stored).toEqual(clientBatch); // stored byte for byte, base offset 0

    const read = await readBatches(ctx, t, 0, { offset: 0, maxBytes: 1 << 20 });
    expect(read.batches.map((b) => [readBatchHeader(b).baseOffset, readBatchHeader(b).partitionLeaderEpoch])).toEqual([
      [0, PARTITION_LEADER_EPOCH],
      [3, PARTITION_LEADER_EPOCH],
    ]);
    const [, second] = read.batches;
    // Only the two fields outside the CRC changed: the CRC still verifies, the rest is the client's bytes.
    expect(second.readUInt32BE(CRC_FIELD)).toBe(crc32c(second.subarray(CRC_START)));
    expect(second.subarray(CRC_FIELD)).toEqual(clientBatch.subarray(CRC_FIELD));
    expect(decodeRecordBatch(second).records.map((r) => [r.offset, r.value!.toString()])).toEqual([
      [3, 'b0'],
      [4, 'b1'],
    ]);
    expect(readBatchHeader(second)).toMatchObject({ producerId: 9, producerEpoch: 2, baseSequence: 5 });
    // Stamping happens on the copy read, never on the stored object.
    expect(await getObject(ctx, (await rangeAt(ctx, t, 0, 3))!.objectKey)).toEqual(clientBatch);
  });

  it('readRecords gives every record its offset, from the tail and from SEG items, mid-batch too', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    for (let i = 0; i < 10; i++) {
      await appendToPartitions(ctx, t, [{ partition: 0, records: [0, 1].map((j) => ({ timestamp: j, key: null, value: Buffer.from(`${i}.${j}`) })) }]);
    }
    expect((await getPartitionState(ctx, t, 0)).tailBase).toBeGreaterThan(0);
    for (const offset of [0, 5, 17, 19]) {
      const read = await readRecords(ctx, t, 0, { offset, maxBytes: 1 });
      // The batch holding the offset, from the offset on (earlier records of the batch dropped).
      const expected = [[offset, `${Math.floor(offset / 2)}.${offset % 2}`]];
      if (offset % 2 === 0) expected.push([offset + 1, `${offset / 2}.1`]);
      expect(read.records.map((r) => [r.offset, r.value!.toString()])).toEqual(expected);
      const raw = await readBatches(ctx, t, 0, { offset, maxBytes: 1 });
      expect(readBatchHeader(raw.batches[0])).toMatchObject({ baseOffset: offset - (offset % 2), partitionLeaderEpoch: PARTITION_LEADER_EPOCH });
    }
  });

  it('the same offset returns the same bytes from an intake range and from a merged segment', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    await appendToPartitions(ctx, t, [{ partition: 0, records: [{ timestamp: 5, key: null, value: Buffer.from('x') }] }]);
    const fromIntake = (await readBatches(ctx, t, 0, { offset: 0, maxBytes: 1000 })).batches[0];
    // What a merge writes for it: the stamped batch in a segment of its own.
    const other = await createTopic(ctx, 'merged', 1);
    const segment = Buffer.from(fromIntake);
    const key = segmentObjectKey(ctx.prefix, other, 0, 0, newSegmentId(1), '.log');
    await putObject(ctx, key, segment);
    await putMergedItem(ctx, other, 0, { baseOffset: 0, lastOffset: 0, count: 1, objectKey: key, position: 0, size: segment.length, minTimestamp: 5, maxTimestamp: 5, createdAt: 1, epoch: 1 });
    await ctx.ddb.send(new UpdateCommand({ TableName: ctx.table, Key: stateKey(other, 0), UpdateExpression: 'SET logEndOffset = :n, tailBase = :n', ExpressionAttributeValues: { ':n': 1 } }));
    expect((await readBatches(ctx, other, 0, { offset: 0, maxBytes: 1000 })).batches[0]).toEqual(fromIntake);
  });
});

describe('reading merged segments', () => {
  it('starts a read at the .index position nearest below the offset and returns whole batches up to maxBytes', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    await writeMergedSegment(ctx, t, 20);
    const sdk = observeSdk(ctx);
    const read = await readRecords(ctx, t, 0, { offset: 31, maxBytes: 2500 });
    const ranges = sdk.calls.filter((c) => c.command === 'GetObject' && c.input.Range).map((c) => String(c.input.Range));
    expect(ranges).toHaveLength(1);
    expect(Number(/bytes=(\d+)-/.exec(ranges[0])![1])).toBeGreaterThan(0);
    expect(read.records[0].offset).toBe(31);
    expect(read.records[0].value!.subarray(0, 5).toString()).toBe('15-1|');
    // Whole batches only: the read ends on a batch boundary (an even offset).
    expect(read.nextFetchOffset % 2).toBe(0);
    expect(read.records.map((r) => r.offset)).toEqual(Array.from({ length: read.nextFetchOffset - 31 }, (_, i) => 31 + i));
    // Timestamps are found inside multi-batch segments too.
    expect(await listOffsets(ctx, t, 0, 7001)).toEqual({ offset: 15, timestamp: 7001 });
  });

  it('walks to the batch holding the offset even when maxBytes is tiny', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    await writeMergedSegment(ctx, t, 20);
    const read = await readRecords(ctx, t, 0, { offset: 25, maxBytes: 1 });
    expect(read.records.map((r) => r.offset)).toEqual([25]);
    expect(read.nextFetchOffset).toBe(26);
  });
});

describe('damaged or moving data', () => {
  it('reports a batch whose bytes do not match its CRC as CORRUPT_MESSAGE', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    await appendToPartitions(ctx, t, [{ partition: 0, records: [{ timestamp: 0, key: null, value: Buffer.from('hello') }] }]);
    const range = (await rangeAt(ctx, t, 0, 0))!;
    const bytes = await getObject(ctx, range.objectKey);
    bytes[bytes.length - 3] ^= 0xff;
    await ctx.s3.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: range.objectKey, Body: bytes }));
    await expect(readRecords(ctx, t, 0, { offset: 0, maxBytes: 1000 })).rejects.toMatchObject({ code: 'CORRUPT_MESSAGE' });
  });

  it('refreshes its view and retries when the object vanishes under it (spilled, merged and swept meanwhile)', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    await appendToPartitions(ctx, t, [{ partition: 0, records: [{ timestamp: 0, key: null, value: Buffer.from('v') }] }]);
    const range = (await rangeAt(ctx, t, 0, 0))!;
    const sdk = observeSdk(ctx);
    const mover = startProcess(ctx);
    let moved = false;
    sdk.gate = async (call) => {
      if (call.command !== 'GetObject' || moved) return;
      moved = true;
      // While the reader holds STATE's view: the tail is spilled, the item merged into a new
      // segment object, the intake object deleted.
      expect(await spillTail(mover, t, await getPartitionState(mover, t, 0))).toBe(true);
      const spilled = (await getSegmentItem(mover, t, 0, 0))!;
      const copy = segmentObjectKey(mover.prefix, t, 0, 0, newSegmentId(1), '.log');
      await putObject(mover, copy, (await getObject(mover, range.objectKey)).subarray(range.position, range.position + range.size));
      const { entries: _entries, ...merged } = spilled;
      expect(await replaceSegmentItem(mover, t, 0, { ...merged, objectKey: copy, position: 0, createdAt: mover.now(), epoch: 1 }, spilled)).toBe(true);
      await mover.s3.send(new DeleteObjectCommand({ Bucket: mover.bucket, Key: range.objectKey }));
    };
    const read = await readRecords(ctx, t, 0, { offset: 0, maxBytes: 1000 });
    expect(read.records.map((r) => [r.offset, r.value!.toString()])).toEqual([[0, 'v']]);
    expect(moved).toBe(true);
    expect(sdk.calls.filter((c) => c.command === 'GetItem')).toHaveLength(2); // the view was refreshed once
  });
});
