// Proof that the model-based property can fail: the same property (model/log-model.ts) run
// against a deliberately broken append protocol must find a counterexample. The break lives only
// in this test file: `vi.mock` replaces the commit of lib/metadata/partition-state.ts with one that
// drops the leader-epoch and owner conditions (keeping `nextOffset = :base`), exactly the "commit
// without the epoch condition" a careless implementation would ship. A stale leader paused before
// its commit can then commit over a newer leader's manifest item, so an acknowledged batch is not
// at its offset (or two batches are acknowledged at one offset).
import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import type * as PartitionState from '../../lib/metadata/partition-state.js';
import { createTestContext, emulatorClients } from '../support/storage.js';
import { LogHarness, logProperty } from './model/log-model.js';

vi.mock('../../lib/metadata/partition-state.js', async (importOriginal) => {
  const actual = await importOriginal<typeof PartitionState>();
  const commitWithoutEpoch: typeof actual.commitAppend = (ctx, req) => {
    const ddb = {
      send: (command: {
        input: { ConditionExpression?: string; ExpressionAttributeValues?: Record<string, unknown>; ExpressionAttributeNames?: Record<string, string>; UpdateExpression?: string };
      }) => {
        const input = command.input;
        input.ConditionExpression = input.ConditionExpression?.replace('#epoch = :epoch AND ', '').replace(' AND #owner = :me', '');
        delete input.ExpressionAttributeValues?.[':epoch'];
        delete input.ExpressionAttributeValues?.[':me'];
        delete input.ExpressionAttributeNames?.['#owner'];
        if (!input.UpdateExpression?.includes('#epoch')) delete input.ExpressionAttributeNames?.['#epoch'];
        return ctx.ddb.send(command as never);
      },
    };
    return actual.commitAppend({ ...ctx, ddb: ddb as never }, req);
  };
  return { ...actual, commitAppend: commitWithoutEpoch };
});

let harness: LogHarness;

beforeAll(async () => {
  const shared: SluiceContext = await createTestContext();
  harness = new LogHarness(shared, emulatorClients);
});

describe('a broken append protocol', () => {
  it('is caught by the model-based property (commit without the epoch condition)', async () => {
    let failure: unknown;
    try {
      await fc.assert(logProperty(harness, 8), { numRuns: 300, seed: 7, endOnFailure: true });
    } catch (e) {
      failure = e;
    }
    expect(failure, 'the property must find a counterexample').toBeDefined();
    const message = String((failure as Error).message);
    expect(message).toMatch(/Property failed/);
    // The counterexample involves two leaders: a paused one or a race.
    expect(message).toMatch(/"t":"(paused|race)"/);
    // ... and what it found is an invariant violation, not a crash of the harness.
    const cause = String((failure as { cause?: unknown }).cause);
    expect(cause).toMatch(/acknowledged|visible|whole|moves back/);
  }, 120_000);
});
