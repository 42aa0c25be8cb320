// Kafka's key placement (BuiltInPartitioner.partitionForKey):
// toPositive(murmur2(keyBytes)) % numPartitions. Adding partitions moves keys, as in Kafka.

import { murmur2, toPositive } from './murmur2.js';
import { checkPartitionCount } from './partitioner.js';

export function partitionForKey(key: Uint8Array, numPartitions: number): number {
  checkPartitionCount(numPartitions);
  return toPositive(murmur2(key)) % numPartitions;
}
