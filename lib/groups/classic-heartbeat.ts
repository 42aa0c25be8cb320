// Kafka's Heartbeat (classic protocol, v0–3): keeps a member's session alive and tells it when to
// rejoin. Kafka's answers, in its order: UNKNOWN_MEMBER_ID (not a member: expired, removed, or the
// group does not exist), FENCED_INSTANCE_ID, ILLEGAL_GENERATION (another generation), then
// REBALANCE_IN_PROGRESS while the group prepares a rebalance (the member must send JoinGroup),
// else none. A heartbeat writes only when a third of the session has passed since the member's
// last write (or bookkeeping is due), so a consumer heartbeating every few seconds costs a write
// per several heartbeats; every write also expires silent peers (session-expiry.ts).
import type { SluiceContext } from '../context.js';
import { SluiceError } from '../errors.js';
import { advanceClassic, checkMember, refreshDue, refreshed } from './classic-state.js';
import type { GroupState } from './group-state.js';
import { updateGroup, type GroupDecision } from './group-store.js';

export interface ClassicHeartbeatRequest {
  readonly group: string;
  readonly memberId: string;
  readonly generation: number;
  readonly groupInstanceId: string | null;
}

export function applyClassicHeartbeat(current: GroupState | undefined, req: ClassicHeartbeatRequest, now: number): GroupDecision<void> {
  if (!current?.classic) {
    return { error: new SluiceError(current?.members[req.memberId] ? 'INCONSISTENT_GROUP_PROTOCOL' : 'UNKNOWN_MEMBER_ID', `group '${req.group}' has no Kafka member '${req.memberId}'`) };
  }
  const { state, changed } = advanceClassic(current, now);
  const keep = changed ? { next: state } : {};
  let member;
  try {
    member = checkMember(state, req.group, req.memberId, req.groupInstanceId);
  } catch (e) {
    return { ...keep, error: e as SluiceError };
  }
  if (req.generation !== state.generation) {
    return { ...keep, error: new SluiceError('ILLEGAL_GENERATION', `generation ${req.generation} is not the current generation ${state.generation} of group '${req.group}'; join again`) };
  }
  const acked = state.classic!.state === 'Stable' && member.ackGeneration < state.generation;
  const next =
    changed || acked || refreshDue(member, now)
      ? { ...state, members: { ...state.members, [req.memberId]: { ...refreshed(member, now), ackGeneration: state.classic!.state === 'Stable' ? state.generation : member.ackGeneration } } }
      : undefined;
  if (state.classic!.state === 'PreparingRebalance') {
    return { next, error: new SluiceError('REBALANCE_IN_PROGRESS', `group '${req.group}' is rebalancing; join again`) };
  }
  return { next };
}

export function classicHeartbeat(ctx: SluiceContext, req: ClassicHeartbeatRequest): Promise<void> {
  return updateGroup(ctx, req.group, (current, now) => applyClassicHeartbeat(current, req, now));
}
