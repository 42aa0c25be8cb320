// Subscription management (push delivery, lib/subscriptions): the event source mappings of Sluice.
//   POST   /v1/subscriptions          {name, topic, target, ...options}  -> 201 the subscription
//                                     (an HTTPS target's signingSecret is in this answer only)
//   GET    /v1/subscriptions                                             -> {subscriptions: [...]}
//   GET    /v1/subscriptions/{name}                                      -> the subscription + per-partition status
//   DELETE /v1/subscriptions/{name}                                      -> 204; its group and leases go too
//
// The zod schemas check shapes and types (INVALID_REQUEST); the option values are checked by
// resolveSubscriptionInput (INVALID_CONFIG, as Kafka answers a bad config value) before anything
// is written, so a refused request changes nothing.
import * as z from 'zod';
import {
  createSubscription,
  deleteSubscription,
  describeSubscription,
  listSubscriptions,
} from '../subscriptions/subscription-store.js';
import { type Subscription, validateSubscriptionName } from '../subscriptions/subscription.js';
import type { Operation } from './operation.js';
import { parseInput } from './validation.js';

const anyInt = z.int().describe('An integer (ranges are checked as the option names them: INVALID_CONFIG)');

const target = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('lambda'), functionArn: z.string().describe('A Lambda function name or ARN, optionally with a version or alias') }),
    z.strictObject({ type: z.literal('https'), url: z.string().describe('https:// (http:// only on a loopback host); requests are signed with HMAC-SHA256') }),
  ])
  .describe('Where batches are delivered');

const onFailure = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('sqs'), queueArn: z.string() }),
    z.strictObject({ type: z.literal('sns'), topicArn: z.string() }),
    z.strictObject({ type: z.literal('topic'), topic: z.string().describe('A Sluice topic (dead-letter topic)') }),
  ])
  .describe("Where the metadata of records that could not be delivered goes (Lambda's DestinationConfig.OnFailure)");

const startingPosition = z.enum(['TRIM_HORIZON', 'LATEST', 'AT_TIMESTAMP']);

/** The options, as Lambda's event source mappings name them (times in ms). */
const options = {
  batchSize: anyInt.optional().describe('Records per batch at most, 1 to 10000 (default 100)'),
  maximumBatchingWindowMs: anyInt.optional().describe('Gather records this long before delivering a smaller batch, 0 to 300000 (default 0)'),
  startingPosition: startingPosition.optional().describe('Where delivery starts (default LATEST)'),
  startingPositionTimestamp: anyInt.optional().describe('ms since the epoch; for (and only for) AT_TIMESTAMP'),
  bisectBatchOnFunctionError: z.boolean().optional().describe('Split a failing batch in two and retry the halves (default false)'),
  functionResponseTypes: z.array(z.literal('ReportBatchItemFailures')).optional().describe('["ReportBatchItemFailures"]: partial batch responses (default [])'),
  maximumRetryAttempts: anyInt.optional().describe('Retries before a batch goes to onFailure, 0 to 10000, -1 forever (default -1)'),
  maximumRecordAgeMs: anyInt.optional().describe('Older records go to onFailure, 60000 to 604800000, -1 forever (default -1)'),
  onFailure: onFailure.optional(),
  parallelizationFactor: anyInt.optional().describe('Batches in flight per partition, order kept per key, 1 to 10 (default 1)'),
  enabled: z.boolean().optional().describe('A disabled subscription delivers nothing and keeps its offsets (default true)'),
};

const subscriptionName = z.string().describe("1 to 249 of ASCII letters, digits, '.', '_' and '-'");

const createSchema = z.strictObject({
  name: subscriptionName,
  topic: z.string(),
  target,
  signingSecret: z.string().optional().describe('HTTPS targets: the HMAC-SHA256 key, 16 to 256 characters (default: generated and returned once)'),
  ...options,
});
const nameOnly = z.strictObject({ name: subscriptionName });

