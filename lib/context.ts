// The injected dependencies every operation in lib/ runs against: SDK clients, bucket, table and
// the tunables of the append protocol. Built once per process (Lambda init, local server start),
// so `ownerId` is per process start as docs/ARCHITECTURE.md requires.
//
// The process's mutable state lives here too, not in module variables, so that a test (or a
// second simulated process) gets its own by creating its own context:
//   - `caches` (ProcessCaches): one slot per cache or counter, declared by the module that owns it
//     (cacheSlot) and created on first use:
//       topics            lib/metadata/topics.ts          topic metadata, TOPIC_CACHE_MS per entry
//       producerIdKey     lib/metadata/producer-ids.ts    the producer-id signing key, once read
//       offsetIndexes     lib/log/segment-fetch.ts        `.index` objects (immutable), bounded
//       keylessRotation   lib/api/produce-operation.ts    round-robin partition of keyless produces
//   - `metrics` (SluiceMetrics): the process-wide instance unless one is injected.
// A context spread from another (`{...ctx, now}`) shares both, as one process would.
// State that stays in modules, and why: the logger (lib/observability/logger.ts: one per process,
// Powertools adds the Lambda context to it per invocation), the request scope (AsyncLocalStorage,
// request-scope.ts: per async call chain by construction), the varint cursor of the record
// decoder (lib/records/record.ts: synchronous scratch, never observed between calls), the route
// table compiled once per operations table (lib/api/router.ts: derived, immutable), and the
// Lambda entry points' lazily created context (lib/api/lambda-adapter.ts, lambdas/retention.ts:
// the place contexts are created; tests pass their own).
import { randomUUID } from 'node:crypto';
import { Agent as HttpAgent } from 'node:http';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { metrics as processMetrics, type SluiceMetrics } from './observability/metrics.js';

export interface SluiceSettings {
  /** S3 bucket holding segments. env `SLUICE_BUCKET`, @default 'sluice-data' */
  readonly bucket: string;
  /** DynamoDB metadata table. env `SLUICE_TABLE`, @default 'sluice-metadata' */
  readonly table: string;
  /** Key prefix for all objects, no trailing slash. env `SLUICE_PREFIX`, @default '' */
  readonly prefix: string;
  /**
   * Partition leader lease length: how long one maintainer keeps a partition's merges and
   * retention to itself. Appends never take it. env `SLUICE_LEASE_MS`, @default 30000
   */
  readonly leaseMs: number;
  /** Objects no longer referenced are deleted only after this. env `SLUICE_GRACE_MS`, @default 300000 */
  readonly graceMs: number;
  /** Upper bound for fetch long-poll. @default 20000 */
  readonly maxWaitMsLimit: number;
}

export interface SluiceContext extends SluiceSettings {
  readonly s3: S3Client;
  readonly ddb: DynamoDBDocumentClient;
  /** Lease owner identity: fresh at every process start. */
  readonly ownerId: string;
  /** Injected clock (ms since epoch) so tests can move time. */
  readonly now: () => number;
  /** The process's caches and counters (see the top of this file). */
  readonly caches: ProcessCaches;
  /** Where lib/ records its CloudWatch metrics; the invocation wrapper flushes them. */
  readonly metrics: SluiceMetrics;
}

/** A named piece of per-process mutable state: declared once, by the module that alone uses it. */
export interface CacheSlot<T> {
  readonly name: string;
  readonly create: () => T;
}

export function cacheSlot<T>(name: string, create: () => T): CacheSlot<T> {
  return { name, create };
}

/** The values of the cache slots for one process (one context and the contexts spread from it). */
export class ProcessCaches {
  private readonly values = new Map<CacheSlot<unknown>, unknown>();

  /** The slot's value, created on first use. */
  get<T>(slot: CacheSlot<T>): T {
    if (!this.values.has(slot)) this.values.set(slot, slot.create());
    return this.values.get(slot) as T;
  }

  /** Names of the slots in use, for inspection. */
  names(): string[] {
    return [...this.values.keys()].map((slot) => slot.name);
  }

