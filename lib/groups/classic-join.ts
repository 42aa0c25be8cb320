// Kafka's JoinGroup (classic protocol, v0–5) on the group item: `applyClassicJoin` is the pure
// transition (classic-state.ts has the states); `joinClassicGroup` writes it and then waits for
// the join phase to end. The rendezvous spans every gateway process because waiting is polling
// (classic-wait.ts): the first waiter to see that the phase may end writes its end (a
// conditional write, so exactly one does); every member then reads its answer from the same
// item. No process keeps group state in memory.
//
// Kafka's rules, in order: a group id is needed (INVALID_GROUP_ID); the session timeout must lie
// within [MIN_SESSION_TIMEOUT_MS, MAX_SESSION_TIMEOUT_MS] (INVALID_SESSION_TIMEOUT); the protocol
// type and at least one protocol are needed, and while the group has members the type must match
// and a protocol must be supported by all (INCONSISTENT_GROUP_PROTOCOL; also while Sluice-native
// members are live). A join without a member id gets a new id `<clientId>-<uuid>` — from v4 as
// MEMBER_ID_REQUIRED, to rejoin with at once — and a join with an id the group does not know is
// UNKNOWN_MEMBER_ID. With a `group.instance.id`, a join without an id takes over that static
// member (fencing the old id: FENCED_INSTANCE_ID).
import { randomUUID } from 'node:crypto';
import type { SluiceContext } from '../context.js';
import { SluiceError } from '../errors.js';
import {
  advanceClassic,
  classicMembers,
  commonProtocols,
  completeJoin,
  INITIAL_REBALANCE_DELAY_MS,
  joinPhaseOver,
  joinResponseFor,
  MAX_MEMBER_METADATA_BYTES,
  newClassicGroup,
  startRebalance,
  subscribedTopics,
  type ClassicJoinResponse,
} from './classic-state.js';
import { emptyGroupState, MAX_MEMBERS, MAX_SESSION_TIMEOUT_MS, MIN_SESSION_TIMEOUT_MS, type ClassicMember, type GroupMember, type GroupState } from './group-state.js';
import { updateGroup, type GroupDecision } from './group-store.js';
import { WAIT_SLACK_MS, waitForGroup } from './classic-wait.js';
import { expiryWrite, removeExpiredMembers } from './session-expiry.js';

export interface ClassicJoinRequest {
  readonly group: string;
  /** '' for a member without an id. */
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly protocolType: string;
  readonly protocols: readonly { readonly name: string; readonly metadata: Buffer }[];
  readonly sessionTimeoutMs: number;
  /** JoinGroup v0 has none: the session timeout, as Kafka takes it. */
  readonly rebalanceTimeoutMs: number;
  readonly clientId: string;
  readonly clientHost: string;
  /** JoinGroup v4+: a member without an id gets MEMBER_ID_REQUIRED. */
  readonly requireKnownMemberId: boolean;
}

export interface ClassicJoinOptions {
  /** @default INITIAL_REBALANCE_DELAY_MS (Kafka's group.initial.rebalance.delay.ms) */
  readonly initialRebalanceDelayMs?: number;
  /** Stops waiting (the connection closed). */
  readonly signal?: AbortSignal;
}

/** Answered at once, or joined and waiting for the join phase to end. */
export type ClassicJoinOutcome =
  | { readonly kind: 'answer'; readonly response: ClassicJoinResponse }
  | { readonly kind: 'waiting'; readonly memberId: string; readonly generation: number };

const newMemberId = (prefix: string) => `${prefix}-${randomUUID()}`;

const sameProtocols = (member: ClassicMember, protocols: ClassicJoinRequest['protocols']) =>
  member.protocols.length === protocols.length &&
  member.protocols.every((p, i) => p.name === protocols[i].name && p.metadata === protocols[i].metadata.toString('base64'));

function validate(req: ClassicJoinRequest): void {
  if (req.group === '') throw new SluiceError('INVALID_GROUP_ID', 'the group id must not be empty');
  if (req.sessionTimeoutMs < MIN_SESSION_TIMEOUT_MS || req.sessionTimeoutMs > MAX_SESSION_TIMEOUT_MS) {
    throw new SluiceError('INVALID_SESSION_TIMEOUT', `session.timeout.ms ${req.sessionTimeoutMs} is outside [${MIN_SESSION_TIMEOUT_MS}, ${MAX_SESSION_TIMEOUT_MS}]`);
  }
  if (req.protocolType === '' || req.protocols.length === 0) {
    throw new SluiceError('INCONSISTENT_GROUP_PROTOCOL', 'JoinGroup needs a protocol type and at least one protocol');
  }
  const bytes = req.protocols.reduce((n, p) => n + p.metadata.length + Buffer.byteLength(p.name), 0);
  if (bytes > MAX_MEMBER_METADATA_BYTES) {
    throw new SluiceError('INVALID_REQUEST', `the member's protocol metadata is ${bytes} bytes; at most ${MAX_MEMBER_METADATA_BYTES} are kept per member`);
  }
  if (new Set(req.protocols.map((p) => p.name)).size !== req.protocols.length) {
    throw new SluiceError('INCONSISTENT_GROUP_PROTOCOL', 'a protocol name appears more than once');
  }
}

