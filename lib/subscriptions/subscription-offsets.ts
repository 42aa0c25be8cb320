// A subscription's position per partition: the committed offset of its consumer group
// (`sluice-subscription.<name>`, lib/groups/offsets.ts), so `sluice groups describe` shows its lag.
// The dispatcher commits with its delivery lease's epoch as the commit generation (delivery-lease.ts
// explains the fencing); a partition with no committed offset yet (created after the subscription,
// or a creation cut short) starts where the subscription's starting position says, LATEST meaning
// "records from the subscription's creation on".
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';
import { offsetKey } from '../groups/group-keys.js';
import { writeOffsets } from '../groups/offsets.js';
import { listOffsets } from '../log/list-offsets.js';
import type { TopicRef } from '../metadata/types.js';
import type { Subscription } from './subscription.js';

export interface CommittedPosition {
  readonly offset: number;
  /** The generation (for a subscription: the lease epoch) the offset was committed in. */
  readonly commitGeneration: number;
}

/** The group's committed offset of one partition with its generation, strongly consistent. */
export async function readCommittedPosition(ctx: SluiceContext, group: string, topic: string, partition: number): Promise<CommittedPosition | undefined> {
  const out = await ctx.ddb.send(new GetCommand({ TableName: ctx.table, Key: offsetKey(group, topic, partition), ConsistentRead: true }));
  const item = out.Item;
  if (!item) return undefined;
  if (typeof item.offset !== 'number' || !Number.isSafeInteger(item.offset)) throw new Error(`offset item of group '${group}' ${topic}-${partition} is malformed (offset ${JSON.stringify(item.offset)})`);
  return { offset: item.offset, commitGeneration: typeof item.commitGeneration === 'number' ? item.commitGeneration : 0 };
}

/**
 * Where delivery of a partition starts when nothing is committed: TRIM_HORIZON the log start,
 * AT_TIMESTAMP the first record at or after the timestamp; LATEST the log end when the
 * subscription is being created (`creating`), else the first record at or after its creation.
 */
export async function startingOffset(ctx: SluiceContext, sub: Pick<Subscription, 'startingPosition' | 'startingPositionTimestamp' | 'createdAt'>, topic: TopicRef, partition: number, creating: boolean): Promise<number> {
  switch (sub.startingPosition) {
    case 'TRIM_HORIZON':
      return (await listOffsets(ctx, topic, partition, 'earliest')).offset;
    case 'AT_TIMESTAMP':
      return (await listOffsets(ctx, topic, partition, sub.startingPositionTimestamp ?? 0)).offset;
    case 'LATEST':
      return (await listOffsets(ctx, topic, partition, creating ? 'latest' : sub.createdAt)).offset;
  }
}

/**
 * Commits `offset` (the next record to deliver) for the partition, fenced by `epoch`:
 * ILLEGAL_GENERATION when a newer lease holder has committed since.
 */
export async function commitSubscriptionOffset(ctx: SluiceContext, sub: Pick<Subscription, 'group' | 'topic'>, partition: number, offset: number, epoch: number): Promise<void> {
  await writeOffsets(ctx, sub.group, epoch, [{ topic: sub.topic, partition, offset }]);
}
