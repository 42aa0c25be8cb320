// What a new assignment means for a member, by protocol:
//  - eager (range, roundrobin): everything owned is revoked before rejoining and everything in
//    the new assignment is assigned afresh — consumption stops group-wide during the rebalance;
//  - cooperative (sticky): only partitions that moved away are revoked and only new ones are
//    assigned; partitions kept keep being consumed throughout (KIP-429).
import { minus, type TopicPartition } from './topic-partitions.js';
import type { Assignor } from './wire.js';

export interface RebalancePlan {
  readonly revoked: TopicPartition[];
  readonly assigned: TopicPartition[];
}

function isCooperative(assignor: Assignor): boolean {
  return assignor === 'sticky';
}

export function planRebalance(owned: readonly TopicPartition[], next: readonly TopicPartition[], assignor: Assignor): RebalancePlan {
  if (!isCooperative(assignor)) return { revoked: [...owned], assigned: [...next] };
  return { revoked: minus(owned, next), assigned: minus(next, owned) };
}
