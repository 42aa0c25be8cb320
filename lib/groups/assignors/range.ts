// Kafka's RangeAssignor, exactly: topic by topic, the members subscribed to the topic (sorted by
// memberId) get consecutive ranges of partitions. With n partitions and c members, each gets
// floor(n / c) and the first n % c members one extra. Because the extra always goes to the first
// members, several topics can pile up on them (Kafka's RangeAssignor example: two topics of 3 partitions over two
// consumers give C0 four partitions and C1 two).
import { addPartition, canonicalAssignment, compareStrings, sortedMembers, type Assignor, type GroupAssignment } from './types.js';

export const rangeAssign: Assignor = (members, partitionsPerTopic) => {
  const sorted = sortedMembers(members);
  const assignment: GroupAssignment = Object.fromEntries(sorted.map((m) => [m.memberId, {}]));
  const topics = Object.keys(partitionsPerTopic).sort(compareStrings);
  for (const topic of topics) {
    const consumers = sorted.filter((m) => m.topics.has(topic));
    if (consumers.length === 0) continue;
    const partitions = partitionsPerTopic[topic];
    const perConsumer = Math.floor(partitions / consumers.length);
    const withExtra = partitions % consumers.length;
    consumers.forEach((consumer, i) => {
      const start = perConsumer * i + Math.min(i, withExtra);
      const length = perConsumer + (i < withExtra ? 1 : 0);
      for (let p = start; p < start + length; p++) addPartition(assignment[consumer.memberId], topic, p);
    });
  }
  return canonicalAssignment(assignment);
};
