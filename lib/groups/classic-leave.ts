// Kafka's LeaveGroup (classic protocol): v0–2 name one member, v3 a batch of members, each by
// member id and/or `group.instance.id` (static members leave by instance id). Leaving removes
// the member at once and starts a rebalance for the others (or leaves the group Empty, with a
// new generation, when it was the last). Each member gets its own answer: UNKNOWN_MEMBER_ID for an
// id the group does not have, FENCED_INSTANCE_ID when the instance id belongs to another member id.
import type { SluiceContext } from '../context.js';
import type { ErrorCode } from '../errors.js';
import { advanceClassic, classicMembers, membersRemoved, removeMembers } from './classic-state.js';
import type { GroupState } from './group-state.js';
import { updateGroup, type GroupDecision } from './group-store.js';

export interface LeavingMember {
  /** '' when leaving by instance id only. */
  readonly memberId: string;
  readonly groupInstanceId: string | null;
}

export interface LeaveResult extends LeavingMember {
  readonly error?: ErrorCode;
}

export function applyClassicLeave(current: GroupState | undefined, leaving: readonly LeavingMember[], now: number): GroupDecision<LeaveResult[]> {
  if (!current) return { result: leaving.map((m) => ({ ...m, error: 'UNKNOWN_MEMBER_ID' as const })) };
  if (!current.classic) {
    return { result: leaving.map((m) => ({ ...m, error: current.members[m.memberId] ? ('INCONSISTENT_GROUP_PROTOCOL' as const) : ('UNKNOWN_MEMBER_ID' as const) })) };
  }
  const { state, changed } = advanceClassic(current, now);
  const gone = new Set<string>();
  const results = leaving.map((m): LeaveResult => {
    const byInstance = m.groupInstanceId === null ? undefined : classicMembers(state).find(([, c]) => c.classic.groupInstanceId === m.groupInstanceId)?.[0];
    if (m.groupInstanceId !== null) {
      if (byInstance === undefined) return { ...m, error: 'UNKNOWN_MEMBER_ID' };
      if (m.memberId !== '' && m.memberId !== byInstance) return { ...m, error: 'FENCED_INSTANCE_ID' };
      gone.add(byInstance);
      return { ...m, memberId: byInstance };
    }
    if (!state.members[m.memberId]?.classic) return { ...m, error: 'UNKNOWN_MEMBER_ID' };
    gone.add(m.memberId);
    return m;
  });
  if (gone.size === 0) return { next: changed ? state : undefined, result: results };
  return { next: membersRemoved(removeMembers(state, [...gone]), now), result: results };
}

export function leaveClassicGroup(ctx: SluiceContext, group: string, leaving: readonly LeavingMember[]): Promise<LeaveResult[]> {
  return updateGroup(ctx, group, (current, now) => applyClassicLeave(current, leaving, now));
}
