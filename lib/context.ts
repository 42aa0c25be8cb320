// The injected dependencies every operation in lib/ runs against: SDK clients, bucket, table and
// the tunables of the append protocol. Built once per process (Lambda init, local server start),
// so `ownerId` is per process start as docs/ARCHITECTURE.md requires.
import { randomUUID } from 'node:crypto';
import { Agent as HttpAgent } from 'node:http';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

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
): SluiceContext {
  return {
    ...settingsFromEnv(env),
    ...settings,
    ...clients,
    ownerId: randomUUID(),
    now: Date.now,
  };
}
