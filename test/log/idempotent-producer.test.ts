import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { PRODUCER_ID_EXPIRATION_MS } from '../../lib/log/append-commit.js';
import { appendToPartitions, type PartitionAppend } from '../../lib/log/append.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { allocateProducerId } from '../../lib/metadata/producer-ids.js';
import { readBatchHeader } from '../../lib/records/index.js';
import { createTestContext } from '../support/storage.js';
import { isCommit, observeSdk, timeoutError } from './sdk-faults.js';
import { readAll } from './read-all.js';

const records = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ timestamp: i, key: null, value: Buffer.from(`${tag}${i}`) }));

describe('idempotent producer', () => {
  it('allocates distinct producer ids, starting at epoch 0', async () => {
    const ctx = await createTestContext();
    const ids = await Promise.all(Array.from({ length: 5 }, () => allocateProducerId(ctx)));
    expect(new Set(ids.map((i) => i.producerId)).size).toBe(5);
    expect(ids.every((i) => i.producerEpoch === 0 && i.producerId > 0)).toBe(true);
  });

  it('acknowledges a retried batch with its original offsets and writes nothing', async () => {
    const ctx = await createTestContext();
    const { producerId, producerEpoch } = await allocateProducerId(ctx);
    const sdk = observeSdk(ctx);
    const first: PartitionAppend = { partition: 0, records: records('a', 2), producer: { producerId, producerEpoch, baseSequence: 0 } };
    expect(await appendToPartitions(ctx, 't', [first])).toEqual([{ partition: 0, baseOffset: 0, count: 2 }]);
    await appendToPartitions(ctx, 't', [{ partition: 0, records: records('plain', 1) }]);

    sdk.calls.length = 0;
    expect(await appendToPartitions(ctx, 't', [first])).toEqual([{ partition: 0, baseOffset: 0, count: 2, duplicate: true }]);
    expect(sdk.calls).toEqual([]);

    const next = await appendToPartitions(ctx, 't', [
      { partition: 0, records: records('b', 1), producer: { producerId, producerEpoch, baseSequence: 2 } },
    ]);
    expect(next).toEqual([{ partition: 0, baseOffset: 3, count: 1 }]);
    const read = await readAll(ctx, 't', 0);
    expect(read.records.map((r) => r.value!.toString())).toEqual(['a0', 'a1', 'plain0', 'b0']);
    expect((await getPartitionState(ctx, 't', 0)).producers?.[String(producerId)]).toMatchObject({
      producerEpoch,
      baseSequence: 2,
      lastSequence: 2,
      baseOffset: 3,
      count: 1,
    });
  });

  it('rejects sequence gaps, a new producer not starting at 0, and fenced producer epochs, changing nothing', async () => {
    const ctx = await createTestContext();
    const { producerId } = await allocateProducerId(ctx);
    const append = (producerEpoch: number, baseSequence: number, n = 1) =>
      appendToPartitions(ctx, 't', [{ partition: 0, records: records('x', n), producer: { producerId, producerEpoch, baseSequence } }]);

    expect(await append(0, 3)).toMatchObject([{ error: { code: 'OUT_OF_ORDER_SEQUENCE_NUMBER', retriable: false } }]);
    expect(await append(0, 0, 2)).toEqual([{ partition: 0, baseOffset: 0, count: 2 }]);
    expect(await append(0, 5)).toMatchObject([{ error: { code: 'OUT_OF_ORDER_SEQUENCE_NUMBER' } }]);
    expect(await append(0, 1)).toMatchObject([{ error: { code: 'OUT_OF_ORDER_SEQUENCE_NUMBER' } }]);
    expect(await append(1, 4)).toMatchObject([{ error: { code: 'OUT_OF_ORDER_SEQUENCE_NUMBER' } }]);
    expect(await append(1, 0)).toEqual([{ partition: 0, baseOffset: 2, count: 1 }]);
    expect(await append(0, 2)).toMatchObject([{ error: { code: 'INVALID_PRODUCER_EPOCH' } }]);
    expect((await getPartitionState(ctx, 't', 0)).nextOffset).toBe(3);
  });

  it('a retry after a lost commit reply (unresolved) gets the original offsets, not a second copy', async () => {
    const ctx = await createTestContext();
    const { producerId, producerEpoch } = await allocateProducerId(ctx);
    const sdk = observeSdk(ctx);
    const batch: PartitionAppend = { partition: 0, records: records('a', 3), producer: { producerId, producerEpoch, baseSequence: 0 } };
    let armed = true;
    sdk.fault = (call) => {
      if (!armed) return undefined;
      if (isCommit(call)) return { when: 'after', error: timeoutError() };
      if (call.command === 'GetItem') {
        armed = false;
        return { when: 'before', error: timeoutError() };
      }
      return undefined;
    };
    const [failed] = await appendToPartitions(ctx, 't', [batch]);
    expect(failed).toMatchObject({ error: { code: 'REQUEST_TIMED_OUT', retriable: true } });

    expect(await appendToPartitions(ctx, 't', [batch])).toEqual([{ partition: 0, baseOffset: 0, count: 3, duplicate: true }]);
    const read = await readAll(ctx, 't', 0);
    expect(read.records.map((r) => r.value!.toString())).toEqual(['a0', 'a1', 'a2']);
  });

  it('drops a producer entry silent for producer.id.expiration.ms, keeping STATE small', async () => {
    const base = await createTestContext();
    const clock = { now: 1_000_000_000 };
    const ctx = { ...base, now: () => clock.now };
    const p1 = await allocateProducerId(ctx);
    const p2 = await allocateProducerId(ctx);
    const append = (p: { producerId: number }, baseSequence: number) =>
      appendToPartitions(ctx, 't', [{ partition: 0, records: records('x', 1), producer: { ...p, producerEpoch: 0, baseSequence } }]);
    await append(p1, 0);
    clock.now += PRODUCER_ID_EXPIRATION_MS - 1;
    await append(p2, 0);
    expect(Object.keys((await getPartitionState(ctx, 't', 0)).producers!).sort()).toEqual([String(p1.producerId), String(p2.producerId)].sort());
    clock.now += 2;
    await append(p2, 1);
    expect(Object.keys((await getPartitionState(ctx, 't', 0)).producers!)).toEqual([String(p2.producerId)]);
  });

  it('keeps the batch header fields Kafka consumers check: producer id, epoch, base sequence and leader epoch', async () => {
    const ctx = await createTestContext();
    const { producerId } = await allocateProducerId(ctx);
    await appendToPartitions(ctx, 't', [{ partition: 0, records: records('a', 1), producer: { producerId, producerEpoch: 0, baseSequence: 0 } }]);
    const listed = await ctx.s3.send(new ListObjectsV2Command({ Bucket: ctx.bucket, Prefix: 't/0/' }));
    const got = await ctx.s3.send(new GetObjectCommand({ Bucket: ctx.bucket, Key: listed.Contents![0].Key! }));
    const header = readBatchHeader(Buffer.from(await got.Body!.transformToByteArray()));
    expect(header).toMatchObject({ baseOffset: 0, producerId, producerEpoch: 0, baseSequence: 0, partitionLeaderEpoch: 1 });
  });
});
