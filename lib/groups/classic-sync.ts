// Kafka's SyncGroup (classic protocol, v0–3): the leader, which ran the assignor on the members'
// metadata from its JoinGroup answer, hands in every member's assignment; the coordinator stores
// them in the group item (the bytes, and for consumer groups the partitions decoded, which
// describe and lag read) and the group becomes Stable. A follower's SyncGroup waits, polling the
// item like a waiting JoinGroup (classic-join.ts), until the leader's assignment of its
// generation is stored, then answers its own.
//
// Errors as Kafka's coordinator answers them: UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, then
// ILLEGAL_GENERATION for another generation, REBALANCE_IN_PROGRESS while the group is preparing a
// rebalance (or started one while the follower waited). A follower waiting longer than a third
// of its session has its session restarted, as Kafka keeps a member awaiting its sync alive.
import type { SluiceContext } from '../context.js';
import { SluiceError } from '../errors.js';
import {
  advanceClassic,
  assignedPartitions,
  checkMember,
  classicMembers,
  MAX_MEMBER_ASSIGNMENT_BYTES,
  refreshDue,
  refreshed,
} from './classic-state.js';
import { waitForGroup } from './classic-wait.js';
import type { GroupMember, GroupState } from './group-state.js';
import { readGroup, updateGroup, type GroupDecision } from './group-store.js';

export interface ClassicSyncRequest {
  readonly group: string;
  readonly memberId: string;
  readonly generation: number;
  readonly groupInstanceId: string | null;
  /** The leader's assignments (empty from followers). */
  readonly assignments: readonly { readonly memberId: string; readonly assignment: Buffer }[];
}

/** The member's assignment bytes, or undefined while it must wait for the leader. */
export type ClassicSyncOutcome = Buffer | undefined;

/** The member's answer from a group in `generation`, or undefined while the leader has not synced yet. */
export function syncOutcome(state: GroupState | undefined, req: ClassicSyncRequest): ClassicSyncOutcome {
  if (!state?.classic) throw new SluiceError('UNKNOWN_MEMBER_ID', `group '${req.group}' has no member '${req.memberId}'`);
  const member = checkMember(state, req.group, req.memberId, req.groupInstanceId);
  if (req.generation !== state.generation) {
    throw new SluiceError('ILLEGAL_GENERATION', `generation ${req.generation} is not the current generation ${state.generation} of group '${req.group}'; join again`);
  }
  if (state.classic.state === 'PreparingRebalance') throw new SluiceError('REBALANCE_IN_PROGRESS', `group '${req.group}' is rebalancing; join again`);
  if (state.classic.state === 'Stable') return Buffer.from(member.classic.memberAssignment, 'base64');
  return undefined;
}

export function applyClassicSync(current: GroupState | undefined, req: ClassicSyncRequest, now: number): GroupDecision<ClassicSyncOutcome> {
  const advanced = current?.classic ? advanceClassic(current, now) : { state: current, changed: false };
  const state = advanced.state;
  const keep = advanced.changed ? { next: state } : {};
  let outcome: ClassicSyncOutcome;
  try {
    outcome = syncOutcome(state, req);
  } catch (e) {
    return { ...keep, error: e as SluiceError };
  }
  const group = state!;
  const classic = group.classic!;
  const member = group.members[req.memberId];
  if (outcome !== undefined || classic.leader !== req.memberId) {
    // Stable (answered) or a follower (waits); either proves the member alive.
    return refreshDue(member, now) ? { next: { ...group, members: { ...group.members, [req.memberId]: refreshed(member, now) } }, result: outcome } : { ...keep, result: outcome };
  }
  // The leader's assignment: stored for every member of this generation (absent ones get none).
  const given = new Map<string, Buffer>();
  for (const a of req.assignments) {
    if (a.assignment.length > MAX_MEMBER_ASSIGNMENT_BYTES) {
      return { ...keep, error: new SluiceError('INVALID_REQUEST', `the assignment of member '${a.memberId}' is ${a.assignment.length} bytes; at most ${MAX_MEMBER_ASSIGNMENT_BYTES} are kept per member`) };
    }
    given.set(a.memberId, a.assignment);
  }
  const members: Record<string, GroupMember> = { ...group.members };
  const assignment = { ...group.assignment };
  for (const [id, m] of classicMembers(group)) {
    const bytes = given.get(id) ?? Buffer.alloc(0);
    members[id] = { ...m, classic: { ...m.classic, memberAssignment: bytes.toString('base64') } };
    assignment[id] = assignedPartitions(classic.protocolType, bytes);
  }
  members[req.memberId] = { ...refreshed(members[req.memberId], now), ackGeneration: group.generation };
  const next: GroupState = { ...group, members, assignment, classic: { ...classic, state: 'Stable' } };
  return { next, result: given.get(req.memberId) ?? Buffer.alloc(0) };
}

export async function syncClassicGroup(ctx: SluiceContext, req: ClassicSyncRequest, signal?: AbortSignal): Promise<Buffer> {
  const first = await updateGroup(ctx, req.group, (current, now) => applyClassicSync(current, req, now));
  if (first !== undefined) return first;
  // A follower: wait for the leader, at most its rebalance timeout (the leader's SyncGroup is due
  // within it; a leader that died expires and the group starts another rebalance).
  const member = (await readGroup(ctx, req.group))?.members[req.memberId];
  const deadline = ctx.now() + (member?.classic?.rebalanceTimeoutMs ?? member?.sessionTimeoutMs ?? 30_000);
  return waitForGroup(
    ctx,
    req.group,
    deadline,
    async (state, now) => {
      const outcome = syncOutcome(state, req);
      if (outcome !== undefined) return outcome;
      const self = state!.members[req.memberId];
      if (refreshDue(self, now)) {
        // Keep the waiting follower's session alive (a write only every third of a session).
        return updateGroup(ctx, req.group, (current, at) => applyClassicSync(current, req, at));
      }
      return undefined;
    },
    signal,
  );
}
