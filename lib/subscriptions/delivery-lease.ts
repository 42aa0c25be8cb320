// Delivery leases: one per (subscription, partition), `SUBSCRIPTION#<name>` / `LEASE#<p>`:
//   { pk, sk, subscription, partition, owner?, epoch, expiresAt, acquiredAt }
// Exactly one poller delivers a partition at a time: the holder of its unexpired lease.
//
//   acquire   read (consistent); a new item only if absent (`attribute_not_exists(pk)`); otherwise
//             `epoch = :seen AND (attribute_not_exists(owner) OR expiresAt < :now OR owner = :me)`.
//             Every acquisition takes a new epoch (greater than the seen one and than `minEpoch`, the
//             generation of the partition's committed offset), so two pollers racing for a free
//             lease cannot both win, and the epoch is a fencing token.
//   renew     `owner = :me AND epoch = :epoch`: extends expiresAt; refused once anyone took it over.
//   release   the same condition; removes owner (the next poller need not wait for the expiry).
//
// The epoch fences offset commits too: the dispatcher commits a partition's offsets with the
// lease's epoch as the commit's generation (lib/groups/offsets.ts `writeOffsets`, condition
// `commitGeneration <= :generation`), and a new holder first re-commits the offset it starts from
// with its own epoch. A stalled ex-holder waking after a takeover is refused ILLEGAL_GENERATION,
// so it can neither commit past records the new holder has not delivered nor move the offset back.
// A holder stops delivering a partition once less than `safetyMs` of its lease remains unrenewed.
import { GetCommand, DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';
import { isConditionalCheckFailed } from '../metadata/aws-errors.js';
import { queryAll } from '../metadata/query-all.js';
import { LEASE_PREFIX, leaseKey, subscriptionPk } from './subscription-keys.js';

export interface DeliveryLease {
  readonly subscription: string;
  readonly partition: number;
  readonly owner: string;
  readonly epoch: number;
  readonly expiresAt: number;
}

/** A lease item as stored: `owner` is absent when released. */
export interface LeaseView {
  readonly partition: number;
  readonly owner?: string;
  readonly epoch: number;
  readonly expiresAt: number;
}

function leaseFromItem(item: Record<string, unknown>): LeaseView {
  const int = (v: unknown, what: string): number => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new Error(`lease item ${String(item.pk)}/${String(item.sk)}: ${what} is malformed (${JSON.stringify(v)})`);
    return v;
  };
  if (item.owner !== undefined && typeof item.owner !== 'string') throw new Error(`lease item ${String(item.pk)}/${String(item.sk)}: owner is malformed`);
  return {
    partition: int(item.partition, 'partition'),
    ...(item.owner !== undefined ? { owner: item.owner as string } : {}),
    epoch: int(item.epoch, 'epoch'),
    expiresAt: int(item.expiresAt, 'expiresAt'),
  };
}

/** The partition's lease item, strongly consistent, or undefined. */
export async function readDeliveryLease(ctx: SluiceContext, subscription: string, partition: number): Promise<LeaseView | undefined> {
  const out = await ctx.ddb.send(new GetCommand({ TableName: ctx.table, Key: leaseKey(subscription, partition), ConsistentRead: true }));
  return out.Item ? leaseFromItem(out.Item) : undefined;
}

/** Every lease item of a subscription, by partition. */
export async function listDeliveryLeases(ctx: SluiceContext, subscription: string): Promise<LeaseView[]> {
  const leases: LeaseView[] = [];
  const items = queryAll(ctx, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': subscriptionPk(subscription), ':prefix': LEASE_PREFIX },
    ConsistentRead: true,
  });
  for await (const item of items) leases.push(leaseFromItem(item));
  return leases.sort((a, b) => a.partition - b.partition);
}

/** Whether a lease is held by someone at `now` (by the reader's clock). */
export function isHeld(lease: LeaseView | undefined, now: number): boolean {
  return lease?.owner !== undefined && lease.expiresAt >= now;
}

/**
 * Takes the partition's lease for `leaseMs` when it is free, expired, or already `owner`'s, with a
 * new epoch above `minEpoch`. Undefined when another owner holds it or won a race for it.
 */
