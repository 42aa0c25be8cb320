// Kafka's classic group protocol as pure transitions of the group item (layout in group-state.ts):
// the states Empty → PreparingRebalance → CompletingRebalance → Stable of Kafka's GroupCoordinator,
// kept in the item's `classic` attribute so that every gateway process sees the same group.
//
// - A rebalance starts (PreparingRebalance) when a member joins, changes its protocols, leaves or
//   expires, or when the leader rejoins. Every member must then send JoinGroup again.
// - The join phase ends when every member has rejoined and no id handed out with
//   MEMBER_ID_REQUIRED is still unused, or at `joinDeadline` (the largest rebalance timeout of the
//   members), whichever comes first; a group that was Empty waits at least
//   INITIAL_REBALANCE_DELAY_MS (Kafka's `group.initial.rebalance.delay.ms`) so that consumers
//   started together join one generation. Members that did not rejoin are removed.
// - Ending it (`completeJoin`) bumps the generation, chooses the protocol every member supports
//   with the most first-choice votes (Kafka's rule), keeps the leader if it rejoined (else the
//   earliest joiner), and enters CompletingRebalance; the leader's SyncGroup stores every member's
//   assignment and makes the group Stable.
// Whoever notices that a phase can end writes the transition: a waiting JoinGroup or SyncGroup, a
// heartbeat, a describe. The write is conditional on the item's version, so exactly one wins.
import { SluiceError } from '../errors.js';
import type { AssignorName, MemberAssignment } from './assignors/types.js';
import { CONSUMER_PROTOCOL_TYPE, decodeAssignment, decodeSubscriptionTopics } from './consumer-protocol.js';
import type { ClassicGroup, ClassicMember, GroupMember, GroupState } from './group-state.js';

/** Kafka's `group.initial.rebalance.delay.ms` default. */
export const INITIAL_REBALANCE_DELAY_MS = 3000;
/** Bytes of protocol metadata one member may bring (all its protocols together). */
export const MAX_MEMBER_METADATA_BYTES = 16_384;
/** Bytes of assignment the leader may give one member. */
export const MAX_MEMBER_ASSIGNMENT_BYTES = 16_384;

export type ClassicMemberRecord = GroupMember & { readonly classic: ClassicMember };

export function newClassicGroup(protocolType: string): ClassicGroup {
  return { protocolType, protocol: null, leader: null, state: 'Empty', joinDeadline: 0, joinNotBefore: 0, pendingMembers: {} };
}

/** The Sluice assignor a Kafka protocol name stands for (describe's `assignor`), or null. */
export function assignorOfProtocol(protocol: string | null): AssignorName | null {
  if (protocol === 'range' || protocol === 'roundrobin') return protocol;
  if (protocol === 'sticky' || protocol === 'cooperative-sticky') return 'sticky';
  return null;
}

export const classicMembers = (state: GroupState): [string, ClassicMemberRecord][] =>
  Object.entries(state.members).filter((e): e is [string, ClassicMemberRecord] => e[1].classic !== undefined);

/** Protocols every given member supports. */
export function commonProtocols(members: readonly ClassicMember[]): Set<string> {
  if (members.length === 0) return new Set();
  const common = new Set(members[0].protocols.map((p) => p.name));
  for (const m of members.slice(1)) {
    const names = new Set(m.protocols.map((p) => p.name));
    for (const n of common) if (!names.has(n)) common.delete(n);
  }
  return common;
}

/**
 * Kafka's selectProtocol: among the protocols all members support, each member votes for the first
 * of its own list; most votes wins, ties going to the earlier one in the first member's list.
 */
export function selectProtocol(members: readonly ClassicMember[]): string {
  const candidates = commonProtocols(members);
  const votes = new Map<string, number>();
  for (const m of members) {
    const choice = m.protocols.find((p) => candidates.has(p.name))!.name;
    votes.set(choice, (votes.get(choice) ?? 0) + 1);
  }
  let best = '';
  let bestVotes = -1;
  for (const { name } of members[0].protocols) {
    const v = votes.get(name) ?? 0;
    if (candidates.has(name) && v > bestVotes) [best, bestVotes] = [name, v];
  }
  return best;
}

const maxRebalanceTimeout = (state: GroupState) => Math.max(0, ...classicMembers(state).map(([, m]) => m.classic.rebalanceTimeoutMs));

