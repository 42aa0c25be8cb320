// Session expiry without a coordinator process or DynamoDB TTL: a member is dead once `now` reaches
// its `expiresAt` (last heartbeat + sessionTimeoutMs). Every request that touches a group — join,
// heartbeat, leave, commit, describe, reset, delete — first removes dead members in the same
// conditional write that carries its own change, so live members' heartbeats are the timer that
// expires their silent peers. The decision is made on the item version read, and the write is
// conditional on that version, so a heartbeat that lands first wins and the member survives.
import type { GroupState } from './group-state.js';
import { rebalance } from './rebalance.js';
import { readGroup, updateGroup } from './group-store.js';
import type { SluiceContext } from '../context.js';

export function removeExpiredMembers(state: GroupState, now: number): { state: GroupState; expired: string[] } {
  const expired = Object.keys(state.members).filter((id) => state.members[id].expiresAt <= now);
  if (expired.length === 0) return { state, expired };
  const members = { ...state.members };
  const assignment = { ...state.assignment };
  for (const id of expired) {
    delete members[id];
    delete assignment[id];
  }
  return { state: { ...state, members, assignment }, expired };
}

/** The write recording the removal of dead members (a new generation), or undefined if none died. */
export function expiryWrite(state: GroupState, expired: readonly string[]): GroupState | undefined {
  return expired.length > 0 ? rebalance(state, { membershipChanged: true }) : undefined;
}

/** The group with its dead members removed (and the resulting new generation written), or undefined. */
export async function loadGroup(ctx: SluiceContext, group: string): Promise<GroupState | undefined> {
  const read = await readGroup(ctx, group);
  if (!read || !Object.values(read.members).some((m) => m.expiresAt <= ctx.now())) return read;
  return updateGroup(ctx, group, (current, now) => {
    if (!current) return { result: undefined };
    const { state, expired } = removeExpiredMembers(current, now);
    const next = expiryWrite(state, expired);
    return { next, result: next ?? current };
  });
}