export function applyClassicJoin(
  current: GroupState | undefined,
  req: ClassicJoinRequest,
  now: number,
  options: { readonly initialRebalanceDelayMs?: number; readonly generateId?: () => string } = {},
): GroupDecision<ClassicJoinOutcome> {
  try {
    validate(req);
  } catch (e) {
    return { error: e as SluiceError };
  }
  const initialDelay = options.initialRebalanceDelayMs ?? INITIAL_REBALANCE_DELAY_MS;
  let state: GroupState;
  let wrote = false; // bookkeeping that must be written even if the join is refused
  if (current?.classic) {
    const advanced = advanceClassic(current, now);
    state = advanced.state;
    wrote = advanced.changed;
  } else {
    // Sluice-native (or new): refused while native members are live, else it becomes a Kafka group.
    const { state: native, expired } = removeExpiredMembers(current ?? emptyGroupState(req.group, now), now);
    if (Object.keys(native.members).length > 0) {
      return {
        next: expiryWrite(native, expired, now),
        error: new SluiceError('INCONSISTENT_GROUP_PROTOCOL', `group '${req.group}' has members that joined over Sluice's HTTP API; it cannot take Kafka members until they leave`),
      };
    }
    state = { ...native, assignment: {}, pending: [], partitionsPerTopic: {}, classic: newClassicGroup(req.protocolType) };
  }
  const advanced = state;
  const refuse = (error: SluiceError): GroupDecision<ClassicJoinOutcome> => (wrote ? { next: advanced, error } : { error });

  const classic = state.classic!;
  const hasMembers = Object.keys(state.members).length > 0;
  if (hasMembers && classic.protocolType !== req.protocolType) {
    return refuse(new SluiceError('INCONSISTENT_GROUP_PROTOCOL', `group '${req.group}' has protocol type '${classic.protocolType}', not '${req.protocolType}'`));
  }
  if (!hasMembers && classic.protocolType !== req.protocolType) state = { ...state, classic: { ...classic, protocolType: req.protocolType } };

  // Who is joining.
  let memberId = req.memberId;
  let existing: GroupMember | undefined;
  if (req.groupInstanceId !== null) {
    const holder = classicMembers(state).find(([, m]) => m.classic.groupInstanceId === req.groupInstanceId);
    if (holder && memberId !== '' && holder[0] !== memberId) {
      return refuse(new SluiceError('FENCED_INSTANCE_ID', `group.instance.id '${req.groupInstanceId}' of group '${req.group}' belongs to another member id`));
    }
    if (holder && memberId === '') {
      // A static member restarting takes over its old entry under a new id; the old id is fenced.
      memberId = (options.generateId ?? (() => newMemberId(req.groupInstanceId!)))();
      const members = { ...state.members, [memberId]: holder[1] };
      const assignment = { ...state.assignment, [memberId]: state.assignment[holder[0]] ?? {} };
      delete members[holder[0]];
      delete assignment[holder[0]];
      state = { ...state, members, assignment, classic: { ...state.classic!, leader: state.classic!.leader === holder[0] ? memberId : state.classic!.leader } };
    }
  }
  if (memberId === '') {
    const count = Object.keys(state.members).length + Object.keys(state.classic!.pendingMembers).length;
    if (count >= MAX_MEMBERS) return refuse(new SluiceError('GROUP_MAX_SIZE_REACHED', `group '${req.group}' already has the maximum of ${MAX_MEMBERS} members`));
    memberId = (options.generateId ?? (() => newMemberId(req.clientId)))();
    if (req.requireKnownMemberId && req.groupInstanceId === null) {
      return {
        next: { ...state, classic: { ...state.classic!, pendingMembers: { ...state.classic!.pendingMembers, [memberId]: now + req.sessionTimeoutMs } } },
        error: new SluiceError('MEMBER_ID_REQUIRED', `join group '${req.group}' again with member id '${memberId}'`, { memberId }),
      };
    }
  } else {
    existing = state.members[memberId];
    if (existing && !existing.classic) return refuse(new SluiceError('INCONSISTENT_GROUP_PROTOCOL', `member '${memberId}' joined over HTTP`));
    if (!existing && !(memberId in state.classic!.pendingMembers)) {
      return refuse(new SluiceError('UNKNOWN_MEMBER_ID', `member '${memberId}' is not in group '${req.group}' (expired or left); join without a member id`));
    }
  }
  const others = classicMembers(state).filter(([id]) => id !== memberId);
  if (others.length > 0) {
    const common = commonProtocols(others.map(([, m]) => m.classic));
    if (!req.protocols.some((p) => common.has(p.name))) {
      return refuse(
        new SluiceError('INCONSISTENT_GROUP_PROTOCOL', `group '${req.group}' members support ${[...common].map((p) => `'${p}'`).join(', ') || 'no common protocol'}; this member supports none of them`),
      );
    }
  }
  if (!existing && Object.keys(state.members).length >= MAX_MEMBERS) {
    return refuse(new SluiceError('GROUP_MAX_SIZE_REACHED', `group '${req.group}' already has the maximum of ${MAX_MEMBERS} members`));
  }

  const pendingMembers = { ...state.classic!.pendingMembers };
  delete pendingMembers[memberId];
  const protocols = req.protocols.map((p) => ({ name: p.name, metadata: p.metadata.toString('base64') }));
  const changed = !existing || !sameProtocols(existing.classic!, req.protocols);
  const member: GroupMember = {
    clientId: existing?.clientId ?? req.clientId,
    topics: existing?.topics ?? [],
    assignor: req.protocols[0].name,
    sessionTimeoutMs: req.sessionTimeoutMs,
    expiresAt: now + req.sessionTimeoutMs,
    ackGeneration: existing?.ackGeneration ?? 0,
    joinedAt: existing?.joinedAt ?? now,
    classic: {
      clientHost: req.clientHost,
      ...(req.groupInstanceId === null ? {} : { groupInstanceId: req.groupInstanceId }),
      rebalanceTimeoutMs: req.rebalanceTimeoutMs,
      protocols,
      awaitingJoin: false,
      joinedGeneration: existing?.classic?.joinedGeneration ?? 0,
      memberAssignment: existing?.classic?.memberAssignment ?? '',
    },
  };
  const withTopics = (m: GroupMember): GroupMember =>
    existing && !changed ? m : { ...m, topics: subscribedTopics(state.classic!.protocolType, m.classic!, state.classic!.protocol) };
  const phase = state.classic!.state;
  const isLeader = state.classic!.leader === memberId;

  // A known member with unchanged protocols gets the current generation's answer at once, unless
  // a rebalance is under way or it is the leader rejoining a Stable group (which starts one).
  if (existing && !changed && (phase === 'CompletingRebalance' || (phase === 'Stable' && !isLeader))) {
    const next = { ...state, members: { ...state.members, [memberId]: member }, classic: { ...state.classic!, pendingMembers } };
    return { next, result: { kind: 'answer', response: joinResponseFor(next, memberId) } };
  }

  let next: GroupState = { ...state, members: { ...state.members, [memberId]: withTopics(member) }, classic: { ...state.classic!, pendingMembers } };
  const waitingFrom = next.generation;
  if (phase !== 'PreparingRebalance') next = startRebalance(next, now, phase === 'Empty', initialDelay);
  else if (!existing && now < next.classic!.joinNotBefore) {
    // New members during the initial delay extend it (up to the join deadline), as Kafka does.
    next = { ...next, classic: { ...next.classic!, joinNotBefore: Math.min(now + initialDelay, next.classic!.joinDeadline) } };
  }
  const self = next.members[memberId];
  next = { ...next, members: { ...next.members, [memberId]: { ...self, classic: { ...self.classic!, awaitingJoin: true } } } };
  if (joinPhaseOver(next, now)) next = completeJoin(next, now);
  if (next.members[memberId]?.classic?.joinedGeneration === next.generation && next.generation > waitingFrom) {
    return { next, result: { kind: 'answer', response: joinResponseFor(next, memberId) } };
  }
  return { next, result: { kind: 'waiting', memberId, generation: waitingFrom } };
}

