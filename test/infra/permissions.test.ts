// Every operation of the operation table, run through its own function's handler on the emulators
// with every AWS SDK call recorded, and then checked against that function's synthesized IAM
// policy: each recorded call's IAM action must be allowed. The emulators enforce no IAM, so this
// is what catches a missing permission (the groups function lacked s3:GetObject, which
// resetOffsets {timestamp} needs, and failed only in AWS). Retention's maintenance pass is walked
// too, and one run of the subscriptions poller against the poller of a stack with a subscription.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { handleInvoke } from '../../lib/api/router.js';
import { allOperations, functionOperations, type FunctionName } from '../../lib/api/operations.js';
import { runMaintenance } from '../../lib/log/maintenance.js';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { runDispatcherFor, type DispatchReport } from '../../lib/subscriptions/dispatcher.js';
import { SLUICE_HANDLER_NAMES, type SluiceHandlerName } from '../../infra/routes.js';
import { SluiceStack } from '../../infra/sluice-stack.js';
import { createTestContext } from '../support/storage.js';
import { TargetServer } from '../subscriptions/support.js';
import { functionIds, roleActions, roleOfFunction, synthesize } from './synth.js';

interface Recorded {
  readonly fn: SluiceHandlerName;
  readonly operation: string;
  readonly client: 's3' | 'ddb';
  readonly command: string;
  readonly input: Record<string, unknown>;
}

const S3_ACTIONS: Record<string, string[]> = {
  PutObject: ['s3:PutObject'],
  GetObject: ['s3:GetObject'],
  HeadObject: ['s3:GetObject'],
  ListObjectsV2: ['s3:ListBucket'],
  ListObjects: ['s3:ListBucket'],
  DeleteObject: ['s3:DeleteObject'],
  DeleteObjects: ['s3:DeleteObject'],
  CopyObject: ['s3:GetObject', 's3:PutObject'],
};

// Document-client commands (Get) and the low-level ones they send (GetItem) alike.
const DDB_ACTIONS: Record<string, string> = {
  Get: 'GetItem', GetItem: 'GetItem',
  Put: 'PutItem', PutItem: 'PutItem',
  Update: 'UpdateItem', UpdateItem: 'UpdateItem',
  Delete: 'DeleteItem', DeleteItem: 'DeleteItem',
  Query: 'Query', Scan: 'Scan',
  BatchGet: 'BatchGetItem', BatchGetItem: 'BatchGetItem',
  BatchWrite: 'BatchWriteItem', BatchWriteItem: 'BatchWriteItem',
  TransactGet: 'GetItem', TransactGetItems: 'GetItem',
};

/** The IAM actions one SDK call needs; an unknown command fails the test, so the table stays complete. */
function actionsOf(call: Recorded): string[] {
  if (call.client === 's3') {
    const actions = S3_ACTIONS[call.command];
    if (!actions) throw new Error(`no IAM mapping for S3 ${call.command}: add it to S3_ACTIONS`);
    return actions;
  }
  if (call.command === 'TransactWrite' || call.command === 'TransactWriteItems') {
    // IAM authorizes each item of a transaction by its own action.
    const items = (call.input.TransactItems ?? []) as Record<string, unknown>[];
    const kind: Record<string, string> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' };
    return items.flatMap((item) => Object.keys(item).map((k) => `dynamodb:${kind[k]}`));
  }
  const action = DDB_ACTIONS[call.command];
  if (!action) throw new Error(`no IAM mapping for DynamoDB ${call.command}: add it to DDB_ACTIONS`);
  return [`dynamodb:${action}`];
}

