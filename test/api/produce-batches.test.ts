// lib/api/produce-batches.ts: produce with client-encoded RecordBatches. Frames as bytes or base64,
// producer fields read from the batch headers and checked across frames, sizes and partitions
// checked before any write.
import { describe, expect, it } from 'vitest';
import { produceBatches } from '../../lib/api/produce-batches.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { encodeBatchFrames } from '../../lib/records/batch-frames.js';
import { encodeRecordBatch } from '../../lib/records/index.js';
import { createTestContext } from '../support/storage.js';

const batch = (n: number, producer: { producerId?: number; producerEpoch?: number; baseSequence?: number } = {}, size = 1) =>
  encodeRecordBatch(Array.from({ length: n }, (_, i) => ({ timestamp: 100 + i, key: null, value: Buffer.alloc(size, 97 + i) })), { baseOffset: 0, ...producer });

describe('produceBatches', () => {
  it('one batch per partition; offsets in frame order; base64 (direct invoke) and bytes (HTTP) alike', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 2);
    const body = encodeBatchFrames([{ partition: 1, batch: batch(3) }, { partition: 0, batch: batch(2) }]);
    expect(await produceBatches(ctx, { topic: 't', batches: body })).toEqual({ offsets: [{ partition: 1, baseOffset: 0, count: 3 }, { partition: 0, baseOffset: 0, count: 2 }] });
    expect(await produceBatches(ctx, { topic: 't', batches: body.toString('base64') })).toEqual({ offsets: [{ partition: 1, baseOffset: 3, count: 3 }, { partition: 0, baseOffset: 2, count: 2 }] });
    expect((await getPartitionState(ctx, topic, 1)).logEndOffset).toBe(6);
  });

  it('refused before any write: a partition twice, mixed producers, an idempotent batch without a sequence, too large, missing partition', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 2, { 'max.message.bytes': 500 });
    const frames = (list: { partition: number; batch: Buffer }[]) => ({ topic: 't', batches: encodeBatchFrames(list) });
    await expect(produceBatches(ctx, frames([{ partition: 0, batch: batch(1) }, { partition: 0, batch: batch(1) }]))).rejects.toThrow(/appears twice/);
    await expect(
      produceBatches(ctx, frames([{ partition: 0, batch: batch(1, { producerId: 1, producerEpoch: 0, baseSequence: 0 }) }, { partition: 1, batch: batch(1, { producerId: 2, producerEpoch: 0, baseSequence: 0 }) }])),
    ).rejects.toThrow(/one request has one producer/);
    // (producerId -1 with any epoch and sequence is a plain batch, as Kafka has it; an idempotent batch needs a sequence.)
    await expect(produceBatches(ctx, frames([{ partition: 0, batch: batch(1, { producerId: 5, producerEpoch: 0, baseSequence: -1 }) }]))).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(produceBatches(ctx, frames([{ partition: 0, batch: batch(1, {}, 1000) }]))).rejects.toMatchObject({ code: 'MESSAGE_TOO_LARGE', details: { frame: 0 } });
    await expect(produceBatches(ctx, frames([{ partition: 2, batch: batch(1) }]))).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
    await expect(produceBatches(ctx, { topic: 't', batches: 'not base64!' })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(produceBatches(ctx, frames([{ partition: 0, batch: batch(1, { producerId: 999, producerEpoch: 0, baseSequence: 0 }) }]))).rejects.toMatchObject({ code: 'UNKNOWN_PRODUCER_ID' });
    for (const p of [0, 1]) expect((await getPartitionState(ctx, topic, p)).logEndOffset).toBe(0);
  });
});
