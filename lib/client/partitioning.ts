// The producer's choice of partitioner, resolved to one function. Partitions are picked on the
// client (Kafka does the same) so one request can carry explicit partitions — required for
// idempotent sequences — and so a keyed record lands where a Java or kafkajs producer would put it
// (lib/partitioners/ implements Kafka's murmur2 byte for byte; the server uses the same code).
//  - 'default': keyed → murmur2(key) % n; keyless → round-robin (the classic DefaultPartitioner)
//  - 'sticky':  keyed → murmur2; keyless → one partition per batch, switching when it is sent (KIP-480)
//  - 'round-robin': every record to the next partition, keys ignored (RoundRobinPartitioner)
//  - a function: anything else, given the message too
import { RoundRobinPartitioner, StickyPartitioner, partitionForKey, type PartitionerArgs } from '../partitioners/index.js';
import type { Message } from './message.js';

export type CustomPartitioner = (args: PartitionerArgs & { readonly message: Message }) => number;

export type PartitionerOption = 'default' | 'sticky' | 'round-robin' | CustomPartitioner;

export interface ResolvedPartitioner {
  readonly partition: CustomPartitioner;
  /** A batch for `topic` was sent: lets the sticky partitioner move on. */
  readonly batchSent: (topic: string) => void;
}

export function resolvePartitioner(option: PartitionerOption = 'default'): ResolvedPartitioner {
  if (typeof option === 'function') return { partition: option, batchSent: () => {} };
  switch (option) {
    case 'default': {
      const keyless = new RoundRobinPartitioner();
      return {
        partition: (args) => (args.key !== null ? partitionForKey(args.key, args.partitionCount) : keyless.partition(args)),
        batchSent: () => {},
      };
    }
    case 'sticky': {
      const sticky = new StickyPartitioner();
      return { partition: (args) => sticky.partition(args), batchSent: (topic) => sticky.newBatch(topic) };
    }
    case 'round-robin': {
      const roundRobin = new RoundRobinPartitioner();
      return { partition: (args) => roundRobin.partition(args), batchSent: () => {} };
    }
    default:
      throw new RangeError(`unknown partitioner '${String(option)}'`);
  }
}
