// Proof that the model-based property can fail: the same property (model/log-model.ts) run against
// a deliberately broken append protocol must find a counterexample. Each break lives only in this
// test file (`vi.mock` of lib/metadata/partition-state.ts) and removes something the leaderless
// protocol's safety relies on:
//   spill remove without its     removeSpilledEntries without `tailBase = :tailBase` (it keeps the
//   tailBase condition           topic and `size(tail) >= n`): a stale spiller, paused before its
//                                remove while another spiller adopted its item, removes entries
//                                nobody spilled when it meets a full tail (one whose filler died
//                                before spilling it) and moves tailBase: acknowledged records are lost.
//   base from a stale read       appendEntries answers the logEndOffset of a read made before the
//                                update, not the one the update replaced: two racing (or a paused
//                                and a running) writers are acknowledged at the same offset.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../../lib/context.js';
import type * as PartitionState from '../../lib/metadata/partition-state.js';
import { createTestContext } from '../support/storage.js';
import { LogHarness, logProperty } from './model/log-model.js';

const broken = vi.hoisted(() => ({ mode: 'none' as 'none' | 'spillRemoveWithoutTailBase' | 'staleBase' }));

vi.mock('../../lib/metadata/partition-state.js', async (importOriginal) => {
  const actual = await importOriginal<typeof PartitionState>();
  const removeSpilledEntries: typeof actual.removeSpilledEntries = (ctx, topic, partition, tailBase, entries, count) => {
    if (broken.mode !== 'spillRemoveWithoutTailBase') return actual.removeSpilledEntries(ctx, topic, partition, tailBase, entries, count);
    const ddb = {
      send: (command: UpdateCommand) => {
        const input = command.input;
        input.ConditionExpression = '#topicId = :topicId AND size(#tail) >= :n';
        delete input.ExpressionAttributeValues?.[':tailBase'];
        return ctx.ddb.send(command);
      },
    };
    return actual.removeSpilledEntries({ ...ctx, ddb: ddb as never }, topic, partition, tailBase, entries, count);
  };
  // Every append commits through appendEntries (lib/log/append.ts, one update per partition).
  const appendEntries: typeof actual.appendEntries = async (ctx, req) => {
    if (broken.mode !== 'staleBase') return actual.appendEntries(ctx, req);
    const seen = await actual.getPartitionState(ctx, req.topic, req.partition);
    const before = await actual.appendEntries(ctx, req);
    return { ...before, logEndOffset: seen.logEndOffset };
  };
  return { ...actual, removeSpilledEntries, appendEntries };
});

let harness: LogHarness;

beforeAll(async () => {
  const shared: SluiceContext = await createTestContext();
  harness = new LogHarness(shared);
});

afterAll(() => {
  broken.mode = 'none';
  harness?.close();
});

async function counterexample(mode: typeof broken.mode, seed: number): Promise<{ message: string; cause: string }> {
  broken.mode = mode;
  let failure: unknown;
  try {
    await fc.assert(logProperty(harness, 6), { numRuns: 200, seed, endOnFailure: true });
  } catch (e) {
    failure = e;
  } finally {
    broken.mode = 'none';
  }
  expect(failure, 'the property must find a counterexample').toBeDefined();
  const message = String((failure as Error).message);
  expect(message).toMatch(/Property failed/);
  console.log(message.split('\n').slice(0, 4).join('\n'), '\n', String((failure as { cause?: unknown }).cause).split('\n')[0]);
  return { message, cause: String((failure as { cause?: unknown }).cause) };
}

describe('a broken append protocol is caught by the model-based property', () => {
  it('the spill remove without its tailBase condition', async () => {
    const { message, cause } = await counterexample('spillRemoveWithoutTailBase', 11);
    // The counterexample needs a stale spiller: one paused before its remove, or a crash that left
    // a pending spill someone else adopted.
    expect(message).toMatch(/"t":"(paused|crash|lost)"/);
    // ... and what it found is a violated invariant of the log, not a crash of the harness.
    expect(cause).toMatch(/tailBase|tile|cover|gap|acknowledged|lost|never appended|whole|unreadable|moves back/);
  }, 60_000);

  it('the base offset taken from a read before the update', async () => {
    const { message, cause } = await counterexample('staleBase', 7);
    expect(message).toMatch(/"t":"(paused|race)"/);
    expect(cause).toMatch(/acknowledged/);
  }, 60_000);

  it('the unbroken protocol passes the same seeds', async () => {
    await fc.assert(logProperty(harness, 6), { numRuns: 5, seed: 11 });
  }, 60_000);
});
