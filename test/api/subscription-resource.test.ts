// Custom::SluiceSubscription (lib/api/subscription-resource.ts) as CloudFormation drives it: the
// admin function's handler gets Create/Update/Delete requests and PUTs its answer to the
// request's ResponseURL (here a local HTTP server standing in for S3's presigned URL). Checked:
// the answers, and the subscriptions in the store after each request.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { createLambdaHandler } from '../../lib/api/lambda-adapter.js';
import { functionOperations } from '../../lib/api/operations.js';
import { type CustomResourceAnswer, SUBSCRIPTION_RESOURCE_TYPE, withSubscriptionResources } from '../../lib/api/subscription-resource.js';
import { getSubscription, listSubscriptions } from '../../lib/subscriptions/subscription-store.js';
import { createTestContext } from '../support/storage.js';

interface Received {
  readonly contentType: string | undefined;
  readonly answer: CustomResourceAnswer;
}

let server: Server;
let responseUrl: string;
const received: Received[] = [];
let ctx: SluiceContext;
let handler: (event: unknown) => Promise<unknown>;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      expect(req.method).toBe('PUT');
      received.push({ contentType: req.headers['content-type'], answer: JSON.parse(body) });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  responseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cfn-response?X-Amz-Signature=abc`;
  ctx = await createTestContext();
  const admin = createLambdaHandler(functionOperations.admin, { context: () => ctx });
  handler = withSubscriptionResources(admin) as (event: unknown) => Promise<unknown>;
  await admin({ op: 'createTopic', name: 'orders', partitions: 2 });
  await admin({ op: 'createTopic', name: 'audit', partitions: 1 });
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const FN = 'arn:aws:lambda:us-east-1:123456789012:function:orders-handler';
let request = 0;

function event(
  type: 'Create' | 'Update' | 'Delete',
  subscription: Record<string, unknown>,
  extra: { physicalId?: string; old?: Record<string, unknown> } = {},
): CloudFormationCustomResourceEvent {
  const common = {
    ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:sluice-admin',
    ResponseURL: responseUrl,
    StackId: 'arn:aws:cloudformation:us-east-1:123456789012:stack/Sluice/abc',
    RequestId: `request-${++request}`,
    LogicalResourceId: 'OrdersToFn',
    ResourceType: SUBSCRIPTION_RESOURCE_TYPE,
    ResourceProperties: { ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:sluice-admin', Subscription: JSON.stringify(subscription) },
  };
  if (type === 'Create') return { ...common, RequestType: 'Create' };
  if (type === 'Update') {
    return { ...common, RequestType: 'Update', PhysicalResourceId: extra.physicalId!, OldResourceProperties: { ServiceToken: common.ServiceToken, Subscription: JSON.stringify(extra.old ?? {}) } };
  }
  return { ...common, RequestType: 'Delete', PhysicalResourceId: extra.physicalId! };
}

/** Sends one request; resolves with the answer the response URL received for it. */
async function send(e: CloudFormationCustomResourceEvent): Promise<CustomResourceAnswer> {
  const before = received.length;
  await handler(e);
  expect(received.length).toBe(before + 1);
  const { contentType, answer } = received[before];
  expect(contentType ?? '').toBe(''); // as cfn-response: the presigned URL is signed without one
  expect(answer).toMatchObject({ StackId: e.StackId, RequestId: e.RequestId, LogicalResourceId: e.LogicalResourceId });
  return answer;
}

describe('Custom::SluiceSubscription', () => {
  const spec = { name: 'orders-to-fn', topic: 'orders', target: { type: 'lambda', functionArn: FN }, batchSize: 50 };

  it('Create creates the subscription and answers its name as the physical id', async () => {
    const answer = await send(event('Create', spec));
    expect(answer).toMatchObject({
      Status: 'SUCCESS',
      PhysicalResourceId: 'orders-to-fn',
      Data: { Name: 'orders-to-fn', Group: 'sluice-subscription.orders-to-fn', Topic: 'orders' },
    });
    expect(await getSubscription(ctx, 'orders-to-fn')).toMatchObject({ topic: 'orders', batchSize: 50 });
  });

  it('Update with the same name replaces the subscription with the new options', async () => {
    const changed = { ...spec, batchSize: 200, bisectBatchOnFunctionError: true };
    const answer = await send(event('Update', changed, { physicalId: 'orders-to-fn', old: spec }));
    expect(answer).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'orders-to-fn' });
    expect(await getSubscription(ctx, 'orders-to-fn')).toMatchObject({ batchSize: 200, bisectBatchOnFunctionError: true });
  });

  it('Update to a new name creates it; CloudFormation\'s Delete of the old physical id then removes the old one', async () => {
    const renamed = { ...spec, name: 'orders-v2' };
    const answer = await send(event('Update', renamed, { physicalId: 'orders-to-fn', old: spec }));
    expect(answer).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'orders-v2' });
    expect((await listSubscriptions(ctx)).map((s) => s.name)).toEqual(['orders-to-fn', 'orders-v2']);
    expect(await send(event('Delete', spec, { physicalId: 'orders-to-fn' }))).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'orders-to-fn' });
    expect((await listSubscriptions(ctx)).map((s) => s.name)).toEqual(['orders-v2']);
  });

  it('a failed Update answers FAILED with the reason and keeps the old physical id', async () => {
    const bad = { ...spec, name: 'orders-v3', batchSize: 0 };
    const answer = await send(event('Update', bad, { physicalId: 'orders-v2', old: { ...spec, name: 'orders-v2' } }));
    expect(answer).toMatchObject({ Status: 'FAILED', PhysicalResourceId: 'orders-v2' });
    expect(answer.Reason).toMatch(/^createSubscription: INVALID_CONFIG: batchSize must be an integer from 1 to 10000/);
    expect((await listSubscriptions(ctx)).map((s) => s.name)).toEqual(['orders-v2']);
  });

  it('a failed Create answers FAILED with a physical id that names no subscription, so the rollback Delete removes nothing', async () => {
    // The name is taken (by orders-v2's creator): the stack must not delete it on rollback.
    const answer = await send(event('Create', { ...spec, name: 'orders-v2' }));
    expect(answer.Status).toBe('FAILED');
    expect(answer.Reason).toMatch(/SUBSCRIPTION_ALREADY_EXISTS/);
    expect(answer.PhysicalResourceId).toMatch(/^failed:request-\d+$/);
    expect(await send(event('Delete', { ...spec, name: 'orders-v2' }, { physicalId: answer.PhysicalResourceId }))).toMatchObject({ Status: 'SUCCESS' });
    expect((await listSubscriptions(ctx)).map((s) => s.name)).toEqual(['orders-v2']);

    const missingTopic = await send(event('Create', { ...spec, name: 'nowhere', topic: 'missing' }));
    expect(missingTopic).toMatchObject({ Status: 'FAILED' });
    expect(missingTopic.Reason).toMatch(/UNKNOWN_TOPIC_OR_PARTITION/);
  });

  it('Delete removes the subscription and succeeds again when it is already gone', async () => {
    expect(await send(event('Delete', spec, { physicalId: 'orders-v2' }))).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'orders-v2' });
    expect(await listSubscriptions(ctx)).toEqual([]);
    expect(await send(event('Delete', spec, { physicalId: 'orders-v2' }))).toMatchObject({ Status: 'SUCCESS' });
  });

  it('answers FAILED for a property that is not the subscription JSON', async () => {
    const e = event('Create', spec);
    const answer = await send({ ...e, ResourceProperties: { ServiceToken: e.ServiceToken, Subscription: '{not json' } });
    expect(answer).toMatchObject({ Status: 'FAILED', Reason: expect.stringMatching(/not JSON/) });
  });

  it('leaves every other event to the operations: direct invoke still works', async () => {
    const reply = (await handler({ op: 'listSubscriptions' })) as { status: number; body: unknown };
    expect(reply).toEqual({ status: 200, body: { subscriptions: [] } });
  });
});
