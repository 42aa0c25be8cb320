// The deployable artifacts, not the sources: each handler is bundled exactly as the stack bundles
// it (BUNDLE_OPTIONS), loaded with the environment a deployed function gets, and fed API Gateway
// v2 events and direct-invoke events against the emulators. Every answer must equal the local
// server's answer to the same request on a store of its own.
import { mkdirSync, rmSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { BUNDLE_OPTIONS, REPO_ROOT, handlerEntry } from '../../infra/sluice-functions.js';
import type { SluiceFunctionName } from '../../infra/routes.js';
import { EMULATOR_CREDENTIALS } from '../../lib/local/emulators.js';
import { startServer, type LocalServer } from '../../lib/local/server.js';
import { createTestContext } from '../support/storage.js';

type Handler = (event: unknown) => Promise<unknown>;
const BUNDLED: SluiceFunctionName[] = ['produce', 'fetch', 'admin', 'groups'];
// Inside node_modules so the external `@aws-sdk/*` imports resolve as they do on Lambda's runtime.
const OUT_DIR = `${REPO_ROOT}node_modules/.cache/sluice-bundled-handlers`;

const handlers = {} as Record<SluiceFunctionName, Handler>;
let server: LocalServer;

beforeAll(async () => {
  const [bundledStore, localStore] = await Promise.all([createTestContext(), createTestContext()]);
  server = await startServer({ context: localStore });
  Object.assign(process.env, {
    SLUICE_BUCKET: bundledStore.bucket,
    SLUICE_TABLE: bundledStore.table,
    SLUICE_LEASE_MS: String(bundledStore.leaseMs),
    SLUICE_GRACE_MS: String(bundledStore.graceMs),
    AWS_ENDPOINT_URL_S3: inject('s3Endpoint'),
    AWS_ENDPOINT_URL_DYNAMODB: inject('dynamodbEndpoint'),
    AWS_ACCESS_KEY_ID: EMULATOR_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: EMULATOR_CREDENTIALS.secretAccessKey,
    AWS_REGION: 'us-east-1',
  });
  mkdirSync(OUT_DIR, { recursive: true });
  for (const name of BUNDLED) {
    const outfile = `${OUT_DIR}/${name}-${process.pid}.mjs`;
    await build({
      entryPoints: [handlerEntry(name)],
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
    handlers[name] = ((await import(pathToFileURL(outfile).href)) as { handler: Handler }).handler;
  }
});

afterAll(async () => {
  await server?.close();
  for (const name of BUNDLED) rmSync(`${OUT_DIR}/${name}-${process.pid}.mjs`, { force: true });
});

interface Step {
  readonly fn: SluiceFunctionName;
  readonly method: 'GET' | 'POST' | 'DELETE' | 'PUT';
  readonly path: string;
  readonly routePath: string;
  readonly query?: string;
  readonly body?: unknown;
}

function httpEvent(step: Step): APIGatewayProxyEventV2 {
  const routeKey = step.routePath === '$default' ? '$default' : `${step.method} ${step.routePath}`;
  return {
    version: '2.0',
    routeKey,
    rawPath: step.path,
    rawQueryString: step.query ?? '',
    headers: { 'content-type': 'application/json', host: 'abc123.execute-api.us-east-1.amazonaws.com' },
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: { method: step.method, path: step.path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: 'req-1',
      routeKey,
      stage: '$default',
      time: '29/Nov/2026:00:00:00 +0000',
      timeEpoch: 0,
    },
    body: step.body === undefined ? undefined : JSON.stringify(step.body),
    isBase64Encoded: false,
  };
}

async function viaBundle(step: Step): Promise<{ status: number; body: unknown }> {
  const result = (await handlers[step.fn](httpEvent(step))) as APIGatewayProxyStructuredResultV2;
  return { status: result.statusCode ?? 200, body: result.body ? JSON.parse(result.body) : undefined };
}

async function viaLocalServer(step: Step): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${server.url}${step.path}${step.query ? `?${step.query}` : ''}`, {
    method: step.method,
    headers: { 'content-type': 'application/json' },
    body: step.body === undefined ? undefined : JSON.stringify(step.body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const STEPS: Step[] = [
  { fn: 'admin', method: 'POST', path: '/v1/topics', routePath: '/v1/topics', body: { name: 'orders', partitions: 2 } },
  { fn: 'admin', method: 'POST', path: '/v1/topics', routePath: '/v1/topics', body: { name: 'orders', partitions: 2 } },
  {
    fn: 'produce',
    method: 'POST',
    path: '/v1/topics/orders/records',
    routePath: '/v1/topics/{topic}/records',
    body: {
      records: [
        { key: 'a', value: 'one', partition: 0, timestamp: 1700000000000 },
        { key: 'b', value: 'two', partition: 1, timestamp: 1700000000001, headers: [{ key: 'h', value: 'v' }] },
        { key: 'c', value: null, partition: 0, timestamp: 1700000000002 },
      ],
    },
  },
  {
    fn: 'fetch',
    method: 'GET',
    path: '/v1/topics/orders/partitions/0/records',
    routePath: '/v1/topics/{topic}/partitions/{partition}/records',
    query: 'offset=0',
  },
  {
    fn: 'fetch',
    method: 'GET',
    path: '/v1/topics/orders/partitions/0/offsets',
    routePath: '/v1/topics/{topic}/partitions/{partition}/offsets',
    query: 'at=latest',
  },
  {
    fn: 'fetch',
    method: 'GET',
    path: '/v1/topics/orders/partitions/1/records',
    routePath: '/v1/topics/{topic}/partitions/{partition}/records',
    query: 'offset=5',
  },
  { fn: 'admin', method: 'GET', path: '/v1/topics/orders', routePath: '/v1/topics/{topic}' },
  {
    fn: 'groups',
    method: 'POST',
    path: '/v1/groups/billing/offsets',
    routePath: '/v1/groups/{group}/offsets',
    body: { offsets: [{ topic: 'orders', partition: 0, offset: 1 }] },
  },
  { fn: 'groups', method: 'GET', path: '/v1/groups/billing/offsets', routePath: '/v1/groups/{group}/offsets' },
  { fn: 'admin', method: 'GET', path: '/v1/topics/missing', routePath: '/v1/topics/{topic}' },
  { fn: 'produce', method: 'POST', path: '/v1/topics/orders/records', routePath: '/v1/topics/{topic}/records', body: { records: 'x' } },
  // The OpenAPI document (lib/api/openapi.ts), served by the admin function.
  { fn: 'admin', method: 'GET', path: '/v1/openapi.json', routePath: '/v1/openapi.json' },
  // No route matches: API Gateway's `$default` route hands these to the admin function.
  { fn: 'admin', method: 'PUT', path: '/v1/topics/orders/partitions/0/records', routePath: '$default' },
  { fn: 'admin', method: 'GET', path: '/v2/topics', routePath: '$default' },
];

/** Each store gives its topic a random id: the answers match but for it. */
function withoutTopicIds<T>(answer: T): T {
  return JSON.parse(JSON.stringify(answer), (key, value) => (key === 'topicId' ? 'ID' : value)) as T;
}

describe('bundled handlers', () => {
  it('answer API Gateway v2 events exactly as the local server answers the same requests', async () => {
    const statuses: number[] = [];
    for (const step of STEPS) {
      const [bundled, local] = [await viaBundle(step), await viaLocalServer(step)].map(withoutTopicIds);
      expect(bundled, `${step.method} ${step.path}`).toEqual(local);
      statuses.push(bundled.status);
    }
    // The scenario covers success, conflict, range, not-found, validation and unmatched-route answers.
    expect(statuses).toEqual([201, 409, 200, 200, 200, 416, 200, expect.any(Number), 200, 404, 400, 200, 405, 404]);
  });

  it('answer direct-invoke events with the same bodies as HTTP', async () => {
    const fetched = (await handlers.fetch({ op: 'fetch', topic: 'orders', partition: 0, offset: 0 })) as { status: number; body: unknown };
    const overHttp = await viaLocalServer(STEPS[3]);
    expect(fetched).toEqual({ status: 200, body: overHttp.body });
    const unknown = (await handlers.fetch({ op: 'createTopic', name: 'x', partitions: 1 })) as { status: number; body: any };
    expect(unknown.status).toBeGreaterThanOrEqual(400);
    expect(unknown.body.error.code).toBeTypeOf('string');
  });
});
