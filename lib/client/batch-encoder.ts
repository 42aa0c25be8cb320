// The producer's half of the record-batches body (lib/records/batch-frames.ts): a send's records become
// one RecordBatch per partition, in order of first appearance, encoded here as a Kafka producer
// encodes them (CreateTime stamped now when the message has no timestamp; producer id, epoch and
// baseSequence in the header when idempotent). A partition's records are cut into several batches
// only when one batch would pass the topic's max.message.bytes, and batches are spread over
// several requests only when a partition has more than one or a body would pass the request limit;
// requests go in order, so each partition's batches reach the log in order.
import { FRAME_PARTITION_BYTES, MAX_BATCH_BODY_BYTES, encodeBatchFrames } from '../records/batch-frames.js';
import { type RecordInput, encodeRecordBatch } from '../records/index.js';
import { type HeaderValue, type Message, headerList } from './message.js';

export interface BatchProducerFields {
  readonly producerId: number;
  readonly producerEpoch: number;
  /** The first sequence of each partition's records in this send (reserved by the caller). */
  readonly baseSequences: ReadonlyMap<number, number>;
}

export interface EncodeOptions {
  readonly maxMessageBytes: number;
  readonly producer?: BatchProducerFields;
  /** CreateTime of messages without a timestamp. */
  readonly now: number;
}

const SEQUENCE_MODULUS = 2 ** 31;

function bytesOf(b: HeaderValue): Buffer | null {
  if (b === null || b === undefined) return null;
  return typeof b === 'string' ? Buffer.from(b, 'utf8') : b;
}

export function toRecordInput(message: Message, now: number): RecordInput {
  return {
    timestamp: message.timestamp === undefined ? now : Number(message.timestamp),
    key: bytesOf(message.key),
    value: bytesOf(message.value),
    headers: headerList(message.headers).map((h) => ({ key: h.key, value: bytesOf(h.value) })),
  };
}

/** Batches of `records` (from sequence `sequence`), halved until each fits `maxBytes` or holds one record. */
function encodeFitting(records: readonly RecordInput[], sequence: number, options: EncodeOptions): Buffer[] {
  const { producer } = options;
  const batch = encodeRecordBatch(records, {
    baseOffset: 0,
    ...(producer && { producerId: producer.producerId, producerEpoch: producer.producerEpoch, baseSequence: sequence }),
  });
  // A single record over the limit goes as it is: the server refuses it with MESSAGE_TOO_LARGE.
  if (batch.length <= options.maxMessageBytes || records.length === 1) return [batch];
  const half = Math.ceil(records.length / 2);
  return [
    ...encodeFitting(records.slice(0, half), sequence, options),
    ...encodeFitting(records.slice(half), (sequence + half) % SEQUENCE_MODULUS, options),
  ];
}

/** Request bodies for one send: usually one, each holding at most one batch per partition. */
export function encodeProduceRequests(records: readonly { readonly message: Message; readonly partition: number }[], options: EncodeOptions): Buffer[] {
  const byPartition = new Map<number, RecordInput[]>();
  for (const r of records) {
    let list = byPartition.get(r.partition);
    if (!list) byPartition.set(r.partition, (list = []));
    list.push(toRecordInput(r.message, options.now));
  }
  const queues = [...byPartition].map(([partition, list]) => ({
    partition,
    batches: encodeFitting(list, options.producer?.baseSequences.get(partition) ?? -1, options),
  }));
  const bodies: Buffer[] = [];
  while (queues.some((q) => q.batches.length > 0)) {
    const frames: { partition: number; batch: Buffer }[] = [];
    let size = 0;
    for (const q of queues) {
      const next = q.batches[0];
      if (next === undefined) continue;
      const frameSize = FRAME_PARTITION_BYTES + next.length;
      if (frames.length > 0 && size + frameSize > MAX_BATCH_BODY_BYTES) continue;
      frames.push({ partition: q.partition, batch: q.batches.shift()! });
      size += frameSize;
    }
    bodies.push(encodeBatchFrames(frames));
  }
  return bodies;
}
