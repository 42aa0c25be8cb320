// Waiting for a group's phase to end, across gateway processes: a waiting JoinGroup or SyncGroup
// re-reads the group item every POLL_MIN_MS–POLL_MAX_MS (jittered, so waiters of many processes
// spread their reads), and whoever sees bookkeeping due (an expired member, a join phase that may
// end) writes it with the usual conditional write, so exactly one writer wins and every waiter
// then reads the same answer. Nothing is held in memory between polls.
import { setTimeout as sleep } from 'node:timers/promises';
import type { SluiceContext } from '../context.js';
import { SluiceError } from '../errors.js';
import { advanceClassic } from './classic-state.js';
import type { GroupState } from './group-state.js';
import { readGroup, updateGroup } from './group-store.js';

/** Bounds of the jittered interval at which a waiting JoinGroup or SyncGroup re-reads the group. */
export const POLL_MIN_MS = 100;
export const POLL_MAX_MS = 250;
export const pollDelay = () => POLL_MIN_MS + Math.random() * (POLL_MAX_MS - POLL_MIN_MS);

/** How long past its own deadline a waiter keeps waiting before it answers REBALANCE_IN_PROGRESS. */
export const WAIT_SLACK_MS = 5000;

/** Writes bookkeeping due (expiries, the end of a join phase) and returns the group as it then is. */
export async function advanceGroup(ctx: SluiceContext, group: string): Promise<GroupState | undefined> {
  return updateGroup(ctx, group, (current, now) => {
    if (!current?.classic) return { result: current };
    const { state, changed } = advanceClassic(current, now);
    return changed ? { next: state, result: state } : { result: current };
  });
}

/** Re-reads the group until `outcome` gives an answer, writing due bookkeeping on the way. */
export async function waitForGroup<T>(
  ctx: SluiceContext,
  group: string,
  deadline: number,
  outcome: (state: GroupState | undefined, now: number) => T | undefined | Promise<T | undefined>,
  signal?: AbortSignal,
): Promise<T> {
  for (;;) {
    await sleep(pollDelay(), undefined, signal ? { signal } : undefined);
    let state = await readGroup(ctx, group);
    const now = ctx.now();
    if (state?.classic && advanceClassic(state, now).changed) state = await advanceGroup(ctx, group);
    const answer = await outcome(state, ctx.now());
    if (answer !== undefined) return answer;
    if (ctx.now() > deadline) throw new SluiceError('REBALANCE_IN_PROGRESS', `group '${group}' did not complete its rebalance in time; join again`);
  }
}

