// The stored state of one consumer group: ONE item, `GROUP#<group>` / `META` (keys.ts), holding the
// members as a map next to the generation and assignment. Every change of the group is therefore a
// single conditional write (`version = :read`) — dynalite has no transactions, and with one item
// members and assignment can never disagree. Offsets live in separate items (`OFFSET#<topic>#<p>`).
//
//   { pk, sk: 'META', group, version, generation, assignor, createdAt, updatedAt,
//     members:    { <memberId>: { clientId, topics, assignor, sessionTimeoutMs, expiresAt,
//                                 ackGeneration, joinedAt } },
//     assignment: { <memberId>: { <topic>: [partition, ...] } },       // of `generation`
//     pending:    [ { topic, partition, from, since } ],               // revoked, not yet handed over
//     partitionsPerTopic: { <topic>: count },                          // counts the assignment used
//     classic?:   { protocolType, protocol, leader, state, joinDeadline, joinNotBefore,
//                   pendingMembers: { <memberId>: expiresAt } } }
//
// `classic` is present for a group joined over the Kafka protocol (classic-state.ts): its members
// then also carry `classic: { clientHost, groupInstanceId?, rebalanceTimeoutMs, protocols:
// [{ name, metadata }], awaitingJoin, joinedGeneration, memberAssignment }` (bytes as base64), and
// `assignment` holds the leader's assignment decoded, so describe, lag and offsets read a Kafka
// group as they read a Sluice-native one. A group is one or the other while it has live members.
//
// Limits (DynamoDB items are at most 400 KB): MAX_MEMBERS members, each subscribing to at most
// MAX_SUBSCRIBED_TOPICS topics; a write that would still exceed MAX_GROUP_ITEM_BYTES is refused.
import type { AssignorName, GroupAssignment, PartitionsPerTopic } from './assignors/types.js';

export const MAX_MEMBERS = 250;
export const MAX_SUBSCRIBED_TOPICS = 100;
export const MAX_GROUP_ITEM_BYTES = 380_000;
/** Kafka's default session.timeout.ms is 45 s; ours is shorter because heartbeats are cheap HTTP calls. */
export const DEFAULT_SESSION_TIMEOUT_MS = 10_000;
export const MIN_SESSION_TIMEOUT_MS = 1_000;
export const MAX_SESSION_TIMEOUT_MS = 300_000;

export interface GroupMember {
  readonly clientId: string;
  readonly topics: readonly string[];
  /** An AssignorName for a Sluice-native member; for a Kafka member its preferred protocol (assignor) name. */
  readonly assignor: string;
  readonly sessionTimeoutMs: number;
  /** Last heartbeat (or join) + sessionTimeoutMs; at or past it the member is dead. */
  readonly expiresAt: number;
  /** Highest generation this member has proved it holds, by heartbeating with it (see rebalance.ts). */
  readonly ackGeneration: number;
  readonly joinedAt: number;
  /** Present for a member that joined over the Kafka protocol. */
  readonly classic?: ClassicMember;
}

/** One protocol (assignor) a Kafka member supports, with its subscription metadata (base64). */
export interface ClassicProtocol {
  readonly name: string;
  readonly metadata: string;
}

/** What Kafka's classic group protocol keeps per member beyond the common fields. */
export interface ClassicMember {
  readonly clientHost: string;
  /** Static membership (`group.instance.id`). */
  readonly groupInstanceId?: string;
  readonly rebalanceTimeoutMs: number;
  /** In the member's order of preference. */
  readonly protocols: readonly ClassicProtocol[];
  /** Rejoined during the current PreparingRebalance (and waiting for its JoinGroup answer). */
  readonly awaitingJoin: boolean;
  /** The generation whose JoinGroup answer included this member (0: none yet). */
  readonly joinedGeneration: number;
  /** The leader's assignment bytes for the member in `generation` (base64; '' until SyncGroup). */
  readonly memberAssignment: string;
}

export type ClassicStateName = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable';

/** The group-level state of Kafka's classic group protocol (classic-state.ts). */
export interface ClassicGroup {
  /** JoinGroup's protocolType, `consumer` for consumers. */
  readonly protocolType: string;
  /** The protocol (assignor) chosen for `generation`; null while Empty. */
  readonly protocol: string | null;
  readonly leader: string | null;
  readonly state: ClassicStateName;
  /** PreparingRebalance ends by then even if some members have not rejoined. */
  readonly joinDeadline: number;
  /** PreparingRebalance of a group that was Empty lasts at least until then (Kafka's initial rebalance delay). */
  readonly joinNotBefore: number;
  /** Ids handed out with MEMBER_ID_REQUIRED and not yet used, to when they expire. */
  readonly pendingMembers: Readonly<Record<string, number>>;
}

/** A partition taken from `from` in generation `since`, withheld from everyone until `from` acknowledges. */
export interface PendingRevocation {
  readonly topic: string;
  readonly partition: number;
  readonly from: string;
  readonly since: number;
}

export interface GroupState {
  readonly group: string;
  /** Bumped by every write; the optimistic-concurrency token. */
  readonly version: number;
  /** Kafka's generation id: bumped when membership, subscriptions or the assignment change. */
  readonly generation: number;
  /** Assignor of the current members; the last one used while the group is empty; null if never joined. */
  readonly assignor: AssignorName | null;
  readonly members: Readonly<Record<string, GroupMember>>;
  readonly assignment: Readonly<GroupAssignment>;
  readonly pending: readonly PendingRevocation[];
  readonly partitionsPerTopic: PartitionsPerTopic;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Present for a group joined over the Kafka protocol. */
  readonly classic?: ClassicGroup;
}

export type GroupStateName = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable';

export function emptyGroupState(group: string, now: number): GroupState {
  return {
    group,
    version: 0,
    generation: 0,
    assignor: null,
    members: {},
    assignment: {},
    pending: [],
    partitionsPerTopic: {},
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * Kafka's group states, read from the stored item:
 * - `Empty`: no members (offsets may still be committed);
 * - `PreparingRebalance`: partitions are withheld until their previous owner gives them up;
 * - `CompletingRebalance`: some member has not yet heartbeated with the current generation;
 * - `Stable`: every member holds the current generation's assignment.
 * (`Dead` is a deleted group: GROUP_ID_NOT_FOUND.)
 */
export function groupStateName(state: GroupState): GroupStateName {
  if (state.classic) return Object.keys(state.members).length === 0 && state.classic.state !== 'PreparingRebalance' ? 'Empty' : state.classic.state;
  const members = Object.values(state.members);
  if (members.length === 0) return 'Empty';
  if (state.pending.length > 0) return 'PreparingRebalance';
  if (members.some((m) => m.ackGeneration < state.generation)) return 'CompletingRebalance';
  return 'Stable';
}
