// The producer (kafkajs-shaped: `send({topic, messages})`), in the seed notes' two modes:
//  - sync: `send` resolves with the acknowledgement; retriable failures are retried with backoff
//    (`retry.retries`, default 3) and what still fails goes to `onError` and rejects the send;
//  - async: `send` resolves once the records are buffered (RecordAccumulator); requests go out
//    per linger/batch size, results arrive via `onDelivery` / `onError`, and flush()/disconnect()
//    drain the buffer.
// Idempotent by default, as Kafka's producers are since 3.0: a producer id and per-partition
// sequences make retries exactly-once. `idempotent: false` opts out (retries are then at least once).
import { BatchSender, type PendingRecord, type RecordMetadata, type SendFailure } from './batch-sender.js';
import { SluiceClientError, toClientError } from './errors.js';
import { keyBytes, messageSize, type Message } from './message.js';
import { resolvePartitioner, type PartitionerOption, type ResolvedPartitioner } from './partitioning.js';
import { ProducerIdentity } from './producer-identity.js';
import { RecordAccumulator, type AccumulatorOptions } from './record-accumulator.js';
import type { RetryOptions } from './retry.js';
import type { TopicMetadataCache } from './topic-metadata.js';
import type { SluiceApi, WireFormat } from './wire.js';

export type { RecordMetadata, SendFailure } from './batch-sender.js';

export interface ProducerOptions extends AccumulatorOptions {
  /** @default 'sync' */
  readonly mode?: 'sync' | 'async';
  /** @default 'default' (murmur2 of the key; round-robin without a key) */
  readonly partitioner?: PartitionerOption;
  /** @default { retries: 3, initialRetryTime: 100, maxRetryTime: 10000 } */
  readonly retry?: RetryOptions;
  /**
   * How records travel: Kafka RecordBatches encoded here ('batches', as Kafka clients speak the
   * binary protocol), or the JSON contract ('json', what curl sends). @default 'batches'
   */
  readonly wireFormat?: WireFormat;
  /** Exactly-once per partition across retries (Kafka's enable.idempotence). @default true */
  readonly idempotent?: boolean;
  /** Dead-letter hook: receives the messages of a request that failed after all retries. */
  readonly onError?: (failure: SendFailure) => void | Promise<void>;
  /** Async mode: the acknowledgement of each request. */
  readonly onDelivery?: (metadata: readonly RecordMetadata[]) => void;
}

export interface ProducerRecord {
  readonly topic: string;
  readonly messages: readonly Message[];
}

export class Producer {
  readonly mode: 'sync' | 'async';
  private readonly sender: BatchSender;
  private readonly identity?: ProducerIdentity;
  private readonly partitioner: ResolvedPartitioner;
  private readonly accumulator?: RecordAccumulator;

  constructor(
    api: SluiceApi,
    private readonly metadata: TopicMetadataCache,
    private readonly options: ProducerOptions = {},
  ) {
    this.mode = options.mode ?? 'sync';
    if (options.idempotent ?? true) this.identity = new ProducerIdentity(api);
    this.sender = new BatchSender(api, { retry: options.retry, identity: this.identity, metadata, wireFormat: options.wireFormat });
    this.partitioner = resolvePartitioner(options.partitioner);
    if (this.mode === 'async') this.accumulator = new RecordAccumulator(options, (topic, records) => this.sendBuffered(topic, records));
  }

  /** Idempotent producers obtain their producer id here (otherwise on first send). */
  async connect(): Promise<void> {
    await this.identity?.current();
  }

  /**
   * Sync: resolves with one RecordMetadata per partition written. Async: resolves with [] once the
   * messages are buffered (dropped ones, under 'drop', are reported to onDrop).
   */
  async send(record: ProducerRecord): Promise<RecordMetadata[]> {
    if (record.messages.length === 0) return [];
    const records = await this.assignPartitions(record.topic, record.messages);
    if (this.accumulator) {
      await this.accumulator.append(record.topic, records);
      return [];
    }
    try {
      return await this.sender.send(record.topic, records);
    } catch (e) {
      const error = toClientError(e);
      await this.reportFailure({ topic: record.topic, messages: record.messages, error });
      throw error;
    } finally {
      this.partitioner.batchSent(record.topic);
    }
  }

  /** Several topics at once: one request per topic, sent concurrently. */
  async sendBatch({ topicMessages }: { topicMessages: readonly ProducerRecord[] }): Promise<RecordMetadata[]> {
    const results = await Promise.all(topicMessages.map((r) => this.send(r)));
    return results.flat();
  }

  /** Async: sends everything buffered and waits for it. Sync: nothing is ever buffered. */
  async flush(): Promise<void> {
    await this.accumulator?.flush();
  }

  /** Drains the buffer, then refuses further sends. */
  async disconnect(): Promise<void> {
    await this.accumulator?.close();
  }

  /** Records buffered or in flight (async mode). */
  get buffered(): { records: number; bytes: number } {
    return this.accumulator?.buffered ?? { records: 0, bytes: 0 };
  }

  private async assignPartitions(topic: string, messages: readonly Message[]): Promise<PendingRecord[]> {
    const needsCount = messages.some((m) => m.partition === undefined);
    const partitionCount = needsCount ? await this.metadata.partitionCount(topic) : 0;
    return messages.map((message) => {
      let partition = message.partition;
      if (partition === undefined) {
        partition = this.partitioner.partition({ topic, partitionCount, key: keyBytes(message.key), message });
        if (!Number.isInteger(partition) || partition < 0 || partition >= partitionCount) {
          throw new SluiceClientError('INVALID_PARTITIONS', `partitioner chose partition ${partition} of ${partitionCount} for topic '${topic}'`);
        }
      }
      return { message, partition, size: messageSize(message) };
    });
  }

  private async sendBuffered(topic: string, records: PendingRecord[]): Promise<void> {
    this.partitioner.batchSent(topic);
    try {
      const metadata = await this.sender.send(topic, records);
      this.options.onDelivery?.(metadata);
    } catch (e) {
      await this.reportFailure({ topic, messages: records.map((r) => r.message), error: toClientError(e) });
    }
  }

  private async reportFailure(failure: SendFailure): Promise<void> {
    try {
      await this.options.onError?.(failure);
    } catch {
      // a failing dead-letter handler must not mask the original error
    }
  }
}
