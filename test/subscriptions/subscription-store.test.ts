// The subscription store against the emulators: creation commits each partition's starting offset
// in the subscription's own consumer group, a taken name or a missing topic changes nothing, the
// HTTPS signing key is returned once, describe reports lag, age and leases, delete removes the
// leases and the group.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { fetchCommittedOffsets } from '../../lib/groups/offsets.js';
import { describeGroup } from '../../lib/groups/describe.js';
import { createTopic, type TopicMetadata } from '../../lib/metadata/topics.js';
import { acquireDeliveryLease, listDeliveryLeases } from '../../lib/subscriptions/delivery-lease.js';
import {
  createSubscription,
  deleteSubscription,
  describeSubscription,
  getStoredSubscription,
  getSubscription,
  listSubscriptions,
  requireSubscription,
} from '../../lib/subscriptions/subscription-store.js';
import { createTestContext } from '../support/storage.js';
import { appendValues } from './support.js';

let ctx: SluiceContext;
let topic: TopicMetadata;
const lambda = { type: 'lambda', functionArn: 'arn:aws:lambda:us-east-1:123456789012:function:fn' } as const;

beforeAll(async () => {
  ctx = await createTestContext();
  topic = await createTopic(ctx, 'orders', 3);
  await appendValues(ctx, topic, 0, ['a', 'b', 'c'], 1_000);
  await appendValues(ctx, topic, 1, ['d'], 2_000);
  await appendValues(ctx, topic, 1, ['e', 'f'], 5_000);
});

async function committed(group: string) {
  return (await fetchCommittedOffsets(ctx, group)).map((o) => [o.partition, o.offset]);
}

describe('createSubscription', () => {
  it('LATEST commits the log end of every partition in the subscription group, which groups describe shows', async () => {
    const sub = await createSubscription(ctx, { name: 'latest', topic: 'orders', target: lambda });
    expect(sub).toMatchObject({ name: 'latest', topic: 'orders', topicId: topic.id, group: 'sluice-subscription.latest', batchSize: 100, startingPosition: 'LATEST' });
    expect(sub.signingSecret).toBeUndefined();
    expect(await committed(sub.group)).toEqual([[0, 3], [1, 3], [2, 0]]);
    const group = await describeGroup(ctx, sub.group);
    expect(group.state).toBe('Empty');
  });

  it('TRIM_HORIZON starts at the log start, AT_TIMESTAMP at the first record at or after the time', async () => {
    const horizon = await createSubscription(ctx, { name: 'horizon', topic: 'orders', target: lambda, startingPosition: 'TRIM_HORIZON' });
    expect(await committed(horizon.group)).toEqual([[0, 0], [1, 0], [2, 0]]);
    const at = await createSubscription(ctx, { name: 'at', topic: 'orders', target: lambda, startingPosition: 'AT_TIMESTAMP', startingPositionTimestamp: 2_000 });
    expect(await committed(at.group)).toEqual([[0, 3], [1, 0], [2, 0]]);
  });

  it('refuses a taken name, an unknown topic or dead-letter topic, and writes nothing', async () => {
    await expect(createSubscription(ctx, { name: 'latest', topic: 'orders', target: lambda, batchSize: 5 })).rejects.toMatchObject({ code: 'SUBSCRIPTION_ALREADY_EXISTS', message: "subscription 'latest' already exists" });
    expect((await requireSubscription(ctx, 'latest')).batchSize).toBe(100);
    await expect(createSubscription(ctx, { name: 'ghost', topic: 'nope', target: lambda })).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
    await expect(createSubscription(ctx, { name: 'ghost', topic: 'orders', target: lambda, onFailure: { type: 'topic', topic: 'dlq' } })).rejects.toMatchObject({
      code: 'UNKNOWN_TOPIC_OR_PARTITION',
      message: "topic 'dlq' does not exist",
    });
    await expect(createSubscription(ctx, { name: 'ghost', topic: 'orders', target: lambda, batchSize: 0 })).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
    expect(await getSubscription(ctx, 'ghost')).toBeUndefined();
    expect(await fetchCommittedOffsets(ctx, 'sluice-subscription.ghost')).toEqual([]);
  });

  it('returns an https target\'s signing key once: get, list and describe leave it out', async () => {
    const sub = await createSubscription(ctx, { name: 'hook', topic: 'orders', target: { type: 'https', url: 'https://hooks.example.com/in' } });
    expect(sub.signingSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await getStoredSubscription(ctx, 'hook'))?.signingSecret).toBe(sub.signingSecret);
    expect(await getSubscription(ctx, 'hook')).not.toHaveProperty('signingSecret');
    expect((await listSubscriptions(ctx)).find((s) => s.name === 'hook')).not.toHaveProperty('signingSecret');
    expect((await describeSubscription(ctx, 'hook')).subscription).not.toHaveProperty('signingSecret');
    const given = await createSubscription(ctx, { name: 'hook2', topic: 'orders', target: { type: 'https', url: 'https://hooks.example.com/in' }, signingSecret: 'my-own-secret-of-32-characters!!' });
    expect(given.signingSecret).toBe('my-own-secret-of-32-characters!!');
  });

  it('lists by name', async () => {
    expect((await listSubscriptions(ctx)).map((s) => s.name)).toEqual([...(await listSubscriptions(ctx)).map((s) => s.name)].sort());
    await expect(requireSubscription(ctx, 'missing')).rejects.toMatchObject({ code: 'SUBSCRIPTION_NOT_FOUND', message: "subscription 'missing' does not exist" });
  });
});

