// Sends one produce request for one topic (the produce path is per topic: README.md) carrying records
// of any number of partitions, with retries. Requests for a topic go one at a time, in order — the
// equivalent of Kafka's max.in.flight=1 — so a retry can never reorder a partition and idempotent
// sequences reach the server in order. Used by both the sync producer and the async accumulator.
// The records go as Kafka RecordBatches (batch-encoder.ts) by default, or as the JSON contract.
//
// A reply may fail some partitions and not others. An idempotent producer (the default, as Kafka's
// since 3.0) then re-sends the same body: partitions already written answer with their original
// offsets, so nothing is duplicated. Without idempotence a re-send would write the others twice,
// so the request fails naming the partitions. A producer whose entry the server dropped after it
// sat idle (UNKNOWN_PRODUCER_ID) starts again under a fresh producer id, as Kafka's clients do.
import { SluiceClientError, toClientError } from './errors.js';
import { encodeProduceRequests } from './batch-encoder.js';
import { chooseEncoding, toWire, type Message } from './message.js';
import type { ProducerIdentity } from './producer-identity.js';
import { withRetry, type RetryOptions } from './retry.js';
import type { TopicMetadataCache } from './topic-metadata.js';
import type { PartitionOffsetsReply, ProduceRequest, SluiceApi, WireFormat } from './wire.js';

/** A message with its partition chosen and its buffer size estimated. */
export interface PendingRecord {
  readonly message: Message;
  readonly partition: number;
  readonly size: number;
}

/** One per partition written, in order of first appearance (kafkajs' RecordMetadata, numeric offsets). */
export interface RecordMetadata {
  readonly topicName: string;
  readonly partition: number;
  readonly baseOffset: number;
  readonly count: number;
}

/** What finally failed, handed to `onError` (the dead-letter hook). */
export interface SendFailure {
  readonly topic: string;
  readonly messages: readonly Message[];
  readonly error: SluiceClientError;
}

export interface BatchSenderOptions {
  readonly retry?: RetryOptions;
  /** Present when the producer is idempotent. */
  readonly identity?: ProducerIdentity;
  readonly metadata: TopicMetadataCache;
  /** @default 'batches' */
  readonly wireFormat?: WireFormat;
}

export class BatchSender {
  private readonly tails = new Map<string, Promise<unknown>>();

  constructor(
    private readonly api: SluiceApi,
    private readonly options: BatchSenderOptions,
  ) {}

  /** Queues behind earlier requests for the same topic; resolves with the acknowledgement. */
  send(topic: string, records: readonly PendingRecord[]): Promise<RecordMetadata[]> {
    const previous = this.tails.get(topic) ?? Promise.resolve();
    const result = previous.then(() => this.sendNow(topic, records));
    const tail = result.catch(() => undefined);
    this.tails.set(topic, tail);
    void tail.then(() => {
      if (this.tails.get(topic) === tail) this.tails.delete(topic);
    });
    return result;
  }

  private async sendNow(topic: string, records: readonly PendingRecord[]): Promise<RecordMetadata[]> {
    for (let fresh = 0; ; fresh++) {
      try {
        const replies =
          this.options.wireFormat === 'json'
            ? [await this.sendJson(topic, await this.buildRequest(topic, records))]
            : await this.sendBatches(topic, records);
        // checkPartitions let only replies without failed partitions through.
        return replies.flatMap((reply) =>
          reply.offsets.flatMap((o) => ('baseOffset' in o ? [{ topicName: topic, partition: o.partition, baseOffset: o.baseOffset, count: o.count }] : [])),
        );
      } catch (e) {
        const error = toClientError(e);
        if (error.code === 'UNKNOWN_TOPIC_OR_PARTITION') this.options.metadata.invalidate(topic);
        this.options.identity?.reset();
        if (error.code === 'UNKNOWN_PRODUCER_ID' && fresh === 0) continue;
        throw error;
      }
    }
  }

  private sendJson(topic: string, body: ProduceRequest) {
    return withRetry(async () => this.checkPartitions(await this.api.produce(topic, body)), this.options.retry);
  }

  /** Throws for a reply with failed partitions: retriable only when a re-send cannot duplicate (idempotence). */
  private checkPartitions<R extends { readonly offsets: readonly PartitionOffsetsReply[] }>(reply: R): R {
    const failed = reply.offsets.filter((o) => o.error !== undefined);
    if (failed.length === 0) return reply;
    const first = failed[0].error!;
    const idempotent = this.options.identity !== undefined;
    const partitions = failed.map((o) => o.partition).join(', ');
    return fail(
      new SluiceClientError(first.code, `partition${failed.length > 1 ? 's' : ''} ${partitions} failed: ${first.message}`, {
        retriable: idempotent && failed.every((o) => o.error!.retriable),
        details: { failedPartitions: failed.map((o) => ({ partition: o.partition, error: o.error })) },
      }),
    );
  }

  /** Bodies encoded once, sequences included, so every retry re-sends the same bytes; sent in order. */
  private async sendBatches(topic: string, records: readonly PendingRecord[]) {
    const { maxMessageBytes } = await withRetry(() => this.options.metadata.describe(topic), this.options.retry);
    const producer = await this.reserveSequences(topic, records);
    const bodies = encodeProduceRequests(records, { maxMessageBytes, now: Date.now(), producer });
    const replies = [];
    for (const body of bodies) {
      replies.push(await withRetry(async () => this.checkPartitions(await this.api.produceBatches(topic, body)), this.options.retry));
    }
    return replies;
  }

  /** The idempotent producer's id, epoch and each partition's first sequence for these records. */
  private async reserveSequences(topic: string, records: readonly PendingRecord[]) {
    const identity = this.options.identity;
    if (!identity) return undefined;
    const { producerId, producerEpoch } = await withRetry(() => identity.current(), this.options.retry);
    const counts = new Map<number, number>();
    for (const r of records) counts.set(r.partition, (counts.get(r.partition) ?? 0) + 1);
    const baseSequences = new Map<number, number>();
    for (const [partition, count] of counts) baseSequences.set(partition, identity.reserve(topic, partition, count));
    return { producerId: Number(producerId), producerEpoch, baseSequences };
  }

  /** Built once per batch: retries re-send this exact body (same sequences), which is what makes them idempotent. */
  private async buildRequest(topic: string, records: readonly PendingRecord[]): Promise<ProduceRequest> {
    const messages = records.map((r) => r.message);
    const encoding = chooseEncoding(messages);
    const wireRecords = records.map((r) => toWire(r.message, r.partition, encoding));
    const body: { -readonly [K in keyof ProduceRequest]: ProduceRequest[K] } = { records: wireRecords };
    if (encoding === 'base64') body.encoding = 'base64';
    const producer = await this.reserveSequences(topic, records);
    if (producer) {
      body.producerId = producer.producerId;
      body.producerEpoch = producer.producerEpoch;
      body.sequences = [...producer.baseSequences].map(([partition, baseSequence]) => ({ partition, baseSequence }));
    }
    return body;
  }
}

function fail(error: Error): never {
  throw error;
}
