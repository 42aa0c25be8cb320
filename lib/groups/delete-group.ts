// Kafka's DeleteGroups: only a group without live members (NON_EMPTY_GROUP otherwise); an unknown
// group is GROUP_ID_NOT_FOUND. The META item goes first, conditional on the version read (a member
// joining meanwhile makes the delete retry and then refuse), then the committed offsets.
import { setTimeout as sleep } from 'node:timers/promises';
import { BatchWriteCommand, DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';
import { SluiceError } from '../errors.js';
import { isConditionalCheckFailed } from '../metadata/aws-errors.js';
import { groupDirectoryKey } from '../metadata/keys.js';
import { groupMetaKey, offsetKey } from './group-keys.js';
import { MAX_UPDATE_ATTEMPTS } from './group-store.js';
import { fetchCommittedOffsets } from './offsets.js';
import { loadGroup } from './session-expiry.js';

async function deleteOffsets(ctx: SluiceContext, group: string): Promise<number> {
  const offsets = await fetchCommittedOffsets(ctx, group);
  for (let i = 0; i < offsets.length; i += 25) {
    let requests: Record<string, unknown>[] | undefined = offsets
      .slice(i, i + 25)
      .map((o) => ({ DeleteRequest: { Key: offsetKey(group, o.topic, o.partition) } }));
    for (let attempt = 0; requests && requests.length > 0; attempt++) {
      if (attempt > 0) await sleep(Math.min(1000, 20 * 2 ** attempt));
      const out = await ctx.ddb.send(new BatchWriteCommand({ RequestItems: { [ctx.table]: requests } }));
      requests = out.UnprocessedItems?.[ctx.table] as Record<string, unknown>[] | undefined;
    }
  }
  return offsets.length;
}

export async function deleteGroup(ctx: SluiceContext, group: string): Promise<void> {
  for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
    const state = await loadGroup(ctx, group);
    if (!state) {
      // Offsets left behind by a commit racing an earlier delete still make the group deletable.
      if ((await deleteOffsets(ctx, group)) > 0) return removeFromDirectory(ctx, group);
      throw new SluiceError('GROUP_ID_NOT_FOUND', `group '${group}' does not exist`);
    }
    if (Object.keys(state.members).length > 0) {
      throw new SluiceError('NON_EMPTY_GROUP', `group '${group}' has active members; they must leave or expire first`);
    }
    try {
      await ctx.ddb.send(
        new DeleteCommand({
          TableName: ctx.table,
          Key: groupMetaKey(group),
          ConditionExpression: 'version = :read',
          ExpressionAttributeValues: { ':read': state.version },
        }),
      );
    } catch (e) {
      if (isConditionalCheckFailed(e)) continue;
      throw e;
    }
    await deleteOffsets(ctx, group);
    return removeFromDirectory(ctx, group);
  }
  throw new SluiceError('REQUEST_TIMED_OUT', `group '${group}' is too contended to delete; retry`);
}

/** Last step of a delete: a crash before it leaves a directory entry that listing skips. */
async function removeFromDirectory(ctx: SluiceContext, group: string): Promise<void> {
  await ctx.ddb.send(new DeleteCommand({ TableName: ctx.table, Key: groupDirectoryKey(group) }));
}
