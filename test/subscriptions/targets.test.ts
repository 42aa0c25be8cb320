// The targets and the onFailure destinations over their real wire protocols (local endpoints,
// wire-endpoints.ts): a Lambda subscription delivered through Lambda's Invoke API with partial
// batch responses and FunctionError, SQS SendMessage and SNS Publish of failure messages; the
// HTTPS signature's checks; the parsing of partial batch responses.
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { fetchCommittedOffsets } from '../../lib/groups/offsets.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { firstFailedOffset } from '../../lib/subscriptions/delivery-event.js';
import { startDispatcher } from '../../lib/subscriptions/dispatcher.js';
import { defaultFailureSender, failureRecord, queueUrlOf } from '../../lib/subscriptions/failure-destination.js';
import { createSubscription } from '../../lib/subscriptions/subscription-store.js';
import { signBody, verifySignature } from '../../lib/subscriptions/targets/signature.js';
import { createTestContext } from '../support/storage.js';
import { appendValues, waitFor } from './support.js';
import { type WireEndpoint, lambdaEndpoint, snsEndpoint, sqsEndpoint } from './wire-endpoints.js';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };
let ctx: SluiceContext;
const endpoints: WireEndpoint[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await Promise.all(endpoints.map((e) => e.close()));
});

describe('Lambda targets', () => {
  it('invoke the function with the event (RequestResponse); a FunctionError is retried, partial responses honoured', async () => {
    const topic = await createTopic(ctx, 'to-lambda', 1);
    await appendValues(ctx, topic, 0, ['a', 'b', 'c', 'd']);
    let calls = 0;
    const lambda = await lambdaEndpoint((name, event) => {
      calls++;
      const offsets = Object.values((event as { records: Record<string, { offset: number }[]> }).records).flat().map((r) => r.offset);
      if (calls === 1) return { result: { errorMessage: 'boom', errorType: 'Error' }, error: true };
      if (calls === 2) return { result: { batchItemFailures: [{ itemIdentifier: `0@${offsets[2]}` }] } };
      return { result: { name, offsets } };
    });
    endpoints.push(lambda);
    const sub = await createSubscription(ctx, {
      name: 'to-lambda',
      topic: 'to-lambda',
      target: { type: 'lambda', functionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:consumer' },
      startingPosition: 'TRIM_HORIZON',
      functionResponseTypes: ['ReportBatchItemFailures'],
    });
    const regions: (string | undefined)[] = [];
    const client = new LambdaClient({ endpoint: lambda.url, region: 'eu-west-1', credentials });
    const d = startDispatcher(ctx, { pollIntervalMs: 20, refreshIntervalMs: 100, backoff: { baseMs: 10, maxMs: 20 }, lambdaClient: (region) => (regions.push(region), client), subscriptions: ['to-lambda'] });
    try {
      await waitFor(async () => (await fetchCommittedOffsets(ctx, sub.group))[0]?.offset === 4, 'the commit at the log end');
    } finally {
      await d.stop();
    }
    expect(regions[0]).toBe('eu-west-1');
    const invoked = lambda.requests.map((r) => ({ path: decodeURIComponent(r.path), type: r.headers['x-amz-invocation-type'], offsets: Object.values(JSON.parse(r.body).records as Record<string, { offset: number }[]>).flat().map((x) => x.offset) }));
    expect(invoked).toEqual([
      { path: '/2015-03-31/functions/arn:aws:lambda:eu-west-1:123456789012:function:consumer/invocations', type: 'RequestResponse', offsets: [0, 1, 2, 3] },
      { path: expect.any(String), type: 'RequestResponse', offsets: [0, 1, 2, 3] },
      { path: expect.any(String), type: 'RequestResponse', offsets: [2, 3] },
    ]);
    expect(lambda.requests[0].headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/lambda\/aws4_request/);
  });
});

describe('onFailure destinations', () => {
  const message = failureRecord('subs', 'orders', 3, [{ offset: 7, timestamp: 1000, key: null, value: null, headers: [] }], 'RetryAttemptsExhausted', 4, 'HTTP 500', 5000);

  it('send the failure message to an SQS queue (SendMessage) and an SNS topic (Publish)', async () => {
    const sqs = await sqsEndpoint();
    const sns = await snsEndpoint();
    endpoints.push(sqs, sns);
    const sender = defaultFailureSender(ctx, {
      sqsClient: (region) => new SQSClient({ endpoint: sqs.url, region, credentials }),
      snsClient: (region) => new SNSClient({ endpoint: sns.url, region, credentials }),
    });
    await sender.send({ type: 'sqs', queueArn: 'arn:aws:sqs:eu-west-1:123456789012:dead-letters' }, message);
    await sender.send({ type: 'sns', topicArn: 'arn:aws:sns:us-east-2:123456789012:failures' }, message);
    const sent = JSON.parse(sqs.requests[0].body);
    expect(sqs.requests[0].headers['x-amz-target']).toBe('AmazonSQS.SendMessage');
    expect(sent.QueueUrl).toBe('https://sqs.eu-west-1.amazonaws.com/123456789012/dead-letters');
    expect(JSON.parse(sent.MessageBody)).toEqual(message);
    const published = new URLSearchParams(sns.requests[0].body);
    expect(published.get('Action')).toBe('Publish');
    expect(published.get('TopicArn')).toBe('arn:aws:sns:us-east-2:123456789012:failures');
    expect(JSON.parse(published.get('Message')!)).toEqual(message);
    expect(sns.requests[0].headers.authorization).toContain('/us-east-2/sns/aws4_request');
    expect(message.KafkaBatchInfo).toMatchObject({ topic: 'orders', partition: 3, topicPartition: 'orders-3', firstOffset: 7, lastOffset: 7, offsets: [7] });
  });

  it('names queue URLs from ARNs', () => {
    expect(queueUrlOf('arn:aws:sqs:us-east-1:111122223333:q.fifo')).toBe('https://sqs.us-east-1.amazonaws.com/111122223333/q.fifo');
    expect(queueUrlOf('arn:aws-cn:sqs:cn-north-1:111122223333:q')).toBe('https://sqs.cn-north-1.amazonaws.com.cn/111122223333/q');
  });
});

describe('the HTTPS signature', () => {
  const secret = 'a-signing-secret-of-enough-length';
  const body = '{"records":{}}';
  const now = 1_764_500_000_000;

  it('verifies over the exact body, under the secret, within 5 minutes', () => {
    const header = signBody(secret, body, now);
    expect(header).toMatch(/^t=1764500000,v1=[0-9a-f]{64}$/);
    expect(verifySignature(secret, header, body, now + 299_000)).toBe(true);
    expect(verifySignature(secret, header, Buffer.from(body), now)).toBe(true);
    expect(verifySignature(secret, header, body, now + 301_000)).toBe(false);
    expect(verifySignature(secret, header, `${body} `, now)).toBe(false);
    expect(verifySignature(`${secret}x`, header, body, now)).toBe(false);
    expect(verifySignature(secret, undefined, body, now)).toBe(false);
    expect(verifySignature(secret, 't=abc,v1=00', body, now)).toBe(false);
    expect(verifySignature(secret, header.replace(/t=\d+/, `t=${Math.floor(now / 1000) + 1}`), body, now)).toBe(false);
  });
});

describe('partial batch responses', () => {
  const offsets = new Set([10, 11, 12]);
  it.each([
    [undefined, undefined],
    [{}, undefined],
    [{ batchItemFailures: [] }, undefined],
    [{ batchItemFailures: null }, undefined],
    [{ batchItemFailures: [{ itemIdentifier: '2@12' }, { itemIdentifier: '2@11' }] }, 11],
    [{ batchItemFailures: [{ itemIdentifier: '11' }] }, 11],
    [{ batchItemFailures: [{ itemIdentifier: 12 }] }, 12],
    [{ batchItemFailures: [{ itemIdentifier: '3@11' }] }, 'invalid'],
    [{ batchItemFailures: [{ itemIdentifier: '2@13' }] }, 'invalid'],
    [{ batchItemFailures: [{ itemIdentifier: '' }] }, 'invalid'],
    [{ batchItemFailures: [{}] }, 'invalid'],
    [{ batchItemFailures: 'all' }, 'invalid'],
  ])('%j → %s', (response, expected) => {
    expect(firstFailedOffset(response, 2, offsets)).toBe(expected);
  });
});
