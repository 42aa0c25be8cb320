// Group membership, Kafka's JoinGroup/Heartbeat/LeaveGroup on one conditionally written item.
// The transitions are pure (`applyJoin`, `applyHeartbeat`, `applyLeave`: state in, decision out,
// used directly by property tests) and run inside `updateGroup`'s optimistic loop.
//
// - Join: a member without an id gets a server-generated one, `<clientId>-<uuid>` as in Kafka;
//   a known member rejoins with its id and receives the current generation's assignment. A join
//   that changes nothing (same member, same subscription) does not start a new generation.
// - Heartbeat `{generation}`: keeps the session alive and acknowledges that generation's
//   assignment (rebalance.ts); `rebalance: true` tells a member of an older generation to join again.
// - Leave: the member is removed and its partitions are handed over at once.
// All members of a group use one assignor; a join naming another while other members are live is
// INCONSISTENT_GROUP_PROTOCOL. A join without an assignor takes the group's (or `range`).
import { randomUUID } from 'node:crypto';
import type { SluiceContext } from '../context.js';
import { SluiceError } from '../errors.js';
import type { AssignorName, MemberAssignment, PartitionsPerTopic } from './assignors/types.js';
import { emptyGroupState, MAX_MEMBERS, type GroupState } from './group-state.js';
import { updateGroup, type GroupDecision } from './group-store.js';
import { rebalance } from './rebalance.js';
import { expiryWrite, removeExpiredMembers } from './session-expiry.js';
import { partitionsPerTopic } from './topic-partitions.js';

export interface JoinRequest {
  readonly group: string;
  /** Absent for a new member. */
  readonly memberId?: string;
  readonly clientId: string;
  readonly topics: readonly string[];
  readonly assignor?: AssignorName;
  readonly sessionTimeoutMs: number;
}

export interface JoinResult {
  readonly memberId: string;
  readonly generation: number;
  readonly assignor: AssignorName;
  readonly sessionTimeoutMs: number;
  readonly assignment: MemberAssignment;
}

export interface HeartbeatResult {
  readonly generation: number;
  readonly rebalance: boolean;
}

const newMemberId = (clientId: string) => `${clientId}-${randomUUID()}`;

/** Dead members removed; a decision that writes that removal (if any) and throws `error`. */
function refuse<T>(state: GroupState, expired: readonly string[], error: SluiceError, now: number): GroupDecision<T> {
  return { next: expiryWrite(state, expired, now), error };
}

/** Members of a Kafka group use the Kafka protocol (lib/kafka); a Sluice-native call is refused. */
const kafkaGroup = (group: string) =>
  new SluiceError('INCONSISTENT_GROUP_PROTOCOL', `group '${group}' has members that joined over the Kafka protocol; join it with a Kafka client or after they left`);

const sameTopics = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((t, i) => t === b[i]);

