// A fresh bucket + table on the shared emulators for one test file (or one test).
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createClients, createContext, type SluiceContext, type SluiceSettings } from '../../lib/context.js';
import { EMULATOR_CREDENTIALS } from '../../lib/local/emulators.js';
import { ensureBucket, ensureTable } from '../../lib/local/provision.js';

export function emulatorClients() {
  return createClients({
    s3Endpoint: inject('s3Endpoint'),
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    credentials: EMULATOR_CREDENTIALS,
  });
}

/** A context on a new, empty bucket and table. Settings default to test-friendly short timings. */
export async function createTestContext(settings: Partial<SluiceSettings> = {}): Promise<SluiceContext> {
  const id = randomBytes(4).toString('hex');
  const clients = emulatorClients();
  const ctx = createContext(clients, {
    bucket: `sluice-test-${id}`,
    table: `sluice-test-${id}`,
    leaseMs: 2000,
    graceMs: 1000,
    ...settings,
  });
  await Promise.all([ensureBucket(ctx.s3, ctx.bucket), ensureTable(ctx.ddb, ctx.table)]);
  return ctx;
}
