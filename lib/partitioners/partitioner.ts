// The shape every partitioner shares, so the produce path can take any of them.

export interface PartitionerArgs {
  readonly topic: string;
  /** Current partition count of the topic (partitions can be added, never removed). */
  readonly partitionCount: number;
  readonly key: Buffer | null;
}

/** Chooses the partition for one record: an integer in [0, partitionCount). */
export type Partitioner = (args: PartitionerArgs) => number;

export function checkPartitionCount(partitionCount: number): void {
  if (!Number.isInteger(partitionCount) || partitionCount < 1) {
    throw new RangeError(`partitionCount must be a positive integer, got ${partitionCount}`);
  }
}
