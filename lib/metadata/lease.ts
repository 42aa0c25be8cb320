// Partition leadership: the lease fields of the STATE item (owner, epoch, expiresAt).
//
// Acquisition is one conditional UpdateItem, no read first: it succeeds when the item is absent
// (and creates it: STATE is lazy), has no owner, has expired by the caller's clock, or is already
// the caller's. It always takes a NEW epoch (epoch + 1), also when the caller already owned it:
// a writer re-acquires only after losing track of the state (an unresolved ambiguous commit, an
// expired lease), and the new epoch fences any of its own requests still in flight.
// Leases affect liveness only; the epoch conditions on every write keep data safe under skew.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SluiceError } from '../api/errors.js';
import type { SluiceContext } from '../context.js';
import { isConditionalCheckFailed } from './aws-errors.js';
import { stateKey } from './keys.js';
import { getPartitionState, partitionStateFromItem } from './partition-state.js';
import type { PartitionState } from './types.js';

/** One acquisition attempt; undefined when someone else holds a live lease. */
export async function tryAcquireLease(ctx: SluiceContext, topic: string, partition: number): Promise<PartitionState | undefined> {
  const now = ctx.now();
  try {
    const out = await ctx.ddb.send(
      new UpdateCommand({
        TableName: ctx.table,
        Key: stateKey(topic, partition),
        ConditionExpression:
          'attribute_not_exists(pk) OR attribute_not_exists(#owner) OR #expiresAt < :now OR #owner = :me',
        UpdateExpression:
          'SET #owner = :me, #epoch = if_not_exists(#epoch, :zero) + :one, #expiresAt = :exp, ' +
          '#nextOffset = if_not_exists(#nextOffset, :zero), #logStartOffset = if_not_exists(#logStartOffset, :zero), ' +
          '#bytes = if_not_exists(#bytes, :zero), #segments = if_not_exists(#segments, :zero), ' +
          '#producers = if_not_exists(#producers, :noProducers), #topic = :topic, #partition = :partition',
        ExpressionAttributeNames: {
          '#owner': 'owner',
          '#epoch': 'epoch',
          '#expiresAt': 'expiresAt',
          '#nextOffset': 'nextOffset',
          '#logStartOffset': 'logStartOffset',
          '#bytes': 'bytes',
          '#segments': 'segments',
          '#producers': 'producers',
          '#topic': 'topic',
          '#partition': 'partition',
        },
        ExpressionAttributeValues: {
          ':me': ctx.ownerId,
          ':now': now,
          ':exp': now + ctx.leaseMs,
          ':zero': 0,
          ':one': 1,
          ':noProducers': {},
          ':topic': topic,
          ':partition': partition,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return partitionStateFromItem(topic, partition, out.Attributes);
  } catch (e) {
    if (isConditionalCheckFailed(e)) return undefined;
    throw e;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Acquires the lease, waiting for a busy one to expire until `deadline` (ctx clock). Gives up at
 * once when the holder's lease outlives the deadline: waiting could not help.
 * @throws SluiceError NOT_LEADER_OR_FOLLOWER (retriable, Retry-After = the holder's remaining lease)
 */
export async function acquireLease(
  ctx: SluiceContext,
  topic: string,
  partition: number,
  deadline: number,
): Promise<PartitionState> {
  for (;;) {
    const acquired = await tryAcquireLease(ctx, topic, partition);
    if (acquired) return acquired;
    const holder = await getPartitionState(ctx, topic, partition);
    const now = ctx.now();
    const untilExpiry = holder.expiresAt - now;
    if (holder.expiresAt >= deadline || now >= deadline) {
      throw new SluiceError(
        'NOT_LEADER_OR_FOLLOWER',
        `partition ${topic}-${partition} is being written by another writer (leader epoch ${holder.epoch})`,
        { leaderEpoch: holder.epoch },
        Math.max(1, Math.ceil(untilExpiry / 1000)),
      );
    }
    // Jitter so that writers queued on one lease do not all retry in the same millisecond.
    await sleep(Math.max(1, untilExpiry) + Math.floor(Math.random() * 10));
  }
}