function record(ctx: SluiceContext, sink: Recorded[], now: () => { fn: SluiceHandlerName; operation: string }): void {
  const install = (client: 's3' | 'ddb', stack: { add: (...args: never[]) => void }) => {
    const middleware =
      (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: { input: Record<string, unknown> }) => {
        sink.push({ ...now(), client, command: (context.commandName ?? 'unknown').replace(/Command$/, ''), input: args.input });
        return next(args);
      };
    (stack.add as (m: unknown, o: unknown) => void)(middleware, { step: 'initialize', name: 'sluicePermissionRecorder' });
  };
  install('s3', ctx.s3.middlewareStack as never);
  install('ddb', ctx.ddb.middlewareStack as never);
}

describe('each function may make every AWS call its operations make', () => {
  const calls: Recorded[] = [];
  const invoked = new Set<string>();
  let allowed: Record<SluiceHandlerName, string[]>;
  let pollerReport: DispatchReport | undefined;

  beforeAll(async () => {
    const ctx = await createTestContext({ graceMs: 1 });
    let current: { fn: SluiceHandlerName; operation: string } = { fn: 'admin', operation: 'setup' };
    record(ctx, calls, () => current);
    const T0 = Date.now() - 60_000;

    /** Runs one operation on its own function's handler; it must succeed. */
    const run = async (fn: FunctionName, event: Record<string, unknown>) => {
      current = { fn, operation: String(event.op) };
      invoked.add(String(event.op));
      const reply = await handleInvoke(ctx, event, functionOperations[fn]);
      expect(reply.status, `${String(event.op)}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
      return reply.body as Record<string, any>;
    };

    await run('admin', { op: 'createTopic', name: 't', partitions: 2, config: { 'segment.bytes': 200, 'retention.ms': 1 } });
    await run('admin', { op: 'listTopics' });
    await run('admin', { op: 'describeTopic', topic: 't' });
    await run('admin', { op: 'describeTopicConfigs', topic: 't' });
    await run('admin', { op: 'alterTopicConfig', topic: 't', config: { 'retention.ms': 60000 } });
    await run('admin', { op: 'createPartitions', topic: 't', count: 3 });
    await run('admin', { op: 'getOpenApi' });
    await run('admin', { op: 'createTopic', name: 'dlq', partitions: 1 });
    await run('admin', {
      op: 'createSubscription', name: 's', topic: 't', target: { type: 'https', url: 'https://example.com/hook' },
      startingPosition: 'TRIM_HORIZON', onFailure: { type: 'topic', topic: 'dlq' }, enabled: false,
    });
    await run('admin', { op: 'listSubscriptions' });
    const producer = await run('produce', { op: 'initProducerId' });
    for (let i = 0; i < 12; i++) {
      await run('produce', { op: 'produce', topic: 't', records: [{ partition: 0, value: `v${i}`.repeat(20), timestamp: T0 + i * 1000 }] });
    }
    await run('produce', {
      op: 'produce', topic: 't', producerId: producer.producerId, producerEpoch: producer.producerEpoch,
      sequences: [{ partition: 1, baseSequence: 0 }], records: [{ partition: 1, value: 'idempotent' }],
    });
    await run('fetch', { op: 'fetch', topic: 't', partition: 0, offset: 0 });
    await run('fetch', { op: 'fetch', topic: 't', partition: 0, offset: 3, format: 'batches' });
    for (const at of ['earliest', 'latest', String(T0 + 5000)]) await run('fetch', { op: 'listOffsets', topic: 't', partition: 0, at });

    const joined = await run('groups', { op: 'joinGroup', group: 'g', topics: ['t'] });
    await run('groups', { op: 'heartbeat', group: 'g', memberId: joined.memberId, generation: joined.generation });
    await run('groups', { op: 'commitOffsets', group: 'g', memberId: joined.memberId, generation: joined.generation, offsets: [{ topic: 't', partition: 0, offset: 2 }] });
    await run('groups', { op: 'fetchOffsets', group: 'g' });
    await run('groups', { op: 'describeGroup', group: 'g' });
    await run('groups', { op: 'listGroups' });
    await run('groups', { op: 'leaveGroup', group: 'g', memberId: joined.memberId });
    // By timestamp reads segments: the call the groups function once had no permission for.
    await run('groups', { op: 'resetOffsets', group: 'g', topic: 't', to: { timestamp: T0 + 5000 } });
    await run('groups', { op: 'resetOffsets', group: 'g', topic: 't', to: 'earliest' });
    await run('groups', { op: 'deleteGroup', group: 'g' });

    // The retention function: retention (retention.ms 1), segment merging (tiny segments) and the sweep.
    current = { fn: 'retention', operation: 'maintenance' };
    for (let pass = 0; pass < 2; pass++) await runMaintenance(ctx, { timeLeftMs: () => 60_000, reserveMs: 0 });
    await run('admin', { op: 'describeSubscription', name: 's' });
    await run('admin', { op: 'deleteSubscription', name: 's' });
    await run('admin', { op: 'deleteTopic', topic: 't' });

    // The subscriptions poller: one run delivering a topic to an HTTPS target that refuses one
    // poison record, which bisection isolates and sends to a dead-letter topic (an append).
    const target = await TargetServer.start();
    target.reply = (batch) => ({ status: batch.values.includes('poison') ? 500 : 200 });
    await run('admin', { op: 'createTopic', name: 'pushed', partitions: 2 });
    await run('admin', { op: 'createTopic', name: 'pushed-dlq', partitions: 1 });
    await run('produce', { op: 'produce', topic: 'pushed', records: ['a', 'b', 'poison', 'c'].map((value) => ({ partition: 0, value })) });
    await run('admin', {
      op: 'createSubscription', name: 'pushed', topic: 'pushed', target: { type: 'https', url: target.url }, startingPosition: 'TRIM_HORIZON',
      bisectBatchOnFunctionError: true, maximumRetryAttempts: 0, onFailure: { type: 'topic', topic: 'pushed-dlq' },
    });
    current = { fn: 'subscriptions', operation: 'dispatch' };
    pollerReport = await runDispatcherFor(ctx, {
      deadlineMs: ctx.now() + 4000, pollIntervalMs: 20, refreshIntervalMs: 100, leaseMs: 3000, backoff: { baseMs: 10, maxMs: 40 },
    });
    await target.close();

    const { template } = synthesize((app) => {
      const stack = new SluiceStack(app, 'SluicePermissions');
      const fn = new lambda.Function(stack, 'Target', { runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler=async()=>{}') });
      stack.log.addSubscription('Pushed', { topic: 'pushed', target: fn });
      return stack;
    });
    const ids = functionIds(template);
    allowed = Object.fromEntries(SLUICE_HANDLER_NAMES.map((fn) => [fn, roleActions(template, roleOfFunction(template, ids[fn]))])) as typeof allowed;
  }, 120_000);

  it('walks every operation of the table, retention, and a poller run', () => {
    expect([...invoked].sort()).toEqual(allOperations.map((o) => o.name).sort());
    expect(calls.some((c) => c.fn === 'retention')).toBe(true);
    // The poller delivered, and appended the poison record's metadata to the dead-letter topic.
    expect(pollerReport).toMatchObject({ recordsDelivered: 3, onFailureRecords: 1, errors: 0 });
    expect(calls.some((c) => c.fn === 'subscriptions' && c.command === 'PutObject')).toBe(true);
    // resetOffsets {timestamp} really reads a segment, or this walk would prove nothing about it.
    expect(calls.some((c) => c.operation === 'resetOffsets' && c.command === 'GetObject')).toBe(true);
  });

  it("allows each recorded call in its function's policy", () => {
    const missing = new Set<string>();
    for (const call of calls) {
      if (call.operation === 'setup') continue;
      for (const action of actionsOf(call)) {
        if (!allowed[call.fn].includes(action)) missing.add(`${call.fn} (${call.operation}): ${action}`);
      }
    }
    expect([...missing].sort()).toEqual([]);
  });
});
