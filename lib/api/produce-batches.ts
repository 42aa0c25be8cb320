// Produce with a record-batches body (lib/records/batch-frames.ts): the client encoded one
// RecordBatch per partition, as a Kafka producer does; whichever process answers checks each batch
// (batch-body.ts) and stores its bytes. Input: `{topic, batches}` with `batches` the frames as bytes
// (HTTP) or base64 (direct invoke). The whole request is checked before any write — frames and
// batches, partitions, producer fields, sizes — and the answer is `{offsets}` only: record i of a
// batch is at baseOffset + i.
import * as z from 'zod';
import type { SluiceContext } from '../context.js';
import type { PartitionAppend } from '../log/append.js';
import { getTopicCached, validateTopicName } from '../metadata/topics.js';
import { MAX_BATCH_BODY_BYTES } from '../records/batch-frames.js';
import { type BatchFrame, readBatchFrames } from './batch-body.js';
import { decodeBytes } from './encoding.js';
import { SluiceError } from '../errors.js';
import { MAX_RECORDS_PER_REQUEST, type PartitionOffsets, appendAndAnswer } from './produce-append.js';
import { parseInput, topicName } from './validation.js';

const produceBatchesSchema = z.strictObject({
  topic: topicName,
  batches: z.union([z.instanceof(Buffer), z.string()]),
});

type Producer = PartitionAppend['producer'];

const INT16_MAX = 0x7fff;

/**
 * The producer fields of the request, from its batch headers. Kafka's rules as the JSON body's
 * `producerId`/`producerEpoch`/`sequences` have them: producerId -1 means not idempotent, and a
 * Kafka broker then ignores the batch's epoch and sequence (kafkajs sends epoch 0 and sequence 0
 * there); otherwise every batch carries the same id and epoch, each its own baseSequence.
 */
function producerOf(frames: readonly BatchFrame[]): ((frame: BatchFrame) => Producer) {
  const first = frames[0].header;
  frames.forEach((f, i) => {
    const h = f.header;
    if (h.producerId !== first.producerId || (h.producerId !== -1 && h.producerEpoch !== first.producerEpoch)) {
      throw new SluiceError(
        'INVALID_REQUEST',
        `frame ${i}: producerId ${h.producerId} epoch ${h.producerEpoch} differs from frame 0's producerId ${first.producerId} epoch ${first.producerEpoch}; one request has one producer`,
        { frame: i },
      );
    }
    if (h.producerId === -1) return;
    if (h.producerId < 0 || h.producerEpoch < 0 || h.producerEpoch > INT16_MAX || h.baseSequence < 0) {
      throw new SluiceError(
        'INVALID_REQUEST',
        `frame ${i}: idempotent batch needs producerId >= 0, producerEpoch 0..${INT16_MAX} and baseSequence >= 0 (got ${h.producerId}, ${h.producerEpoch}, ${h.baseSequence})`,
        { frame: i },
      );
    }
  });
  if (first.producerId === -1) return () => undefined;
  return (f) => ({ producerId: first.producerId, producerEpoch: first.producerEpoch, baseSequence: f.header.baseSequence });
}

export async function produceBatches(ctx: SluiceContext, raw: Record<string, unknown>): Promise<{ offsets: PartitionOffsets[] }> {
  const input = parseInput(produceBatchesSchema, raw);
  validateTopicName(input.topic);
  const body = typeof input.batches === 'string' ? decodeBytes(input.batches, 'base64', 'batches')! : input.batches;
  if (body.length > MAX_BATCH_BODY_BYTES) {
    throw new SluiceError('MESSAGE_TOO_LARGE', `record batches of ${body.length} bytes; the limit is ${MAX_BATCH_BODY_BYTES}`, {
      size: body.length,
      limit: MAX_BATCH_BODY_BYTES,
    });
  }
  const frames = readBatchFrames(body);

  const seen = new Set<number>();
  let records = 0;
  let maxPartition = 0;
  frames.forEach((f, i) => {
    if (seen.has(f.partition)) {
      throw new SluiceError('INVALID_REQUEST', `frame ${i}: partition ${f.partition} appears twice; send one batch per partition`, { frame: i });
    }
    seen.add(f.partition);
    records += f.header.recordCount;
    if (f.partition > maxPartition) maxPartition = f.partition;
  });
  if (records > MAX_RECORDS_PER_REQUEST) {
    throw new SluiceError('INVALID_REQUEST', `${records} records in one request; at most ${MAX_RECORDS_PER_REQUEST}`);
  }
  const producer = producerOf(frames);

  // Refused with UNKNOWN_TOPIC_OR_PARTITION when the highest partition does not exist.
  const topic = await getTopicCached(ctx, input.topic, maxPartition);
  const limit = topic.config['max.message.bytes'];
  frames.forEach((f, i) => {
    if (f.size > limit) {
      throw new SluiceError(
        'MESSAGE_TOO_LARGE',
        `frame ${i}: the batch for partition ${f.partition} is ${f.size} bytes (decompressed), over the topic's max.message.bytes of ${limit}`,
        { frame: i, size: f.size, maxMessageBytes: limit },
      );
    }
  });

  const appends: PartitionAppend[] = frames.map((f) => ({
    partition: f.partition,
    batch: { bytes: f.bytes, count: f.header.recordCount, minTimestamp: f.minTimestamp },
    producer: producer(f),
  }));
  const { offsets } = await appendAndAnswer(ctx, topic, appends);
  return { offsets };
}