export async function acquireDeliveryLease(
  ctx: SluiceContext,
  subscription: string,
  partition: number,
  owner: string,
  leaseMs: number,
  minEpoch = 0,
): Promise<DeliveryLease | undefined> {
  const seen = await readDeliveryLease(ctx, subscription, partition);
  const now = ctx.now();
  if (seen && isHeld(seen, now) && seen.owner !== owner) return undefined;
  const epoch = Math.max(seen?.epoch ?? 0, minEpoch) + 1;
  const lease: DeliveryLease = { subscription, partition, owner, epoch, expiresAt: now + leaseMs };
  try {
    if (!seen) {
      await ctx.ddb.send(
        new PutCommand({
          TableName: ctx.table,
          Item: { ...leaseKey(subscription, partition), subscription, partition, owner, epoch, expiresAt: lease.expiresAt, acquiredAt: now },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } else {
      await ctx.ddb.send(
        new UpdateCommand({
          TableName: ctx.table,
          Key: leaseKey(subscription, partition),
          UpdateExpression: 'SET #owner = :me, #epoch = :epoch, #expiresAt = :exp, acquiredAt = :now',
          ConditionExpression: '#epoch = :seen AND (attribute_not_exists(#owner) OR #expiresAt < :now OR #owner = :me)',
          ExpressionAttributeNames: { '#owner': 'owner', '#epoch': 'epoch', '#expiresAt': 'expiresAt' },
          ExpressionAttributeValues: { ':me': owner, ':epoch': epoch, ':exp': lease.expiresAt, ':now': now, ':seen': seen.epoch },
        }),
      );
    }
    return lease;
  } catch (e) {
    if (isConditionalCheckFailed(e)) return undefined;
    throw e;
  }
}

/** Extends the lease by `leaseMs` from now; undefined when it was taken over (or deleted with its subscription). */
export async function renewDeliveryLease(ctx: SluiceContext, lease: DeliveryLease, leaseMs: number): Promise<DeliveryLease | undefined> {
  const expiresAt = ctx.now() + leaseMs;
  try {
    await ctx.ddb.send(
      new UpdateCommand({
        TableName: ctx.table,
        Key: leaseKey(lease.subscription, lease.partition),
        UpdateExpression: 'SET #expiresAt = :exp',
        ConditionExpression: '#owner = :me AND #epoch = :epoch',
        ExpressionAttributeNames: { '#owner': 'owner', '#epoch': 'epoch', '#expiresAt': 'expiresAt' },
        ExpressionAttributeValues: { ':me': lease.owner, ':epoch': lease.epoch, ':exp': expiresAt },
      }),
    );
    return { ...lease, expiresAt };
  } catch (e) {
    if (isConditionalCheckFailed(e)) return undefined;
    throw e;
  }
}

/** Hands the lease on: the next poller takes it at once. False when it was no longer ours. */
export async function releaseDeliveryLease(ctx: SluiceContext, lease: DeliveryLease): Promise<boolean> {
  try {
    await ctx.ddb.send(
      new UpdateCommand({
        TableName: ctx.table,
        Key: leaseKey(lease.subscription, lease.partition),
        UpdateExpression: 'REMOVE #owner SET #expiresAt = :zero',
        ConditionExpression: '#owner = :me AND #epoch = :epoch',
        ExpressionAttributeNames: { '#owner': 'owner', '#epoch': 'epoch', '#expiresAt': 'expiresAt' },
        ExpressionAttributeValues: { ':me': lease.owner, ':epoch': lease.epoch, ':zero': 0 },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionalCheckFailed(e)) return false;
    throw e;
  }
}

/** Deletes every lease item of a subscription (its deletion): a holder's next renewal is refused. */
export async function deleteDeliveryLeases(ctx: SluiceContext, subscription: string): Promise<void> {
  const leases = await listDeliveryLeases(ctx, subscription);
  await Promise.all(leases.map((l) => ctx.ddb.send(new DeleteCommand({ TableName: ctx.table, Key: leaseKey(subscription, l.partition) }))));
}
