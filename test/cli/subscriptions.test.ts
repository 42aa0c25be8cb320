// lib/cli/subscriptions.ts in process against a local Sluice: create with every flag, list,
// describe's per-partition table, delete, and the usage refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequest, subscriptionsCommand } from '../../lib/cli/subscriptions.js';
import { Sluice } from '../../lib/client/sluice.js';
import { startHarness, topicName, type Harness } from '../client/harness.js';
import { runCli } from './support.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness.close());
const run = (...args: string[]) => runCli(subscriptionsCommand, harness.url, ['subscriptions', ...args]);

const FN = 'arn:aws:lambda:us-east-1:123456789012:function:orders-handler';

describe('sluice subscriptions', () => {
  it('create with every option, list, describe (lag and iterator age per partition), delete', async () => {
    const sluice = new Sluice({ endpoint: harness.url });
    const [topic, dlq, name] = [topicName(), topicName('dlq'), topicName('sub')];
    await sluice.admin().createTopics({ topics: [{ topic, numPartitions: 2 }, { topic: dlq }] });
    await sluice.producer().send({ topic, messages: [{ value: 'a', partition: 1, timestamp: String(Date.now() - 3000) }] });
    const created = await run(
      'create', name, '--topic', topic, '--lambda', FN, '--batch-size', '100', '--batching-window-ms', '500',
      '--starting-position', 'TRIM_HORIZON', '--bisect-on-error', '--report-batch-item-failures', '--maximum-retry-attempts', '3',
      '--maximum-record-age-ms', '60000', '--on-failure-topic', dlq, '--parallelization-factor', '2', '--disabled',
    );
    expect(created.err).toBe('');
    expect(created.out).toBe(`Created subscription ${name}: topic ${topic} -> lambda:${FN} (group sluice-subscription.${name}).\n`);
    expect(await sluice.admin().describeSubscription(name)).toMatchObject({
      batchSize: 100, maximumBatchingWindowMs: 500, startingPosition: 'TRIM_HORIZON', bisectBatchOnFunctionError: true,
      functionResponseTypes: ['ReportBatchItemFailures'], maximumRetryAttempts: 3, maximumRecordAgeMs: 60000,
      onFailure: { type: 'topic', topic: dlq }, parallelizationFactor: 2, enabled: false,
    });

    const listed = (await run('list')).out.split('\n');
    expect(listed[0]).toMatch(/^SUBSCRIPTION\s+TOPIC\s+TARGET\s+ENABLED\s+BATCH-SIZE\s+STARTING-POSITION\s+ON-FAILURE$/);
    expect(listed.find((l) => l.startsWith(name))).toMatch(new RegExp(`^${name}\\s+${topic}\\s+lambda:\\S+\\s+false\\s+100\\s+TRIM_HORIZON\\s+topic:${dlq}$`));

    const described = (await run('describe', name)).out.split('\n');
    expect(described[0]).toContain(`Subscription: ${name}\tTopic: ${topic}\tTarget: lambda:${FN}\tGroup: sluice-subscription.${name}\tEnabled: false`);
    expect(described[1]).toContain('batchSize=100,maximumBatchingWindowMs=500,startingPosition=TRIM_HORIZON,bisectBatchOnFunctionError=true');
    expect(described[2]).toMatch(/^Lag: 1\tIteratorAgeMs: \d+$/);
    expect(Number(described[2].split('IteratorAgeMs: ')[1])).toBeGreaterThanOrEqual(3000);
    expect(described[4]).toMatch(/^PARTITION\s+COMMITTED-OFFSET\s+LOG-END-OFFSET\s+LAG\s+ITERATOR-AGE-MS\s+LEASE-OWNER$/);
    expect(described[5]).toMatch(/^0\s+0\s+0\s+0\s+0\s+-$/);
    expect(described[6]).toMatch(/^1\s+0\s+1\s+1\s+\d{4,}\s+-$/);

    expect((await run('delete', name)).out).toBe(`Deleted subscription ${name}.\n`);
    expect((await run('list')).out).not.toContain(name);
  });

  it('prints an HTTPS target\'s signing secret once', async () => {
    const topic = topicName();
    await new Sluice({ endpoint: harness.url }).admin().createTopics({ topics: [{ topic }] });
    const out = (await run('create', topicName('hook'), '--topic', topic, '--url', 'http://127.0.0.1:9/hook', '--disabled')).out;
    expect(out).toMatch(/^Signing secret \(shown only now; .*\): [A-Za-z0-9_-]{43}$/m);
  });

  it('turns flags into the request and refuses contradictory ones before calling', () => {
    expect(createRequest('s', { topic: 't', lambda: 'fn', startingTimestamp: '2024-01-31T12:00:00Z' })).toEqual({
      name: 's', topic: 't', target: { type: 'lambda', functionArn: 'fn' }, startingPosition: 'AT_TIMESTAMP', startingPositionTimestamp: Date.parse('2024-01-31T12:00:00Z'),
    });
    expect(createRequest('s', { topic: 't', url: 'https://x', maximumRetryAttempts: -1, onFailureSqs: 'arn:q' })).toEqual({
      name: 's', topic: 't', target: { type: 'https', url: 'https://x' }, maximumRetryAttempts: -1, onFailure: { type: 'sqs', queueArn: 'arn:q' },
    });
    expect(() => createRequest('s', { topic: 't' })).toThrow(/exactly one target/);
    expect(() => createRequest('s', { topic: 't', lambda: 'f', url: 'https://x' })).toThrow(/exactly one target/);
    expect(() => createRequest('s', { topic: 't', lambda: 'f', onFailureTopic: 'a', onFailureSns: 'b' })).toThrow(/at most one of/);
    expect(() => createRequest('s', { topic: 't', lambda: 'f', startingPosition: 'EARLIEST' })).toThrow(/one of TRIM_HORIZON, LATEST, AT_TIMESTAMP, got 'EARLIEST'/);
  });

  it('rejects with the service refusal (main.ts prints it as error: CODE: message)', async () => {
    await expect(run('describe', topicName('nope'))).rejects.toMatchObject({ code: 'SUBSCRIPTION_NOT_FOUND' });
    await expect(run('create', 'x', '--topic', topicName('missing'), '--lambda', FN, '--maximum-retry-attempts', '-1')).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
  });
});