  /** Forgets every value: the next use of each slot starts cold. */
  clear(): void {
    this.values.clear();
  }
}

/** Process state a caller may inject instead of fresh caches and the process-wide metrics. */
export interface ProcessStateOptions {
  readonly caches?: ProcessCaches;
  readonly metrics?: SluiceMetrics;
}

function intEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got '${raw}'`);
  return n;
}

export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): SluiceSettings {
  return {
    bucket: env.SLUICE_BUCKET || 'sluice-data',
    table: env.SLUICE_TABLE || 'sluice-metadata',
    prefix: (env.SLUICE_PREFIX ?? '').replace(/\/+$/, ''),
    leaseMs: intEnv(env, 'SLUICE_LEASE_MS', 30_000),
    graceMs: intEnv(env, 'SLUICE_GRACE_MS', 300_000),
    maxWaitMsLimit: intEnv(env, 'SLUICE_MAX_WAIT_MS', 20_000),
  };
}

export interface ClientOptions {
  /** Overrides the SDK's own endpoint resolution (AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL etc.). */
  readonly s3Endpoint?: string;
  readonly dynamodbEndpoint?: string;
  readonly region?: string;
  readonly credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Deadline of each attempt of each request. env `SLUICE_REQUEST_TIMEOUT_MS`, @default 5000 */
  readonly requestTimeoutMs?: number;
}

/**
 * Attempts per SDK request. With the deadline per attempt this bounds how late any write can land
 * (docs/ARCHITECTURE.md rule 3: well inside the grace period after which unreferenced objects are deleted).
 */
const MAX_ATTEMPTS = 3;
/** Below Node's http.Server keepAliveTimeout (5 s), which the emulators and LocalStack keep. */
const LOCAL_IDLE_SOCKET_MS = 3000;

export function createClients(options: ClientOptions = {}): { s3: S3Client; ddb: DynamoDBDocumentClient } {
  const region = options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1';
  // Path-style addressing whenever an endpoint is configured: emulators and LocalStack need it.
  const customS3 = Boolean(options.s3Endpoint || process.env.AWS_ENDPOINT_URL_S3 || process.env.AWS_ENDPOINT_URL);
  const requestTimeout = options.requestTimeoutMs ?? intEnv(process.env, 'SLUICE_REQUEST_TIMEOUT_MS', 5000);
  const requestHandler = {
    requestTimeout,
    connectionTimeout: Math.min(requestTimeout, 2000),
    // Plain HTTP is a local endpoint (an emulator, LocalStack), whose Node server drops a
    // keep-alive connection after 5 s idle: reusing one it is closing resets the request, and a
    // reset append has an unknown outcome (unknown-outcome.ts). Idle sockets go before that.
    httpAgent: new HttpAgent({ keepAlive: true, maxSockets: 50, timeout: LOCAL_IDLE_SOCKET_MS }),
  };
  const s3 = new S3Client({
    region,
    endpoint: options.s3Endpoint,
    credentials: options.credentials,
    forcePathStyle: customS3,
    maxAttempts: MAX_ATTEMPTS,
    requestHandler,
  });
  const dynamo = new DynamoDBClient({
    region,
    endpoint: options.dynamodbEndpoint,
    credentials: options.credentials,
    maxAttempts: MAX_ATTEMPTS,
    requestHandler,
  });
  const ddb = DynamoDBDocumentClient.from(dynamo, {
    marshallOptions: { removeUndefinedValues: true },
  });
  return { s3, ddb };
}

export function createContext(
  clients: { s3: S3Client; ddb: DynamoDBDocumentClient },
  settings: Partial<SluiceSettings> = {},
  env: NodeJS.ProcessEnv = process.env,
  state: ProcessStateOptions = {},
): SluiceContext {
  return {
    ...settingsFromEnv(env),
    ...settings,
    ...clients,
    ownerId: randomUUID(),
    now: Date.now,
    caches: state.caches ?? new ProcessCaches(),
    metrics: state.metrics ?? processMetrics,
  };
}
