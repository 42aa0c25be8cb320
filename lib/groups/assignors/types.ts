// The assignor contract shared by range, roundrobin and sticky: a pure function from the group's
// members (with their subscriptions) and the partition count of every topic to an assignment.
// Members are considered sorted by memberId, as Kafka's assignors sort them, so the result does
// not depend on the order the caller lists them in.

export type AssignorName = 'range' | 'roundrobin' | 'sticky';

/** Names a join may carry; `cooperative-sticky` is Kafka's name for the same (cooperative) sticky assignor. */
export const ASSIGNOR_NAMES = ['range', 'roundrobin', 'sticky', 'cooperative-sticky'] as const;
export type RequestedAssignorName = (typeof ASSIGNOR_NAMES)[number];

export function normalizeAssignor(name: RequestedAssignorName): AssignorName {
  return name === 'cooperative-sticky' ? 'sticky' : name;
}

export interface AssignorMember {
  readonly memberId: string;
  /** Subscribed topics. Topics missing from `partitionsPerTopic` (not created yet) get nothing. */
  readonly topics: readonly string[];
}

/** Topic name → partition count. */
export type PartitionsPerTopic = Readonly<Record<string, number>>;

/** Topic → its assigned partitions, ascending. Topics with no partitions for the member are absent. */
export type MemberAssignment = Record<string, number[]>;

/** memberId → that member's assignment; every member is present, possibly with `{}`. */
export type GroupAssignment = Record<string, MemberAssignment>;

export type Assignor = (
  members: readonly AssignorMember[],
  partitionsPerTopic: PartitionsPerTopic,
  /** The group's current assignment; only the sticky assignor uses it. */
  previous?: Readonly<GroupAssignment>,
) => GroupAssignment;

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

const byMemberId = (a: AssignorMember, b: AssignorMember) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0);
export const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** By topic name, then partition: the order offsets and pending revocations are listed in. */
export const compareTopicPartitions = (a: TopicPartition, b: TopicPartition) => compareStrings(a.topic, b.topic) || a.partition - b.partition;

/** Sorted copy of the members, each with a set of subscribed topics. */
export function sortedMembers(members: readonly AssignorMember[]): { memberId: string; topics: Set<string> }[] {
  return [...members].sort(byMemberId).map((m) => ({ memberId: m.memberId, topics: new Set(m.topics) }));
}

/** Appends a partition to a member's assignment (callers add in ascending order or sort after). */
export function addPartition(assignment: MemberAssignment, topic: string, partition: number): void {
  (assignment[topic] ??= []).push(partition);
}

/** Sorts every partition list and drops empty topics: the canonical form of an assignment. */
export function canonicalAssignment(assignment: GroupAssignment): GroupAssignment {
  const out: GroupAssignment = {};
  for (const memberId of Object.keys(assignment).sort(compareStrings)) {
    const member: MemberAssignment = {};
    for (const topic of Object.keys(assignment[memberId]).sort(compareStrings)) {
      const partitions = [...assignment[memberId][topic]].sort((a, b) => a - b);
      if (partitions.length > 0) member[topic] = partitions;
    }
    out[memberId] = member;
  }
  return out;
}
