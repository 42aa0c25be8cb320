// Kafka's StickyAssignor goals, in order: (1) balance — with identical subscriptions every member
// ends within one partition of every other; with mixed subscriptions no single partition can be
// moved to a member subscribed to its topic that has two or more fewer partitions; (2) stickiness —
// subject to (1), as few partitions as possible change owner from the previous assignment.
//
// Algorithm: keep every partition with its previous owner while that owner is still a member,
// still subscribed and the partition still exists; deal the remaining partitions (sorted) each to
// the least-loaded subscribed member (ties by memberId); then, while some member has at least two
// more partitions than a member subscribed to one of them, move one across — preferring a
// partition the giver did not own before (so nothing previously owned moves needlessly) and, among
// those, the highest. Every move lowers the sum of squared loads, so the loop ends. When a member
// leaves, survivors are within one of each other and only gain partitions, so none loses any.
// Cooperative (two-phase) handover is the coordinator's job (rebalance.ts), not the assignor's.
import {
  canonicalAssignment,
  compareStrings,
  sortedMembers,
  type Assignor,
  type GroupAssignment,
  type TopicPartition,
} from './types.js';

const key = (topic: string, partition: number) => `${topic}\u0000${partition}`;

export const stickyAssign: Assignor = (members, partitionsPerTopic, previous = {}) => {
  const sorted = sortedMembers(members);
  const subscribedBy = new Map(sorted.map((m) => [m.memberId, m.topics]));
  const exists = (topic: string, partition: number) => partition < (partitionsPerTopic[topic] ?? 0);

  // Each member's owned partitions, and the owner of each partition.
  const owned = new Map<string, TopicPartition[]>(sorted.map((m) => [m.memberId, []]));
  const owner = new Map<string, string>();
  const previouslyOwned = new Set<string>(); // memberId + partition keys kept from `previous`
  for (const m of sorted) {
    for (const [topic, partitions] of Object.entries(previous[m.memberId] ?? {})) {
      if (!m.topics.has(topic)) continue;
      for (const partition of partitions) {
        const k = key(topic, partition);
        if (!exists(topic, partition) || owner.has(k)) continue;
        owner.set(k, m.memberId);
        owned.get(m.memberId)!.push({ topic, partition });
        previouslyOwned.add(`${m.memberId}\u0000${k}`);
      }
    }
  }

  // Deal unowned partitions to the least-loaded subscriber.
  const topics = Object.keys(partitionsPerTopic).sort(compareStrings);
  for (const topic of topics) {
    const subscribers = sorted.filter((m) => m.topics.has(topic));
    if (subscribers.length === 0) continue;
    for (let partition = 0; partition < partitionsPerTopic[topic]; partition++) {
      if (owner.has(key(topic, partition))) continue;
      let best = subscribers[0];
      for (const s of subscribers) if (owned.get(s.memberId)!.length < owned.get(best.memberId)!.length) best = s;
      owner.set(key(topic, partition), best.memberId);
      owned.get(best.memberId)!.push({ topic, partition });
    }
  }

  // Balance: move from the most loaded to a member with at least two fewer that can take it.
  for (;;) {
    const byLoad = [...sorted].sort(
      (a, b) => owned.get(b.memberId)!.length - owned.get(a.memberId)!.length || compareStrings(a.memberId, b.memberId),
    );
    let moved = false;
    search: for (const giver of byLoad) {
      const giverLoad = owned.get(giver.memberId)!.length;
      for (const taker of [...byLoad].reverse()) {
        if (owned.get(taker.memberId)!.length > giverLoad - 2) break;
        const candidates = owned
          .get(giver.memberId)!
          .filter((tp) => subscribedBy.get(taker.memberId)!.has(tp.topic))
          .sort(
            (a, b) =>
              Number(previouslyOwned.has(`${giver.memberId}\u0000${key(a.topic, a.partition)}`)) -
                Number(previouslyOwned.has(`${giver.memberId}\u0000${key(b.topic, b.partition)}`)) ||
              compareStrings(b.topic, a.topic) ||
              b.partition - a.partition,
          );
        if (candidates.length === 0) continue;
        const tp = candidates[0];
        const list = owned.get(giver.memberId)!;
        list.splice(list.indexOf(tp), 1);
        owned.get(taker.memberId)!.push(tp);
        owner.set(key(tp.topic, tp.partition), taker.memberId);
        moved = true;
        break search;
      }
    }
    if (!moved) break;
  }

  const assignment: GroupAssignment = {};
  for (const m of sorted) {
    const member: Record<string, number[]> = {};
    for (const tp of owned.get(m.memberId)!) (member[tp.topic] ??= []).push(tp.partition);
    assignment[m.memberId] = member;
  }
  return canonicalAssignment(assignment);
};
