// The storage a benchmark runs against: the embedded emulators `npm start` uses (dynalite + s3rver,
// real HTTP servers speaking the AWS wire protocols), and a fresh bucket + table per context.
import { randomBytes } from 'node:crypto';
import { createClients, createContext, type SluiceContext } from '../lib/context.js';
import { EMULATOR_CREDENTIALS, type Emulators, startEmulators } from '../lib/local/emulators.js';
import { ensureBucket, ensureTable } from '../lib/local/provision.js';

export interface BenchStorage {
  readonly emulators: Emulators;
  /** A context on a new, empty bucket and table. */
  newContext(): Promise<SluiceContext>;
  close(): Promise<void>;
}

export async function startBenchStorage(): Promise<BenchStorage> {
  const emulators = await startEmulators();
  return {
    emulators,
    async newContext() {
      const id = randomBytes(4).toString('hex');
      const clients = createClients({
        s3Endpoint: emulators.s3Endpoint,
        dynamodbEndpoint: emulators.dynamodbEndpoint,
        credentials: EMULATOR_CREDENTIALS,
      });
      const ctx = createContext(clients, { bucket: `bench-${id}`, table: `bench-${id}`, leaseMs: 60_000 });
      await Promise.all([ensureBucket(ctx.s3, ctx.bucket), ensureTable(ctx.ddb, ctx.table)]);
      return ctx;
    },
    close: () => emulators.close(),
  };
}
