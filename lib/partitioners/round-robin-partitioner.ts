// Kafka's RoundRobinPartitioner: every record, keyed or not, goes to the next partition of its
// topic in turn (a per-topic counter), spreading load evenly at the cost of key locality.

import { toPositive } from './murmur2.js';
import { type Partitioner, type PartitionerArgs, checkPartitionCount } from './partitioner.js';

export class RoundRobinPartitioner {
  private readonly counters = new Map<string, number>();

  /** A Partitioner bound to this instance's counters. */
  readonly partition: Partitioner = ({ topic, partitionCount }: PartitionerArgs): number => {
    checkPartitionCount(partitionCount);
    const next = this.counters.get(topic) ?? 0;
    // Wraps like Java's int counter; toPositive keeps the modulo non-negative after the wrap.
    this.counters.set(topic, (next + 1) | 0);
    return toPositive(next) % partitionCount;
  };
}