/**
 * Enters PreparingRebalance (no-op if already there): every member must rejoin by `joinDeadline`.
 * `fromEmpty`: the group had no members, so the phase waits out the initial rebalance delay.
 */
export function startRebalance(state: GroupState, now: number, fromEmpty: boolean, initialDelayMs = INITIAL_REBALANCE_DELAY_MS): GroupState {
  const classic = state.classic!;
  if (classic.state === 'PreparingRebalance') return state;
  const timeout = maxRebalanceTimeout(state);
  const members: Record<string, GroupMember> = {};
  for (const [id, m] of Object.entries(state.members)) members[id] = m.classic ? { ...m, classic: { ...m.classic, awaitingJoin: false } } : m;
  return {
    ...state,
    members,
    classic: {
      ...classic,
      state: 'PreparingRebalance',
      joinDeadline: now + timeout,
      joinNotBefore: fromEmpty ? now + Math.min(initialDelayMs, timeout) : now,
    },
  };
}

/** Whether the join phase may end now. */
export function joinPhaseOver(state: GroupState, now: number): boolean {
  const classic = state.classic;
  if (!classic || classic.state !== 'PreparingRebalance') return false;
  if (now >= classic.joinDeadline) return true;
  const allJoined = classicMembers(state).every(([, m]) => m.classic.awaitingJoin);
  const pending = Object.values(classic.pendingMembers).some((expiresAt) => expiresAt > now);
  return allJoined && !pending && now >= classic.joinNotBefore;
}

/** The metadata a member brought for `protocol` (base64; '' if it does not support it). */
export const metadataFor = (member: ClassicMember, protocol: string | null) => member.protocols.find((p) => p.name === protocol)?.metadata ?? '';

/** Topics of a member's subscription under `protocol` (consumer groups only; else []). */
export function subscribedTopics(protocolType: string, member: ClassicMember, protocol: string | null): string[] {
  if (protocolType !== CONSUMER_PROTOCOL_TYPE) return [];
  const metadata = metadataFor(member, protocol) || member.protocols[0]?.metadata || '';
  return decodeSubscriptionTopics(Buffer.from(metadata, 'base64')) ?? [];
}

/** Partitions of an assignment's bytes (consumer groups only; else {}). */
export function assignedPartitions(protocolType: string, bytes: Buffer): MemberAssignment {
  return protocolType === CONSUMER_PROTOCOL_TYPE ? (decodeAssignment(bytes) ?? {}) : {};
}

/** Ends the join phase: members that did not rejoin are removed, then a new generation begins. */
export function completeJoin(state: GroupState, now: number): GroupState {
  const classic = state.classic!;
  const generation = state.generation + 1;
  const joined = classicMembers(state).filter(([, m]) => m.classic.awaitingJoin);
  if (joined.length === 0) {
    return { ...state, generation, members: {}, assignment: {}, pending: [], classic: { ...classic, state: 'Empty', protocol: null, leader: null } };
  }
  const protocol = selectProtocol(joined.map(([, m]) => m.classic));
  const byJoinTime = [...joined].sort(([a, ma], [b, mb]) => ma.joinedAt - mb.joinedAt || (a < b ? -1 : a > b ? 1 : 0));
  const leader = joined.some(([id]) => id === classic.leader) ? classic.leader! : byJoinTime[0][0];
  const members: Record<string, GroupMember> = {};
  const assignment: Record<string, MemberAssignment> = {};
  for (const [id, m] of joined) {
    members[id] = {
      ...m,
      assignor: protocol,
      topics: subscribedTopics(classic.protocolType, m.classic, protocol),
      // The session starts again with the new generation, as Kafka's coordinator restarts its timer.
      expiresAt: now + m.sessionTimeoutMs,
      classic: { ...m.classic, awaitingJoin: false, joinedGeneration: generation, memberAssignment: '' },
    };
    assignment[id] = {};
  }
  return {
    ...state,
    generation,
    assignor: assignorOfProtocol(protocol),
    members,
    assignment,
    pending: [],
    classic: { ...classic, state: 'CompletingRebalance', protocol, leader },
  };
}

/**
 * Bookkeeping due at `now`: unused MEMBER_ID_REQUIRED ids and silent members expire (a member
 * waiting in JoinGroup never does: the join deadline bounds it), a removal starts a rebalance, and
 * a join phase that may end ends. `changed` says whether anything needs writing.
 */