// Answers (docs/openapi.json; test/api/openapi.test.ts checks real answers against them).
const subscriptionFields = {
  name: z.string(),
  topic: z.string(),
  topicId: z.string().describe('The topic incarnation subscribed to: a re-created topic of the same name is not delivered'),
  group: z.string().describe('The consumer group holding the committed offsets: sluice-subscription.<name>'),
  target,
  batchSize: z.int(),
  maximumBatchingWindowMs: z.int(),
  startingPosition,
  startingPositionTimestamp: z.int().optional(),
  bisectBatchOnFunctionError: z.boolean(),
  functionResponseTypes: z.array(z.literal('ReportBatchItemFailures')),
  maximumRetryAttempts: z.int(),
  maximumRecordAgeMs: z.int(),
  onFailure: onFailure.optional(),
  parallelizationFactor: z.int(),
  enabled: z.boolean(),
  createdAt: z.int().describe('ms since the epoch'),
};
const createdSubscription = z.strictObject({
  ...subscriptionFields,
  signingSecret: z.string().optional().describe('HTTPS targets only: the signing key, returned by this answer only'),
});
const subscriptionListing = z.strictObject({ subscriptions: z.array(z.strictObject(subscriptionFields)) });
const subscriptionDescription = z.strictObject({
  ...subscriptionFields,
  topicExists: z.boolean().describe('False when the topic was deleted or re-created: nothing is delivered'),
  lag: z.int().describe('Undelivered records over all partitions'),
  oldestUndeliveredAgeMs: z.int().describe('Age of the oldest undelivered record (IteratorAge), 0 when caught up'),
  partitions: z.array(
    z.strictObject({
      partition: z.int(),
      committedOffset: z.int().nullable().describe('The next offset to deliver; null before the first commit'),
      logStartOffset: z.int(),
      logEndOffset: z.int(),
      lag: z.int(),
      oldestUndeliveredAgeMs: z.int(),
      lease: z
        .strictObject({
          owner: z.string().optional(),
          epoch: z.int(),
          expiresAt: z.int().describe('ms since the epoch'),
          active: z.boolean(),
        })
        .optional()
        .describe('The delivery lease: the poller delivering this partition while active'),
    }),
  ),
});

/** A subscription as answered: fields in a stable order, absent options left out. */
function view(sub: Subscription): Record<string, unknown> {
  return Object.fromEntries(Object.keys(createdSubscription.shape).filter((k) => (sub as unknown as Record<string, unknown>)[k] !== undefined).map((k) => [k, (sub as unknown as Record<string, unknown>)[k]]));
}

const createSubscriptionOperation: Operation = {
  name: 'createSubscription',
  method: 'POST',
  path: '/v1/subscriptions',
  summary: 'Create a subscription: push delivery of a topic to a Lambda function or an HTTPS endpoint (an event source mapping)',
  input: createSchema,
  response: { status: 201, body: createdSubscription },
  async run(ctx, raw) {
    const input = parseInput(createSchema, raw);
    const sub = await createSubscription(ctx, input);
    return { status: 201, body: view(sub) };
  },
};

const listSubscriptionsOperation: Operation = {
  name: 'listSubscriptions',
  method: 'GET',
  path: '/v1/subscriptions',
  summary: 'List the subscriptions',
  input: z.strictObject({}),
  response: { status: 200, body: subscriptionListing },
  async run(ctx, raw) {
    parseInput(z.strictObject({}), raw);
    return { status: 200, body: { subscriptions: (await listSubscriptions(ctx)).map(view) } };
  },
};

const describeSubscriptionOperation: Operation = {
  name: 'describeSubscription',
  method: 'GET',
  path: '/v1/subscriptions/{name}',
  summary: "A subscription's configuration and, per partition, its committed offset, lag, oldest undelivered record's age and delivery lease",
  input: nameOnly,
  response: { status: 200, body: subscriptionDescription },
  async run(ctx, raw) {
    const { name } = parseInput(nameOnly, raw);
    validateSubscriptionName(name);
    const status = await describeSubscription(ctx, name);
    return {
      status: 200,
      body: {
        ...view(status.subscription),
        topicExists: status.topicExists,
        lag: status.lag,
        oldestUndeliveredAgeMs: status.oldestUndeliveredAgeMs,
        partitions: status.partitions,
      },
    };
  },
};

const deleteSubscriptionOperation: Operation = {
  name: 'deleteSubscription',
  method: 'DELETE',
  path: '/v1/subscriptions/{name}',
  summary: 'Delete a subscription, its delivery leases and its consumer group (delivery stops)',
  input: nameOnly,
  response: { status: 204 },
  async run(ctx, raw) {
    const { name } = parseInput(nameOnly, raw);
    validateSubscriptionName(name);
    await deleteSubscription(ctx, name);
    return { status: 204 };
  },
};

export const subscriptionOperations: readonly Operation[] = [
  createSubscriptionOperation,
  listSubscriptionsOperation,
  describeSubscriptionOperation,
  deleteSubscriptionOperation,
];
