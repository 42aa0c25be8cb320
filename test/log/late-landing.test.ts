// Requests that reach DynamoDB long after their sender gave up on them (a timeout whose request was
// still queued in the network, an SDK retry that lands late): the append protocol must stay correct
// whenever they land, because a base offset is never reused for different records in one epoch.
import { describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { createTestContext } from '../support/storage.js';
import { readValues } from './read-all.js';
import { timeoutError } from './sdk-faults.js';

const batch = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ timestamp: i, key: null, value: Buffer.from(`${tag}${i}`) }));

/** The manifest put of step 1 (conditioned on the writer's epoch). */
const isSegmentPut = (command: string, input: Record<string, unknown>) =>
  command === 'PutItemCommand' && String(input.ConditionExpression ?? '').includes('#epoch <= :epoch');

/**
 * Holds the next manifest put: the caller sees a timeout at once, the request itself is sent only
 * when `land()` is called. Resolves to that function once the put was intercepted.
 */
function delayNextSegmentPut(ctx: SluiceContext): { land: () => Promise<void> } {
  let armed = true;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let landed: Promise<unknown> = Promise.resolve();
  ctx.ddb.middlewareStack.add(
    (next, context) => async (args) => {
      if (!armed || !isSegmentPut(context.commandName ?? '', args.input as Record<string, unknown>)) return next(args);
      armed = false;
      landed = released.then(() => next(args)).catch(() => undefined);
      throw timeoutError();
    },
    { step: 'initialize', name: 'lateSegmentPut' },
  );
  return {
    land: async () => {
      release();
      await landed;
    },
  };
}

describe('a manifest put that lands after its writer gave up on it', () => {
  it('never replaces the item of a later acknowledged append at the same base', async () => {
    const ctx = await createTestContext();
    expect(await appendToPartitions(ctx, 't', [{ partition: 0, records: batch('a', 1) }])).toEqual([
      { partition: 0, baseOffset: 0, count: 1 },
    ]);

    const late = delayNextSegmentPut(ctx);
    const [timedOut] = await appendToPartitions(ctx, 't', [{ partition: 0, records: batch('lost', 1) }]);
    expect(timedOut).toMatchObject({ partition: 0, error: { code: 'REQUEST_TIMED_OUT', retriable: true } });

    const [acked] = await appendToPartitions(ctx, 't', [{ partition: 0, records: batch('b', 2) }]);
    expect(acked).toEqual({ partition: 0, baseOffset: 1, count: 2 });

    // The put of the timed-out append finally reaches DynamoDB.
    await late.land();
    expect(await readValues(ctx, 't')).toEqual(['a0', 'b0', 'b1']);
  });
});
