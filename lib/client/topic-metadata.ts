// What the producer needs to know about a topic (Kafka clients keep the same metadata cache): the
// partition count, to pick partitions itself, and max.message.bytes, the largest RecordBatch the
// topic takes. Cached per topic for `maxAgeMs`; a produce that meets UNKNOWN_TOPIC_OR_PARTITION
// invalidates the entry so the next send describes the topic again (it may have been recreated
// or grown). Concurrent lookups of one topic share a single describe request.
import type { SluiceApi } from './wire.js';

export interface TopicMetadata {
  readonly partitions: number;
  readonly maxMessageBytes: number;
}

/** Kafka's default max.message.bytes, for a topic described without it. */
const DEFAULT_MAX_MESSAGE_BYTES = 1_048_588;

export class TopicMetadataCache {
  private readonly entries = new Map<string, { metadata: Promise<TopicMetadata>; at: number }>();

  constructor(
    private readonly api: SluiceApi,
    private readonly maxAgeMs = 300_000,
    /** The cache's clock (ms), injectable so a test moves time without real waits. */
    private readonly now: () => number = Date.now,
  ) {}

  describe(topic: string): Promise<TopicMetadata> {
    const cached = this.entries.get(topic);
    if (cached && this.now() - cached.at < this.maxAgeMs) return cached.metadata;
    const metadata = this.api.describeTopic(topic).then((d) => ({
      partitions: d.partitions.length,
      maxMessageBytes: Number(d.config['max.message.bytes'] ?? DEFAULT_MAX_MESSAGE_BYTES),
    }));
    this.entries.set(topic, { metadata, at: this.now() });
    metadata.catch(() => this.entries.delete(topic));
    return metadata;
  }

  async partitionCount(topic: string): Promise<number> {
    return (await this.describe(topic)).partitions;
  }

  invalidate(topic: string): void {
    this.entries.delete(topic);
  }
}
