// Turning a changed member set into the next generation's assignment, with a two-phase handover
// that applies to every assignor (for `sticky` it is Kafka's cooperative incremental rebalancing):
//
//   A partition whose target owner (from the assignor) differs from its current live owner is, in
//   the new generation, taken from the current owner and given to NOBODY: it becomes a pending
//   revocation `{from, since}`. The previous owner acknowledges by heartbeating with generation
//   `since` or later — proof that it received an assignment without the partition and stopped
//   consuming it (a join response alone proves nothing: it may have been lost). Only then does a
//   follow-up generation give the partition to its new owner. A partition whose previous owner
//   left or expired is handed over at once.
//
// So every member keeps consuming the partitions it keeps, and no partition is ever held by two
// live members: at any time a partition is in at most one live member's latest assignment.
// Eager Kafka clients get the same guarantee from the stop-the-world barrier; here no barrier is
// needed because the coordinator never hands out a partition before its owner let go of it.
//
// A new generation starts when membership or subscriptions change (the caller says so) or when the
// resulting assignment differs from the current one (handover, new partitions).
import { ASSIGNORS } from './assignors/assignors.js';
import { canonicalAssignment, compareTopicPartitions, type AssignorMember, type GroupAssignment, type PartitionsPerTopic } from './assignors/types.js';
import type { GroupState, PendingRevocation } from './group-state.js';

export interface RebalanceOptions {
  /** Members joined, left, expired or changed subscriptions since `state.generation` was written. */
  readonly membershipChanged: boolean;
  /** Fresh partition counts (joins read them); defaults to the counts the group last used. */
  readonly partitionsPerTopic?: PartitionsPerTopic;
}

const tpKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

export function rebalance(state: GroupState, options: RebalanceOptions): GroupState {
  const partitionsPerTopic = options.partitionsPerTopic ?? state.partitionsPerTopic;
  const ids = Object.keys(state.members).sort();

  // Current owners: live members only (a departed member's partitions are free).
  const current: GroupAssignment = {};
  const owner = new Map<string, string>();
  for (const id of ids) {
    current[id] = state.assignment[id] ?? {};
    for (const [topic, partitions] of Object.entries(current[id])) for (const p of partitions) owner.set(tpKey(topic, p), id);
  }

  // Withheld partitions whose previous owner is still live and has not acknowledged yet.
  const stillPending = new Map<string, PendingRevocation>();
  for (const r of state.pending) {
    const from = state.members[r.from];
    if (from && from.ackGeneration < r.since && !owner.has(tpKey(r.topic, r.partition))) stillPending.set(tpKey(r.topic, r.partition), r);
  }

  const members: AssignorMember[] = ids.map((memberId) => ({ memberId, topics: state.members[memberId].topics }));
  const assignor = ASSIGNORS[state.assignor ?? 'range'];
  const target = ids.length > 0 ? assignor(members, partitionsPerTopic, current) : {};

  const next: GroupAssignment = {};
  for (const id of ids) {
    next[id] = {};
    for (const [topic, partitions] of Object.entries(target[id] ?? {})) {
      for (const partition of partitions) {
        const k = tpKey(topic, partition);
        const currentOwner = owner.get(k);
        const withheld = stillPending.get(k);
        if (currentOwner !== undefined && currentOwner !== id) continue; // revoked below, handed over later
        if (withheld && withheld.from !== id) continue; // still waiting for its previous owner
        stillPending.delete(k); // given back to the member it was withheld from, if it was
        (next[id][topic] ??= []).push(partition);
      }
    }
  }
  const assignment = canonicalAssignment(next);

  const changed =
    options.membershipChanged || JSON.stringify(assignment) !== JSON.stringify(canonicalAssignment({ ...state.assignment }));
  const generation = changed ? state.generation + 1 : state.generation;

  // Everything a live member held and no longer holds is withheld until it acknowledges `generation`.
  const pending: PendingRevocation[] = [...stillPending.values()];
  for (const id of ids) {
    for (const [topic, partitions] of Object.entries(current[id])) {
      const kept = new Set(assignment[id][topic] ?? []);
      for (const partition of partitions) if (!kept.has(partition)) pending.push({ topic, partition, from: id, since: generation });
    }
  }
  pending.sort(compareTopicPartitions);

  return { ...state, generation, assignment, pending, partitionsPerTopic };
}
