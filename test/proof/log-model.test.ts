// Model-based property test of the partition log (model/log-model.ts): random interleavings of
// plain and idempotent produce, fetch, lease steal, writer crash, racing and paused leaders over
// three writer processes and two partitions, compared with a reference model after every step.
import fc from 'fast-check';
import { beforeAll, describe, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { createTestContext, emulatorClients } from '../support/storage.js';
import { LogHarness, logProperty } from './model/log-model.js';
import { scale } from './model/soak.js';

let harness: LogHarness;

beforeAll(async () => {
  const shared: SluiceContext = await createTestContext();
  harness = new LogHarness(shared, emulatorClients);
});

describe('the log against its reference model', () => {
  it(`short sequences (${scale(300, 4000)} cases)`, async () => {
    await fc.assert(logProperty(harness, 5), { numRuns: scale(300, 4000) });
  }, scale(120_000, 3_600_000));

  it(`longer sequences (${scale(50, 1000)} cases)`, async () => {
    await fc.assert(logProperty(harness, 20), { numRuns: scale(50, 1000) });
  }, scale(120_000, 3_600_000));
});
