// Session expiry without a coordinator process or DynamoDB TTL: a member is dead once `now` reaches
// its `expiresAt` (last heartbeat + sessionTimeoutMs). Every request that touches a group — join,
// heartbeat, leave, commit, describe, reset, delete — first removes dead members in the same
// conditional write that carries its own change, so live members' heartbeats are the timer that
// expires their silent peers. The decision is made on the item version read, and the write is
// conditional on that version, so a heartbeat that lands first wins and the member survives.
// In a Kafka group (classic-state.ts) a member waiting in JoinGroup does not expire, removals start
// a rebalance instead of reassigning, and a join phase that may end ends on the same write.
import type { GroupState } from './group-state.js';
import { rebalance } from './rebalance.js';
import { readGroup, updateGroup } from './group-store.js';
import { advanceClassic, classicExpired, joinPhaseOver, membersRemoved, removeMembers } from './classic-state.js';
import type { SluiceContext } from '../context.js';

export function removeExpiredMembers(state: GroupState, now: number): { state: GroupState; expired: string[] } {
  const expired = Object.keys(state.members).filter((id) => classicExpired(state.members[id], now));
  if (expired.length === 0) return { state, expired };
  return { state: removeMembers(state, expired), expired };
}

/** The write recording the removal of dead members (a new generation), or undefined if none died. */
export function expiryWrite(state: GroupState, expired: readonly string[], now: number): GroupState | undefined {
  if (expired.length === 0) return undefined;
  return state.classic ? membersRemoved(state, now) : rebalance(state, { membershipChanged: true });
}

/** Whether the stored group has bookkeeping due: a dead member, or (Kafka groups) a phase to end or an unused id to drop. */
function due(state: GroupState, now: number): boolean {
  if (Object.values(state.members).some((m) => classicExpired(m, now))) return true;
  return state.classic !== undefined && (joinPhaseOver(state, now) || Object.values(state.classic.pendingMembers).some((at) => at <= now));
}

/** The group with its dead members removed (and the resulting new generation written), or undefined. */
export async function loadGroup(ctx: SluiceContext, group: string): Promise<GroupState | undefined> {
  const read = await readGroup(ctx, group);
  if (!read || !due(read, ctx.now())) return read;
  return updateGroup(ctx, group, (current, now) => {
    if (!current) return { result: undefined };
    if (current.classic) {
      const { state, changed } = advanceClassic(current, now);
      return changed ? { next: state, result: state } : { result: current };
    }
    const { state, expired } = removeExpiredMembers(current, now);
    const next = expiryWrite(state, expired, now);
    return { next, result: next ?? current };
  });
}
