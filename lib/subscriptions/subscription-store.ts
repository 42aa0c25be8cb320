// Subscription items, `SUBSCRIPTIONS` / `<name>` (subscription-keys.ts):
//   { pk, sk, name, topic, topicId, group, target, <every SubscriptionConfig option>, signingSecret?, createdAt }
//
// Create: validate everything (resolveSubscriptionInput; the topic and a dead-letter topic must
// exist), put the item only if absent (SUBSCRIPTION_ALREADY_EXISTS otherwise), then create the
// consumer group `sluice-subscription.<name>` (Empty) and commit each partition's starting offset
// in it, so LATEST means the log end at creation. A creation cut short before the offsets is still
// whole: the dispatcher starts a partition with no committed offset from the starting position
// (LATEST: the first record at or after the creation time).
//
// Delete: the item first (pollers stop picking the subscription up), then its delivery leases (a
// holder's next renewal is refused and it stops), then its consumer group with its committed
// offsets, so a new subscription of the same name starts afresh from its own starting position.
// A poller's commit racing the deletion can leave an offset item behind; a later creation of the
// same name overwrites it (with a generation above it) and the group deletion removes it.
import { randomBytes } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';
import { SluiceError, isSluiceError } from '../errors.js';
import { deleteGroup } from '../groups/delete-group.js';
import { claimInactiveGroup, inBatches, writeOffsets } from '../groups/offsets.js';
import { readRecords } from '../log/read.js';
import { isConditionalCheckFailed } from '../metadata/aws-errors.js';
import { readPartitionState } from '../metadata/partition-state.js';
import { queryAll } from '../metadata/query-all.js';
import { getTopic, requireTopic } from '../metadata/topics.js';
import { deleteDeliveryLeases, isHeld, listDeliveryLeases, type LeaseView } from './delivery-lease.js';
import { readCommittedPosition, startingOffset } from './subscription-offsets.js';
import { SUBSCRIPTIONS_PK, subscriptionKey } from './subscription-keys.js';
import {
  type CreateSubscriptionInput,
  type Subscription,
  type SubscriptionTarget,
  resolveSubscriptionConfig,
  resolveTarget,
  resolveSubscriptionInput,
  subscriptionGroup,
} from './subscription.js';

/** A subscription as the dispatcher needs it: with the HTTPS signing key. */
export interface StoredSubscription extends Subscription {
  readonly signingSecret?: string;
}

const CONFIG_ATTRIBUTES = [
  'batchSize',
  'maximumBatchingWindowMs',
  'startingPosition',
  'startingPositionTimestamp',
  'bisectBatchOnFunctionError',
  'functionResponseTypes',
  'maximumRetryAttempts',
  'maximumRecordAgeMs',
  'onFailure',
  'parallelizationFactor',
  'enabled',
] as const;

/** Parses a stored item; a malformed one is a clear error naming the subscription. */
function fromItem(item: Record<string, unknown>): StoredSubscription {
  const name = String(item.sk);
  const fail = (what: string, e?: unknown): never => {
    throw new Error(`subscription item '${name}': ${what} is malformed${e instanceof Error ? ` (${e.message})` : ''}`);
  };
  for (const field of ['name', 'topic', 'topicId', 'group'] as const) if (typeof item[field] !== 'string') fail(field);
  if (typeof item.createdAt !== 'number') fail('createdAt');
  if (item.signingSecret !== undefined && typeof item.signingSecret !== 'string') fail('signingSecret');
  let target: SubscriptionTarget;
  try {
    target = resolveTarget(item.target);
  } catch (e) {
    return fail('target', e);
  }
  const options: Record<string, unknown> = {};
  for (const key of CONFIG_ATTRIBUTES) if (item[key] !== undefined) options[key] = item[key];
  let config;
  try {
    config = resolveSubscriptionConfig(options);
  } catch (e) {
    return fail('config', e);
  }
  return {
    ...config,
    name: item.name as string,
    topic: item.topic as string,
    topicId: item.topicId as string,
    group: item.group as string,
    target,
    createdAt: item.createdAt as number,
    ...(item.signingSecret !== undefined ? { signingSecret: item.signingSecret as string } : {}),
  };
}

/** What callers other than the dispatcher see: never the signing key. */
function withoutSecret(sub: StoredSubscription): Subscription {
  const { signingSecret: _secret, ...rest } = sub;
  return rest;
}

