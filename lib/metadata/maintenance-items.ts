// The maintenance job's own items in the metadata table (see keys.ts for the table's layout); every
// write to them is a named function here, called by lib/log/maintenance.ts and lib/log/cleanup.ts:
//
//   pk            sk              item
//   MAINTENANCE   LEASE           owner, expiresAt: one maintenance run at a time (liveness only;
//                                 every step of the job is also safe when two runs overlap)
//   MAINTENANCE   CURSOR          topic, task: where the next run resumes (tasks are a topic's
//                                 partitions 0..n-1, then the topic's sweep, topics by name)
//   MAINTENANCE   SWEEP#<topic>   marks: { objectKey -> ms first seen unreferenced } (cleanup.ts)
//
// None of these is data: losing any of them only costs a run some repeated work.
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';
import { isConditionalCheckFailed } from './aws-errors.js';

export const MAINTENANCE_PK = 'MAINTENANCE';
const leaseKey = { pk: MAINTENANCE_PK, sk: 'LEASE' };
const cursorKey = { pk: MAINTENANCE_PK, sk: 'CURSOR' };
const sweepKey = (topic: string) => ({ pk: MAINTENANCE_PK, sk: `SWEEP#${topic}` });

export interface MaintenanceCursor {
  readonly topic: string;
  readonly task: number;
}

/** Takes the job lease until `expiresAt` if it is free, expired, or already ours. */
export async function tryAcquireMaintenanceLease(ctx: SluiceContext, expiresAt: number): Promise<boolean> {
  try {
    await ctx.ddb.send(
      new PutCommand({
        TableName: ctx.table,
        Item: { ...leaseKey, owner: ctx.ownerId, expiresAt },
        ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now OR #owner = :me',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':now': ctx.now(), ':me': ctx.ownerId },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionalCheckFailed(e)) return false;
    throw e;
  }
}

export async function releaseMaintenanceLease(ctx: SluiceContext): Promise<void> {
  try {
    await ctx.ddb.send(
      new DeleteCommand({
        TableName: ctx.table,
        Key: leaseKey,
        ConditionExpression: '#owner = :me',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':me': ctx.ownerId },
      }),
    );
  } catch (e) {
    if (!isConditionalCheckFailed(e)) throw e;
  }
}

export async function getMaintenanceCursor(ctx: SluiceContext): Promise<MaintenanceCursor | undefined> {
  const out = await ctx.ddb.send(new GetCommand({ TableName: ctx.table, Key: cursorKey, ConsistentRead: true }));
  return out.Item ? { topic: String(out.Item.topic), task: Number(out.Item.task) } : undefined;
}

export async function putMaintenanceCursor(ctx: SluiceContext, cursor: MaintenanceCursor | undefined): Promise<void> {
  if (!cursor) {
    await ctx.ddb.send(new DeleteCommand({ TableName: ctx.table, Key: cursorKey }));
    return;
  }
  await ctx.ddb.send(new PutCommand({ TableName: ctx.table, Item: { ...cursorKey, ...cursor, updatedAt: ctx.now() } }));
}

export async function getSweepMarks(ctx: SluiceContext, topic: string): Promise<Record<string, number>> {
  const out = await ctx.ddb.send(new GetCommand({ TableName: ctx.table, Key: sweepKey(topic), ConsistentRead: true }));
  return (out.Item?.marks as Record<string, number> | undefined) ?? {};
}

export async function putSweepMarks(ctx: SluiceContext, topic: string, marks: Record<string, number>): Promise<void> {
  if (Object.keys(marks).length === 0) {
    await deleteSweepMarks(ctx, topic);
    return;
  }
  await ctx.ddb.send(new PutCommand({ TableName: ctx.table, Item: { ...sweepKey(topic), marks, updatedAt: ctx.now() } }));
}

export async function deleteSweepMarks(ctx: SluiceContext, topic: string): Promise<void> {
  await ctx.ddb.send(new DeleteCommand({ TableName: ctx.table, Key: sweepKey(topic) }));
}
