// Partitioners: which partition a record goes to, as Kafka's producer decides it.

export { partitionForKey } from './default-partitioner.js';
export { murmur2, toPositive } from './murmur2.js';
export type { Partitioner, PartitionerArgs } from './partitioner.js';
export { RoundRobinPartitioner } from './round-robin-partitioner.js';
export { StickyPartitioner } from './sticky-partitioner.js';
