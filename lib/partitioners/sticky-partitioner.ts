// Kafka's sticky partitioning (KIP-480), as in the 2.4+ DefaultPartitioner: a keyed record goes
// by key hash; keyless records all go to one "sticky" partition per topic until the batch for
// it completes (newBatch), then stick to a different, randomly chosen partition. Filling one
// batch at a time makes fewer, larger batches: here, fewer S3 objects per produce.

import { partitionForKey } from './default-partitioner.js';
import { type Partitioner, type PartitionerArgs, checkPartitionCount } from './partitioner.js';

interface StickyChoice {
  /** Where keyless records of the topic go; undefined until the next keyless record chooses. */
  partition: number | undefined;
  /** The partition whose batch just completed: the next choice avoids it. */
  previous: number | undefined;
}

export class StickyPartitioner {
  private readonly choices = new Map<string, StickyChoice>();

  /** @param random uniform in [0, 1); injectable so tests are deterministic */
  constructor(private readonly random: () => number = Math.random) {}

  /** A Partitioner bound to this instance's sticky choices. */
  readonly partition: Partitioner = ({ topic, partitionCount, key }: PartitionerArgs): number => {
    if (key !== null) return partitionForKey(key, partitionCount);
    checkPartitionCount(partitionCount);
    let choice = this.choices.get(topic);
    if (choice === undefined) {
      choice = { partition: undefined, previous: undefined };
      this.choices.set(topic, choice);
    }
    if (choice.partition === undefined || choice.partition >= partitionCount) {
      choice.partition = this.pick(partitionCount, choice.previous ?? choice.partition);
    }
    return choice.partition;
  };

  /**
   * The batch for `topic` completed: the next keyless record sticks to another partition.
   * With `previousPartition`, only switches if that is still the sticky one (Kafka's
   * onNewBatch), so a late completion of an older batch does not move a fresh choice.
   */
  newBatch(topic: string, previousPartition?: number): void {
    const choice = this.choices.get(topic);
    if (choice === undefined || choice.partition === undefined) return;
    if (previousPartition !== undefined && previousPartition !== choice.partition) return;
    choice.previous = choice.partition;
    choice.partition = undefined;
  }

  private pick(partitionCount: number, avoid: number | undefined): number {
    if (avoid === undefined || avoid >= partitionCount || partitionCount === 1) {
      return Math.floor(this.random() * partitionCount) % partitionCount;
    }
    // Uniform over the other partitions, without Kafka's retry loop on a repeated pick.
    const offset = 1 + (Math.floor(this.random() * (partitionCount - 1)) % (partitionCount - 1));
    return (avoid + offset) % partitionCount;
  }
}