const notFound = (name: string) => new SluiceError('SUBSCRIPTION_NOT_FOUND', `subscription '${name}' does not exist`, { subscription: name });

/**
 * Creates a subscription (see the top of this file). The result carries `signingSecret` for an
 * HTTPS target: the only time it is returned.
 */
export async function createSubscription(ctx: SluiceContext, input: CreateSubscriptionInput): Promise<Subscription> {
  const resolved = resolveSubscriptionInput(input);
  const topic = await requireTopic(ctx, resolved.topic);
  if (resolved.onFailure?.type === 'topic') await requireTopic(ctx, resolved.onFailure.topic);
  const signingSecret = resolved.target.type === 'https' ? (resolved.signingSecret ?? randomBytes(32).toString('base64url')) : undefined;
  const { signingSecret: _given, ...options } = resolved;
  const sub: StoredSubscription = {
    ...options,
    topicId: topic.id,
    group: subscriptionGroup(resolved.name),
    createdAt: ctx.now(),
    ...(signingSecret !== undefined ? { signingSecret } : {}),
  };
  if (await getStoredSubscription(ctx, sub.name)) throw alreadyExists(sub.name);
  // The starting offsets are found before anything is written: a bad AT_TIMESTAMP read changes nothing.
  const partitions = Array.from({ length: topic.partitions }, (_, p) => p);
  const starts = await inBatches(partitions, async (partition) => ({ topic: sub.topic, partition, offset: await startingOffset(ctx, sub, topic, partition, true) }));
  try {
    await ctx.ddb.send(new PutCommand({ TableName: ctx.table, Item: { ...subscriptionKey(sub.name), ...sub }, ConditionExpression: 'attribute_not_exists(pk)' }));
  } catch (e) {
    if (isConditionalCheckFailed(e)) throw alreadyExists(sub.name);
    throw e;
  }
  const generation = await claimInactiveGroup(
    ctx,
    sub.group,
    () => new SluiceError('INVALID_REQUEST', `consumer group '${sub.group}' has active members; a subscription's group is its own`),
  );
  // Offsets a poller of an earlier subscription of this name left behind have a higher generation.
  const leftover = await inBatches(partitions, (p) => readCommittedPosition(ctx, sub.group, sub.topic, p));
  const fence = Math.max(generation, ...leftover.map((l) => l?.commitGeneration ?? 0));
  await writeOffsets(ctx, sub.group, fence, starts);
  return sub;
}

const alreadyExists = (name: string) => new SluiceError('SUBSCRIPTION_ALREADY_EXISTS', `subscription '${name}' already exists`, { subscription: name });

/** The subscription with its signing key (the dispatcher's view), strongly consistent, or undefined. */
export async function getStoredSubscription(ctx: SluiceContext, name: string): Promise<StoredSubscription | undefined> {
  const out = await ctx.ddb.send(new GetCommand({ TableName: ctx.table, Key: subscriptionKey(name), ConsistentRead: true }));
  return out.Item ? fromItem(out.Item) : undefined;
}