export function advanceClassic(state: GroupState, now: number): { state: GroupState; changed: boolean } {
  const classic = state.classic;
  if (!classic) return { state, changed: false };
  let changed = false;
  let next = state;
  const pendingMembers = Object.fromEntries(Object.entries(classic.pendingMembers).filter(([, at]) => at > now));
  if (Object.keys(pendingMembers).length !== Object.keys(classic.pendingMembers).length) {
    next = { ...next, classic: { ...classic, pendingMembers } };
    changed = true;
  }
  const expired = Object.keys(next.members).filter((id) => classicExpired(next.members[id], now));
  if (expired.length > 0) {
    next = membersRemoved(removeMembers(next, expired), now);
    changed = true;
  }
  if (joinPhaseOver(next, now)) {
    next = completeJoin(next, now);
    changed = true;
  }
  return { state: next, changed };
}

/** A member's session is over (one waiting in JoinGroup during PreparingRebalance is kept alive). */
export const classicExpired = (member: GroupMember, now: number) => member.expiresAt <= now && !member.classic?.awaitingJoin;

export function removeMembers(state: GroupState, ids: readonly string[]): GroupState {
  const members = { ...state.members };
  const assignment = { ...state.assignment };
  for (const id of ids) {
    delete members[id];
    delete assignment[id];
  }
  return { ...state, members, assignment };
}

/** After members left or expired: a rebalance starts, or the running join phase may now end. */
export function membersRemoved(state: GroupState, now: number): GroupState {
  const started = startRebalance(state, now, false);
  return joinPhaseOver(started, now) ? completeJoin(started, now) : started;
}

/** Kafka's JoinGroup answer for a member of the current generation. */
export interface ClassicJoinResponse {
  readonly generation: number;
  readonly protocolType: string;
  readonly protocol: string;
  readonly leader: string;
  readonly memberId: string;
  /** Every member with its metadata for the chosen protocol: only in the leader's answer. */
  readonly members: readonly { readonly memberId: string; readonly groupInstanceId?: string; readonly metadata: Buffer }[];
}

export function joinResponseFor(state: GroupState, memberId: string): ClassicJoinResponse {
  const classic = state.classic!;
  const isLeader = classic.leader === memberId;
  return {
    generation: state.generation,
    protocolType: classic.protocolType,
    protocol: classic.protocol ?? '',
    leader: classic.leader ?? '',
    memberId,
    members: isLeader
      ? classicMembers(state)
          .filter(([, m]) => m.classic.joinedGeneration === state.generation)
          .sort(([, a], [, b]) => a.joinedAt - b.joinedAt)
          .map(([id, m]) => ({
            memberId: id,
            ...(m.classic.groupInstanceId === undefined ? {} : { groupInstanceId: m.classic.groupInstanceId }),
            metadata: Buffer.from(metadataFor(m.classic, classic.protocol), 'base64'),
          }))
      : [],
  };
}

/** UNKNOWN_MEMBER_ID, or FENCED_INSTANCE_ID when the instance is now another member (static membership). */
export function checkMember(state: GroupState | undefined, group: string, memberId: string, groupInstanceId: string | null): ClassicMemberRecord {
  if (groupInstanceId !== null && state) {
    const holder = classicMembers(state).find(([, m]) => m.classic.groupInstanceId === groupInstanceId);
    if (holder && holder[0] !== memberId) {
      throw new SluiceError('FENCED_INSTANCE_ID', `group.instance.id '${groupInstanceId}' of group '${group}' now belongs to member '${holder[0]}'`);
    }
  }
  const member = state?.members[memberId];
  if (!member) throw new SluiceError('UNKNOWN_MEMBER_ID', `member '${memberId}' is not in group '${group}' (expired or left); join again`);
  if (!member.classic) throw new SluiceError('INCONSISTENT_GROUP_PROTOCOL', `member '${memberId}' of group '${group}' joined over HTTP; use the HTTP API for it`);
  return member as ClassicMemberRecord;
}

/** A copy of the member with its session restarted at `now`. */
export const refreshed = (member: GroupMember, now: number): GroupMember => ({ ...member, expiresAt: now + member.sessionTimeoutMs });

/** Whether a heartbeat should write: a third of the session has passed since the last write. */
export const refreshDue = (member: GroupMember, now: number) => member.expiresAt - now < (member.sessionTimeoutMs * 2) / 3;
