// Admin's subscription calls against a local Sluice: createSubscription / listSubscriptions /
// describeSubscription / deleteSubscription, and their refusals as SluiceClientErrors with the
// contract's codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sluice } from '../../lib/client/sluice.js';
import { startHarness, topicName, type Harness } from './harness.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness.close());

const FN = 'arn:aws:lambda:us-east-1:123456789012:function:handler';

describe('admin subscriptions', () => {
  it('create, list, describe with per-partition lag, delete', async () => {
    const admin = new Sluice({ endpoint: harness.url }).admin();
    const [topic, name] = [topicName(), topicName('sub')];
    await admin.createTopics({ topics: [{ topic, numPartitions: 3 }] });
    await new Sluice({ endpoint: harness.url }).producer().send({ topic, messages: [{ value: 'a', partition: 2 }, { value: 'b', partition: 2 }] });

    const created = await admin.createSubscription({
      name,
      topic,
      target: { type: 'lambda', functionArn: FN },
      startingPosition: 'TRIM_HORIZON',
      batchSize: 25,
      functionResponseTypes: ['ReportBatchItemFailures'],
      enabled: false, // nothing to deliver to in this test
    });
    expect(created).toMatchObject({ name, topic, batchSize: 25, startingPosition: 'TRIM_HORIZON', enabled: false, group: `sluice-subscription.${name}` });

    expect((await admin.listSubscriptions()).find((s) => s.name === name)).toEqual(created);
    const described = await admin.describeSubscription(name);
    expect(described.lag).toBe(2);
    expect(described.partitions.map((p) => [p.partition, p.committedOffset, p.logEndOffset, p.lag])).toEqual([
      [0, 0, 0, 0],
      [1, 0, 0, 0],
      [2, 0, 2, 2],
    ]);

    await admin.deleteSubscription(name);
    expect((await admin.listSubscriptions()).map((s) => s.name)).not.toContain(name);
  });

  it('rejects with the contract codes', async () => {
    const admin = new Sluice({ endpoint: harness.url }).admin();
    const topic = topicName();
    await admin.createTopics({ topics: [{ topic }] });
    const spec = { name: topicName('sub'), topic, target: { type: 'lambda', functionArn: FN } as const, enabled: false };
    await admin.createSubscription(spec);
    await expect(admin.createSubscription(spec)).rejects.toMatchObject({ code: 'SUBSCRIPTION_ALREADY_EXISTS', retriable: false });
    await expect(admin.createSubscription({ ...spec, name: topicName('sub'), batchSize: 0 })).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
    await expect(admin.createSubscription({ ...spec, name: topicName('sub'), topic: topicName('missing') })).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
    await expect(admin.describeSubscription(topicName('nope'))).rejects.toMatchObject({ code: 'SUBSCRIPTION_NOT_FOUND' });
    await expect(admin.deleteSubscription(topicName('nope'))).rejects.toMatchObject({ code: 'SUBSCRIPTION_NOT_FOUND' });
  });
});
