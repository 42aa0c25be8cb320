// Kafka's RoundRobinAssignor, exactly: all subscribed topic-partitions sorted (topic name, then
// partition) are dealt one by one to the members sorted by memberId, in a circle; a member not
// subscribed to the partition's topic is skipped (the circle moves on past it). With identical
// subscriptions the result is balanced within one; with mixed subscriptions it can be uneven
// (Kafka's own example: C0 [t0p0], C1 [t1p0], C2 [t1p1, t2p0, t2p1, t2p2]).
import { addPartition, canonicalAssignment, compareStrings, sortedMembers, type Assignor, type GroupAssignment } from './types.js';

export const roundRobinAssign: Assignor = (members, partitionsPerTopic) => {
  const sorted = sortedMembers(members);
  const assignment: GroupAssignment = Object.fromEntries(sorted.map((m) => [m.memberId, {}]));
  const subscribed = new Set(sorted.flatMap((m) => [...m.topics]));
  const topics = Object.keys(partitionsPerTopic).filter((t) => subscribed.has(t)).sort(compareStrings);
  let cursor = 0;
  for (const topic of topics) {
    for (let partition = 0; partition < partitionsPerTopic[topic]; partition++) {
      // Some member subscribes to `topic` (it is in `subscribed`), so this loop ends.
      while (!sorted[cursor % sorted.length].topics.has(topic)) cursor++;
      addPartition(assignment[sorted[cursor % sorted.length].memberId], topic, partition);
      cursor++;
    }
  }
  return canonicalAssignment(assignment);
};
