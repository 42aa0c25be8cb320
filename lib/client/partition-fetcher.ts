// One assigned partition's fetch loop: long-poll the next records (`maxWaitMs`), hand them to the
// consumer's handler in offset order, advance the position, repeat. One loop per partition (the
// fetch path is per partition: README.md) means a slow or revoked partition never holds up the
// others — during a cooperative rebalance the partitions a member keeps go on being consumed
// while the moved ones stop. stop() cancels the long poll and waits for the handler in progress,
// so after it resolves the position is final and safe to commit. Records come as RecordBatches
// decoded here (the default, as Kafka consumers fetch) or as the JSON contract's records.
import { type ConsumedMessage, decodeFetched, decodeFetchedBatches } from './consumed-message.js';
import { toClientError, type SluiceClientError } from './errors.js';
import { backoffDelay, sleep } from './retry.js';
import type { TopicPartition } from './topic-partitions.js';
import type { SluiceApi, WireFormat } from './wire.js';

/** One fetch's answer, decoded: the records at or after the offset asked for. */
export interface FetchedMessages {
  readonly messages: readonly ConsumedMessage[];
  readonly nextOffset: number;
  readonly highWatermark: number;
}

export interface FetcherHost {
  readonly api: SluiceApi;
  readonly wireFormat: WireFormat;
  readonly maxWaitMs: number;
  readonly maxBytes: number;
  /** Most bytes one fetched batch may decompress to (ConsumerOptions.maxDecompressedBatchBytes). */
  readonly maxDecompressedBatchBytes: number;
  /** Next offset to fetch; resolves the start offset (committed, or auto reset) when unknown. */
  position(tp: TopicPartition): Promise<number>;
  /** Position moved by seek() since `version` was read. */
  seekVersion(tp: TopicPartition): number;
  isPaused(tp: TopicPartition): boolean;
  waitForResume(tp: TopicPartition, signal: AbortSignal): Promise<void>;
  /** OFFSET_OUT_OF_RANGE: apply the reset policy. */
  resetOffset(tp: TopicPartition, error: SluiceClientError): Promise<void>;
  /** Runs the user's handler; `isStale()` turns true on stop, pause or seek, and the handler stops early. */
  process(tp: TopicPartition, fetched: FetchedMessages, isStale: () => boolean): Promise<void>;
  onError(tp: TopicPartition, error: SluiceClientError): void;
}

export class PartitionFetcher {
  private readonly abort = new AbortController();
  private loop?: Promise<void>;

  constructor(
    private readonly host: FetcherHost,
    readonly tp: TopicPartition,
  ) {}

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  private async fetch(offset: number): Promise<FetchedMessages> {
    const { api, maxWaitMs, maxBytes } = this.host;
    const { topic, partition } = this.tp;
    const signal = this.abort.signal;
    if (this.host.wireFormat === 'json') {
      const reply = await api.fetch(topic, partition, { offset, maxWaitMs, maxBytes, encoding: 'base64', signal });
      return { messages: reply.records.map(decodeFetched), nextOffset: reply.nextOffset, highWatermark: reply.highWatermark };
    }
    const reply = await api.fetchBatches(topic, partition, { offset, maxWaitMs, maxBytes, signal });
    const messages = decodeFetchedBatches(reply.batches, offset, { maxDecompressedBytes: this.host.maxDecompressedBatchBytes });
    return { messages, nextOffset: reply.nextOffset, highWatermark: reply.highWatermark };
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      try {
        if (this.host.isPaused(this.tp)) {
          await this.host.waitForResume(this.tp, this.abort.signal);
          continue;
        }
        const version = this.host.seekVersion(this.tp);
        const offset = await this.host.position(this.tp);
        const reply = await this.fetch(offset);
        failures = 0;
        const isStale = () => this.stopped || this.host.isPaused(this.tp) || this.host.seekVersion(this.tp) !== version;
        if (!isStale()) await this.host.process(this.tp, reply, isStale);
      } catch (e) {
        if (this.stopped) break;
        let error = toClientError(e);
        if (error.code === 'OFFSET_OUT_OF_RANGE') {
          // Apply the reset policy and fetch again at once — but only the first time in a row: a
          // position that keeps falling out of range (retention racing us) backs off like any error.
          try {
            await this.host.resetOffset(this.tp, error);
            if (failures++ === 0) continue;
          } catch (resetError) {
            if (this.stopped) break;
            error = toClientError(resetError); // the reset failed: reported and backed off below
          }
        }
        this.host.onError(this.tp, error);
        const delay = Math.max(backoffDelay(Math.min(failures++, 6), { initialRetryTime: 200, maxRetryTime: 5000 }), error.retryAfterMs ?? 0);
        // stop() must not wait out a backoff
        await Promise.race([sleep(delay), new Promise((resolve) => this.abort.signal.addEventListener('abort', resolve, { once: true }))]);
      }
    }
  }
}