describe('describeSubscription', () => {
  it('reports per partition the committed offset, log end, lag, oldest undelivered age and the lease', async () => {
    await createSubscription(ctx, { name: 'described', topic: 'orders', target: lambda, startingPosition: 'TRIM_HORIZON' });
    await acquireDeliveryLease(ctx, 'described', 1, 'poller-1', 60_000);
    const status = await describeSubscription(ctx, 'described');
    const now = ctx.now();
    expect(status.topicExists).toBe(true);
    expect(status.lag).toBe(6);
    expect(status.partitions.map((p) => [p.partition, p.committedOffset, p.logEndOffset, p.lag])).toEqual([
      [0, 0, 3, 3],
      [1, 0, 3, 3],
      [2, 0, 0, 0],
    ]);
    expect(status.partitions[0].oldestUndeliveredAgeMs).toBeGreaterThanOrEqual(now - 1_000 - 5_000);
    expect(status.partitions[1].oldestUndeliveredAgeMs).toBeLessThanOrEqual(now - 2_000);
    expect(status.partitions[1].oldestUndeliveredAgeMs).toBeGreaterThan(now - 2_000 - 60_000);
    expect(status.partitions[2].oldestUndeliveredAgeMs).toBe(0);
    expect(status.oldestUndeliveredAgeMs).toBe(status.partitions[0].oldestUndeliveredAgeMs);
    expect(status.partitions[1].lease).toMatchObject({ owner: 'poller-1', epoch: 1, active: true });
    expect(status.partitions[0].lease).toBeUndefined();
    await expect(describeSubscription(ctx, 'missing')).rejects.toMatchObject({ code: 'SUBSCRIPTION_NOT_FOUND' });
  });
});

describe('deleteSubscription', () => {
  it('removes the subscription, its leases and its group; the name can be used again afresh', async () => {
    const sub = await createSubscription(ctx, { name: 'doomed', topic: 'orders', target: lambda, startingPosition: 'TRIM_HORIZON' });
    await acquireDeliveryLease(ctx, 'doomed', 0, 'poller-1', 60_000);
    await deleteSubscription(ctx, 'doomed');
    expect(await getSubscription(ctx, 'doomed')).toBeUndefined();
    expect(await listDeliveryLeases(ctx, 'doomed')).toEqual([]);
    expect(await fetchCommittedOffsets(ctx, sub.group)).toEqual([]);
    await expect(describeGroup(ctx, sub.group)).rejects.toMatchObject({ code: 'GROUP_ID_NOT_FOUND' });
    await expect(deleteSubscription(ctx, 'doomed')).rejects.toMatchObject({ code: 'SUBSCRIPTION_NOT_FOUND' });
    const again = await createSubscription(ctx, { name: 'doomed', topic: 'orders', target: lambda });
    expect(await committed(again.group)).toEqual([[0, 3], [1, 3], [2, 0]]);
  });
});
