// Partition counts the producer needs to pick partitions itself (Kafka clients keep the same
// metadata cache). Cached per topic for `maxAgeMs`; a produce that meets UNKNOWN_TOPIC_OR_PARTITION
// invalidates the entry so the next send describes the topic again (it may have been recreated
// or grown). Concurrent lookups of one topic share a single describe request.
import type { SluiceApi } from './wire.js';

export class TopicMetadataCache {
  private readonly entries = new Map<string, { count: Promise<number>; at: number }>();

  constructor(
    private readonly api: SluiceApi,
    private readonly maxAgeMs = 300_000,
  ) {}

  partitionCount(topic: string): Promise<number> {
    const cached = this.entries.get(topic);
    if (cached && Date.now() - cached.at < this.maxAgeMs) return cached.count;
    const count = this.api.describeTopic(topic).then((d) => d.partitions.length);
    this.entries.set(topic, { count, at: Date.now() });
    count.catch(() => this.entries.delete(topic));
    return count;
  }

  invalidate(topic: string): void {
    this.entries.delete(topic);
  }
}
