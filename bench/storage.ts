// The storage a benchmark runs against: the embedded emulators `npm start` uses (dynalite + s3rver,
// real HTTP servers speaking the AWS wire protocols), run in a child process (emulator-process.ts)
// so they have their own event loop, and a fresh bucket + table per context.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createClients, createContext, type SluiceContext } from '../lib/context.js';
import { EMULATOR_CREDENTIALS } from '../lib/local/emulators.js';
import { ensureBucket, ensureTable } from '../lib/local/provision.js';

export interface BenchStorage {
  readonly dynamodbEndpoint: string;
  readonly s3Endpoint: string;
  /** CPU milliseconds the emulator process has used so far. */
  emulatorCpuMs(): Promise<number>;
  /** A context on a new, empty bucket and table. */
  newContext(settings?: { readonly leaseMs?: number }): Promise<SluiceContext>;
  /**
   * A fresh context (new SDK clients and connections, an empty topic cache: what a new process or
   * a cold Lambda container has) on the bucket and table of `ctx`.
   */
  freshContextOn(ctx: SluiceContext): SluiceContext;
  close(): Promise<void>;
}

export async function startBenchStorage(): Promise<BenchStorage> {
  const child = fork(fileURLToPath(new URL('./emulator-process.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx', ...(process.env.BENCH_EMULATOR_NODE_ARGS ?? '').split(' ').filter(Boolean)],
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const endpoints = await new Promise<{ dynamodbEndpoint: string; s3Endpoint: string }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { dynamodbEndpoint: string; s3Endpoint: string }));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`emulator process exited with ${code}`)));
  });
  const endpointsOnly = { dynamodbEndpoint: endpoints.dynamodbEndpoint, s3Endpoint: endpoints.s3Endpoint };
  return {
    ...endpointsOnly,
    emulatorCpuMs: () =>
      new Promise<number>((resolve) => {
        child.once('message', (m) => resolve((m as { cpuMs: number }).cpuMs));
        child.send('cpu');
      }),
    async newContext(settings = {}) {
      const id = randomBytes(4).toString('hex');
      const clients = createClients({
        s3Endpoint: endpoints.s3Endpoint,
        dynamodbEndpoint: endpoints.dynamodbEndpoint,
        credentials: EMULATOR_CREDENTIALS,
      });
      const ctx = createContext(clients, { bucket: `bench-${id}`, table: `bench-${id}`, leaseMs: settings.leaseMs ?? 60_000 });
      await Promise.all([ensureBucket(ctx.s3, ctx.bucket), ensureTable(ctx.ddb, ctx.table)]);
      return ctx;
    },
    freshContextOn(ctx) {
      const clients = createClients({
        s3Endpoint: endpoints.s3Endpoint,
        dynamodbEndpoint: endpoints.dynamodbEndpoint,
        credentials: EMULATOR_CREDENTIALS,
      });
      return createContext(clients, { bucket: ctx.bucket, table: ctx.table, leaseMs: ctx.leaseMs, graceMs: ctx.graceMs });
    },
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}

/**
 * `ctx` with its clock moved forward by the grace period (+1 s): a maintenance run on it finds
 * every item written so far old enough to merge and every idle tail old enough to spill, without
 * the benchmark waiting `graceMs` (5 minutes by default). Nothing else runs on the topic meanwhile.
 */
export function pastGrace(ctx: SluiceContext): SluiceContext {
  const ahead = ctx.graceMs + 1000;
  return { ...ctx, now: () => Date.now() + ahead };
}
