// The poller Lambda (lambdas/subscriptions.ts) as deployed: bundled exactly as the stack bundles
// it, loaded with a deployed function's environment, and invoked as the schedule invokes it, with a
// Lambda context whose time runs out. It must deliver, return before its time limit with the run's
// report, and hand its leases on (a following run takes the partitions at once, not after expiry).
import { mkdirSync, rmSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BUNDLE_OPTIONS, REPO_ROOT, handlerEntry } from '../../infra/sluice-functions.js';
import type { SluiceContext } from '../../lib/context.js';
import { EMULATOR_CREDENTIALS } from '../../lib/local/emulators.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createSubscription, describeSubscription } from '../../lib/subscriptions/subscription-store.js';
import { createTestContext } from '../support/storage.js';
import { TargetServer, appendValues } from '../subscriptions/support.js';

type PollerHandler = (event: unknown, context?: Context) => Promise<{ status: number; body: Record<string, number> }>;

const OUT_DIR = `${REPO_ROOT}node_modules/.cache/sluice-bundled-handlers`;
const outfile = `${OUT_DIR}/subscriptions-${process.pid}.mjs`;
let handler: PollerHandler;
let ctx: SluiceContext;
let target: TargetServer;

beforeAll(async () => {
  ctx = await createTestContext();
  target = await TargetServer.start();
  Object.assign(process.env, {
    SLUICE_BUCKET: ctx.bucket,
    SLUICE_TABLE: ctx.table,
    SLUICE_LEASE_MS: String(ctx.leaseMs),
    SLUICE_GRACE_MS: String(ctx.graceMs),
    AWS_ENDPOINT_URL_S3: inject('s3Endpoint'),
    AWS_ENDPOINT_URL_DYNAMODB: inject('dynamodbEndpoint'),
    AWS_ACCESS_KEY_ID: EMULATOR_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: EMULATOR_CREDENTIALS.secretAccessKey,
    AWS_REGION: 'us-east-1',
  });
  mkdirSync(OUT_DIR, { recursive: true });
  await build({
    entryPoints: [handlerEntry('subscriptions')],
    bundle: true,
    platform: 'node',
    target: BUNDLE_OPTIONS.target,
    format: BUNDLE_OPTIONS.format,
    minify: BUNDLE_OPTIONS.minify,
    external: [...BUNDLE_OPTIONS.externalModules],
    mainFields: [...BUNDLE_OPTIONS.mainFields],
    banner: { js: BUNDLE_OPTIONS.banner },
    outfile,
    logLevel: 'silent',
  });
  handler = ((await import(pathToFileURL(outfile).href)) as { handler: PollerHandler }).handler;
}, 60_000);

afterAll(async () => {
  await target?.close();
  rmSync(outfile, { force: true });
});

/** What Lambda hands a scheduled invocation: a time limit `budgetMs` from now. */
function lambdaContext(budgetMs: number): Context {
  const deadline = Date.now() + budgetMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'sluice-subscriptions',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:sluice-subscriptions',
    memoryLimitInMB: '512',
    awsRequestId: `req-${deadline}`,
    logGroupName: '/aws/lambda/sluice-subscriptions',
    logStreamName: 'stream',
    getRemainingTimeInMillis: () => deadline - Date.now(),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

const SCHEDULED_EVENT = { version: '0', id: 'e', 'detail-type': 'Scheduled Event', source: 'aws.events', detail: {} };

describe('the subscriptions poller Lambda (bundled)', () => {
  it('delivers within its time limit, reports, and hands its leases on to the next run', async () => {
    const topic = await createTopic(ctx, 'polled', 2);
    for (let p = 0; p < 2; p++) await appendValues(ctx, topic, p, Array.from({ length: 50 }, (_, i) => `p${p}-${i}`));
    await createSubscription(ctx, { name: 'polled', topic: 'polled', target: { type: 'https', url: target.url }, startingPosition: 'TRIM_HORIZON', batchSize: 20 });

    const budgetMs = 8000;
    const started = Date.now();
    const first = await handler(SCHEDULED_EVENT, lambdaContext(budgetMs));
    const tookMs = Date.now() - started;
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ recordsDelivered: 100, leasesTaken: 2, errors: 0 });
    // It stopped at its deadline, leaving the hand-over margin (a quarter of a short budget) unused.
    expect(tookMs).toBeLessThan(budgetMs);
    const status = await describeSubscription(ctx, 'polled');
    expect(status.lag).toBe(0);
    expect(status.partitions.every((p) => p.lease === undefined || !p.lease.active)).toBe(true);
    for (let p = 0; p < 2; p++) {
      expect(target.accepted('polled').filter((b) => b.partition === p).flatMap((b) => b.offsets)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    }

    // The next scheduled run takes both partitions at once (the leases were released, not left to
    // expire) and delivers what arrived meanwhile.
    await appendValues(ctx, topic, 1, ['late']);
    const second = await handler(SCHEDULED_EVENT, lambdaContext(4000));
    expect(second.body).toMatchObject({ recordsDelivered: 1, leasesTaken: 2, errors: 0 });
  }, 60_000);
});