/**
 * A waiting member's answer once the join phase it joined has ended: undefined while it has not,
 * else its JoinGroup answer (or UNKNOWN_MEMBER_ID when it was removed meanwhile).
 */
export function joinWaitOutcome(state: GroupState | undefined, group: string, memberId: string, waitingFrom: number): ClassicJoinResponse | undefined {
  const member = state?.members[memberId];
  if (!state?.classic || !member?.classic) {
    throw new SluiceError('UNKNOWN_MEMBER_ID', `member '${memberId}' was removed from group '${group}' before the rebalance completed; join again`);
  }
  if (member.classic.awaitingJoin) return undefined;
  if (member.classic.joinedGeneration > waitingFrom && member.classic.joinedGeneration === state.generation) return joinResponseFor(state, memberId);
  throw new SluiceError('REBALANCE_IN_PROGRESS', `group '${group}' started another rebalance; join again`);
}

export async function joinClassicGroup(ctx: SluiceContext, req: ClassicJoinRequest, options: ClassicJoinOptions = {}): Promise<ClassicJoinResponse> {
  const outcome = await updateGroup(ctx, req.group, (current, now) => applyClassicJoin(current, req, now, options));
  if (outcome.kind === 'answer') return outcome.response;
  // The join phase ends by its deadline (at most the largest rebalance timeout); the slack covers clock skew.
  const deadline = ctx.now() + req.rebalanceTimeoutMs + WAIT_SLACK_MS;
  return waitForGroup(ctx, req.group, deadline, (state) => joinWaitOutcome(state, req.group, outcome.memberId, outcome.generation), options.signal);
}