/** Every subscription with its signing key (the dispatcher's view), sorted by name. */
export async function listStoredSubscriptions(ctx: SluiceContext): Promise<StoredSubscription[]> {
  const subs: StoredSubscription[] = [];
  const items = queryAll(ctx, { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': SUBSCRIPTIONS_PK }, ConsistentRead: true });
  for await (const item of items) subs.push(fromItem(item));
  return subs;
}

export async function getSubscription(ctx: SluiceContext, name: string): Promise<Subscription | undefined> {
  const sub = await getStoredSubscription(ctx, name);
  return sub && withoutSecret(sub);
}

/** The subscription or SUBSCRIPTION_NOT_FOUND. */
export async function requireSubscription(ctx: SluiceContext, name: string): Promise<Subscription> {
  const sub = await getSubscription(ctx, name);
  if (!sub) throw notFound(name);
  return sub;
}

/** All subscriptions, sorted by name: one Query on the `SUBSCRIPTIONS` directory partition. */
export async function listSubscriptions(ctx: SluiceContext): Promise<Subscription[]> {
  return (await listStoredSubscriptions(ctx)).map(withoutSecret);
}

/** Deletes the subscription, its leases and its consumer group (see the top of this file). */
export async function deleteSubscription(ctx: SluiceContext, name: string): Promise<void> {
  const sub = await requireSubscription(ctx, name);
  try {
    await ctx.ddb.send(new DeleteCommand({ TableName: ctx.table, Key: subscriptionKey(name), ConditionExpression: 'attribute_exists(pk)' }));
  } catch (e) {
    if (isConditionalCheckFailed(e)) throw notFound(name);
    throw e;
  }
  await deleteDeliveryLeases(ctx, name);
  try {
    await deleteGroup(ctx, sub.group);
  } catch (e) {
    // Nothing committed yet, or someone joined the group by its name: the subscription is gone regardless.
    if (!isSluiceError(e) || (e.code !== 'GROUP_ID_NOT_FOUND' && e.code !== 'NON_EMPTY_GROUP')) throw e;
  }
}

export interface SubscriptionPartitionStatus {
  readonly partition: number;
  /** The next offset to deliver (the group's committed offset), or null before the first commit. */
  readonly committedOffset: number | null;
  readonly logStartOffset: number;
  /** The high watermark. */
  readonly logEndOffset: number;
  /** Records not delivered yet: log end − max(committed offset, log start). */
  readonly lag: number;
  /** Age of the oldest undelivered record (Kinesis's IteratorAge), ms; 0 when nothing is pending. */
  readonly oldestUndeliveredAgeMs: number;
  /** The delivery lease: the poller delivering this partition, while `active`. */
  readonly lease?: { readonly owner?: string; readonly epoch: number; readonly expiresAt: number; readonly active: boolean };
}

export interface SubscriptionStatus {
  readonly subscription: Subscription;
  /** False when the topic was deleted (or re-created under a new id): nothing is delivered. */
  readonly topicExists: boolean;
  readonly partitions: readonly SubscriptionPartitionStatus[];
  readonly lag: number;
  readonly oldestUndeliveredAgeMs: number;
}

/** Per partition: committed offset, log end, lag, the oldest undelivered record's age, the lease. */
export async function describeSubscription(ctx: SluiceContext, name: string): Promise<SubscriptionStatus> {
  const subscription = await requireSubscription(ctx, name);
  const topic = await getTopic(ctx, subscription.topic);
  if (!topic || topic.id !== subscription.topicId) return { subscription, topicExists: false, partitions: [], lag: 0, oldestUndeliveredAgeMs: 0 };
  const leases = new Map((await listDeliveryLeases(ctx, name)).map((l) => [l.partition, l] as const));
  const now = ctx.now();
  const partitions = await inBatches(
    Array.from({ length: topic.partitions }, (_, p) => p),
    async (partition): Promise<SubscriptionPartitionStatus> => {
      const [committed, state] = await Promise.all([readCommittedPosition(ctx, subscription.group, subscription.topic, partition), readPartitionState(ctx, topic, partition)]);
      const logStartOffset = state?.logStartOffset ?? 0;
      const logEndOffset = state?.logEndOffset ?? 0;
      const next = Math.max(committed?.offset ?? logStartOffset, logStartOffset);
      const lag = Math.max(0, logEndOffset - next);
      const oldestUndeliveredAgeMs = lag > 0 ? await oldestAge(ctx, topic, partition, next, now) : 0;
      const lease: LeaseView | undefined = leases.get(partition);
      return {
        partition,
        committedOffset: committed?.offset ?? null,
        logStartOffset,
        logEndOffset,
        lag,
        oldestUndeliveredAgeMs,
        ...(lease ? { lease: { ...(lease.owner !== undefined ? { owner: lease.owner } : {}), epoch: lease.epoch, expiresAt: lease.expiresAt, active: isHeld(lease, now) } } : {}),
      };
    },
  );
  return {
    subscription,
    topicExists: true,
    partitions,
    lag: partitions.reduce((sum, p) => sum + p.lag, 0),
    oldestUndeliveredAgeMs: Math.max(0, ...partitions.map((p) => p.oldestUndeliveredAgeMs)),
  };
}

/** How old the record at `offset` is (0 if it went meanwhile). */
async function oldestAge(ctx: SluiceContext, topic: { name: string; id: string }, partition: number, offset: number, now: number): Promise<number> {
  try {
    const read = await readRecords(ctx, topic, partition, { offset, maxBytes: 1 });
    const first = read.records[0];
    return first ? Math.max(0, now - first.timestamp) : 0;
  } catch (e) {
    if (isSluiceError(e) && e.code === 'OFFSET_OUT_OF_RANGE') return 0;
    throw e;
  }
}
