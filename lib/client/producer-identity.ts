// Idempotent producing, client half: a producer id + epoch from `POST /v1/producers`, and the next
// sequence number per topic-partition. A batch takes its sequences once, when first built; every
// retry re-sends the identical body, so the server (which remembers the last batch per producer
// and partition) acknowledges a duplicate with its original offsets instead of appending again.
// After a batch fails for good its sequences are burnt and later batches would leave a gap
// (OUT_OF_ORDER_SEQUENCE_NUMBER), so the identity is reset: a fresh producer id starts at 0 again,
// as Kafka does by bumping the epoch.
import type { SluiceApi } from './wire.js';

export interface ProducerIdAndEpoch {
  readonly producerId: number | string;
  readonly producerEpoch: number;
}

export class ProducerIdentity {
  private id?: Promise<ProducerIdAndEpoch>;
  private readonly nextSequence = new Map<string, number>();

  constructor(private readonly api: SluiceApi) {}

  current(): Promise<ProducerIdAndEpoch> {
    if (!this.id) {
      const id = this.api.initProducer().then((r) => ({ producerId: r.producerId, producerEpoch: r.producerEpoch }));
      id.catch(() => {
        if (this.id === id) this.id = undefined;
      });
      this.id = id;
    }
    return this.id;
  }

  /** Takes `count` sequences for a partition; returns the first. Sequences wrap at 2^31 like Kafka's int32. */
  reserve(topic: string, partition: number, count: number): number {
    const key = `${topic}\u0000${partition}`;
    const base = this.nextSequence.get(key) ?? 0;
    this.nextSequence.set(key, (base + count) % 2 ** 31);
    return base;
  }

  reset(): void {
    this.id = undefined;
    this.nextSequence.clear();
  }
}
