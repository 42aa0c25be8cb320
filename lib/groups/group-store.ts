// Reads and conditionally writes a group's META item (layout in group-state.ts). `updateGroup` is
// the only way group state changes: read (strongly consistent) → decide (pure) → put with
// `version = :read` (or `attribute_not_exists(pk)` for a new group) → on a lost race, read again
// and decide again. Concurrent joins and leaves are thereby serialised: none is lost and no two
// writers can both build on the same generation.
import { setTimeout as sleep } from 'node:timers/promises';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';
import { SluiceError } from '../errors.js';
import { isConditionalCheckFailed } from '../metadata/aws-errors.js';
import { groupDirectoryKey } from '../metadata/keys.js';
import { groupMetaKey } from './group-keys.js';
import { MAX_GROUP_ITEM_BYTES, type GroupState } from './group-state.js';

/** Attempts before a contended update gives up with a retriable error. */
export const MAX_UPDATE_ATTEMPTS = 100;

/** What a decision returns: the state to write (if any), then a result to return or an error to throw. */
export interface GroupDecision<T> {
  readonly next?: GroupState;
  readonly result?: T;
  readonly error?: SluiceError;
}

export function groupFromItem(item: Record<string, unknown>): GroupState {
  const { pk: _pk, sk: _sk, ...state } = item;
  return state as unknown as GroupState;
}

export async function readGroup(ctx: SluiceContext, group: string): Promise<GroupState | undefined> {
  const out = await ctx.ddb.send(new GetCommand({ TableName: ctx.table, Key: groupMetaKey(group), ConsistentRead: true }));
  return out.Item ? groupFromItem(out.Item) : undefined;
}

/** Runs `decide` on the latest state until its write wins; returns its result or throws its error. */
export async function updateGroup<T>(
  ctx: SluiceContext,
  group: string,
  decide: (current: GroupState | undefined, now: number) => GroupDecision<T> | Promise<GroupDecision<T>>,
): Promise<T> {
  for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
    const current = await readGroup(ctx, group);
    const now = ctx.now();
    const decision = await decide(current, now);
    if (decision.next) {
      const item = { ...decision.next, ...groupMetaKey(group), group, version: (current?.version ?? 0) + 1, updatedAt: now };
      if (Buffer.byteLength(JSON.stringify(item)) > MAX_GROUP_ITEM_BYTES) {
        throw new SluiceError('INVALID_REQUEST', `group '${group}' would exceed ${MAX_GROUP_ITEM_BYTES} bytes of state; use fewer members or topics`);
      }
      // A new group enters the directory before its first write, so listing never misses it.
      if (!current) await ctx.ddb.send(new PutCommand({ TableName: ctx.table, Item: { ...groupDirectoryKey(group), group } }));
      try {
        await ctx.ddb.send(
          new PutCommand({
            TableName: ctx.table,
            Item: item,
            ConditionExpression: current ? 'version = :read' : 'attribute_not_exists(pk)',
            ExpressionAttributeValues: current ? { ':read': current.version } : undefined,
          }),
        );
      } catch (e) {
        if (!isConditionalCheckFailed(e)) throw e;
        // Lost the race: back off with jitter (grows with contention) and decide again.
        await sleep(Math.random() * Math.min(200, 5 * 2 ** Math.min(attempt, 6)));
        continue;
      }
    }
    if (decision.error) throw decision.error;
    return decision.result as T;
  }
  throw new SluiceError('REQUEST_TIMED_OUT', `group '${group}' is too contended to update; retry`);
}