export function applyJoin(
  current: GroupState | undefined,
  req: JoinRequest,
  counts: PartitionsPerTopic,
  now: number,
  generateId: () => string = () => newMemberId(req.clientId),
): GroupDecision<JoinResult> {
  const removed = removeExpiredMembers(current ?? emptyGroupState(req.group, now), now);
  const { expired } = removed;
  if (removed.state.classic && Object.keys(removed.state.members).length > 0) return refuse(removed.state, expired, kafkaGroup(req.group), now);
  // An Empty Kafka group becomes a Sluice-native one: its generation and offsets carry on.
  const { classic: _kafka, ...state } = removed.state;
  const existing = req.memberId === undefined ? undefined : state.members[req.memberId];
  if (req.memberId !== undefined && !existing) {
    return refuse(state, expired, new SluiceError('UNKNOWN_MEMBER_ID', `member '${req.memberId}' is not in group '${req.group}' (expired or left); join without a memberId`), now);
  }
  const others = Object.keys(state.members).filter((id) => id !== req.memberId);
  const assignor = req.assignor ?? (others.length > 0 ? state.assignor : null) ?? 'range';
  if (others.length > 0 && state.assignor !== assignor) {
    return refuse(state, expired, new SluiceError('INCONSISTENT_GROUP_PROTOCOL', `group '${req.group}' uses assignor '${state.assignor}', not '${assignor}'`), now);
  }
  if (!existing && others.length >= MAX_MEMBERS) {
    return refuse(state, expired, new SluiceError('INVALID_REQUEST', `group '${req.group}' already has the maximum of ${MAX_MEMBERS} members`), now);
  }
  const memberId = req.memberId ?? generateId();
  const topics = [...new Set(req.topics)].sort();
  const members = {
    ...state.members,
    [memberId]: {
      clientId: existing?.clientId ?? req.clientId,
      topics,
      assignor,
      sessionTimeoutMs: req.sessionTimeoutMs,
      expiresAt: now + req.sessionTimeoutMs,
      ackGeneration: existing?.ackGeneration ?? 0,
      joinedAt: existing?.joinedAt ?? now,
    },
  };
  const membershipChanged = expired.length > 0 || !existing || !sameTopics(existing.topics, topics) || state.assignor !== assignor;
  const next = rebalance({ ...state, assignor, members }, { membershipChanged, partitionsPerTopic: counts });
  return {
    next,
    result: { memberId, generation: next.generation, assignor, sessionTimeoutMs: req.sessionTimeoutMs, assignment: next.assignment[memberId] ?? {} },
  };
}

export function applyHeartbeat(current: GroupState | undefined, group: string, memberId: string, generation: number, now: number): GroupDecision<HeartbeatResult> {
  const unknown = new SluiceError('UNKNOWN_MEMBER_ID', `member '${memberId}' is not in group '${group}' (expired or left); join again without a memberId`);
  if (!current) return { error: unknown };
  const { state, expired } = removeExpiredMembers(current, now);
  const member = state.members[memberId];
  if (!member) return refuse(state, expired, unknown, now);
  if (state.classic) return refuse(state, expired, kafkaGroup(group), now);
  if (generation > state.generation) {
    return refuse(state, expired, new SluiceError('ILLEGAL_GENERATION', `generation ${generation} is newer than group '${group}' generation ${state.generation}`), now);
  }
  const members = {
    ...state.members,
    [memberId]: { ...member, expiresAt: now + member.sessionTimeoutMs, ackGeneration: Math.max(member.ackGeneration, generation) },
  };
  const next = rebalance({ ...state, members }, { membershipChanged: expired.length > 0 });
  return { next, result: { generation: next.generation, rebalance: generation !== next.generation } };
}

export function applyLeave(current: GroupState | undefined, group: string, memberId: string, now: number): GroupDecision<void> {
  const unknown = new SluiceError('UNKNOWN_MEMBER_ID', `member '${memberId}' is not in group '${group}'`);
  if (!current) return { error: unknown };
  const { state, expired } = removeExpiredMembers(current, now);
  if (!state.members[memberId]) return refuse(state, expired, unknown, now);
  if (state.classic) return refuse(state, expired, kafkaGroup(group), now);
  const members = { ...state.members };
  const assignment = { ...state.assignment };
  delete members[memberId];
  delete assignment[memberId];
  return { next: rebalance({ ...state, members, assignment }, { membershipChanged: true }) };
}

export async function joinGroup(ctx: SluiceContext, req: JoinRequest): Promise<JoinResult> {
  const known = new Map<string, number>(); // topic partition counts, read once per call
  return updateGroup(ctx, req.group, async (current, now) => {
    const topics = [...req.topics, ...Object.values(current?.members ?? {}).flatMap((m) => m.topics)];
    return applyJoin(current, req, await partitionsPerTopic(ctx, topics, known), now);
  });
}

export function heartbeat(ctx: SluiceContext, group: string, memberId: string, generation: number): Promise<HeartbeatResult> {
  return updateGroup(ctx, group, (current, now) => applyHeartbeat(current, group, memberId, generation, now));
}

export function leaveGroup(ctx: SluiceContext, group: string, memberId: string): Promise<void> {
  return updateGroup(ctx, group, (current, now) => applyLeave(current, group, memberId, now));
}
