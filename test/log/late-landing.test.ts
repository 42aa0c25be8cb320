// Requests that reach DynamoDB long after their sender gave up on them (a timeout whose request was
// still queued in the network, an SDK retry that lands late): the append protocol must stay correct
// whenever they land, because a base offset is never reused for different records in one epoch.
import { describe, expect, it } from 'vitest';
import { createContext, type SluiceContext } from '../../lib/context.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { compactPartition } from '../../lib/log/compaction.js';
import { readPartitionSnapshot } from '../../lib/log/partition-snapshot.js';
import { applyRetention } from '../../lib/log/retention.js';
import { createTestContext, emulatorClients } from '../support/storage.js';
import { readAll, readValues } from './read-all.js';
import { timeoutError } from './sdk-faults.js';

const batch = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ timestamp: i, key: null, value: Buffer.from(`${tag}${i}`) }));

/** The manifest put of step 1 (conditioned on the writer's epoch). */
const isSegmentPut = (command: string, input: Record<string, unknown>) =>
  command === 'PutItemCommand' && String(input.ConditionExpression ?? '').includes('#epoch <= :epoch');

/**
 * Holds the next manifest put until `land()`: with `timeOut`, the caller sees a timeout at once
 * while the request waits; without, the caller simply waits for it (a paused or slow writer).
 */
function delayNextSegmentPut(ctx: SluiceContext, timeOut: boolean): { held: Promise<void>; land: () => Promise<void> } {
  let armed = true;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let hold!: () => void;
  const held = new Promise<void>((resolve) => (hold = resolve));
  let landed: Promise<unknown> = Promise.resolve();
  ctx.ddb.middlewareStack.add(
    (next, context) => async (args) => {
      if (!armed || !isSegmentPut(context.commandName ?? '', args.input as Record<string, unknown>)) return next(args);
      armed = false;
      hold();
      const sent = released.then(() => next(args));
      landed = sent.catch(() => undefined);
      if (timeOut) throw timeoutError();
      return sent;
    },
    { step: 'initialize', name: 'lateSegmentPut' },
  );
  return {
    held,
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

    const late = delayNextSegmentPut(ctx, true);
    const [timedOut] = await appendToPartitions(ctx, 't', [{ partition: 0, records: batch('lost', 1) }]);
    expect(timedOut).toMatchObject({ partition: 0, error: { code: 'REQUEST_TIMED_OUT', retriable: true } });

    const [acked] = await appendToPartitions(ctx, 't', [{ partition: 0, records: batch('b', 2) }]);
    expect(acked).toEqual({ partition: 0, baseOffset: 1, count: 2 });

    // The put of the timed-out append finally reaches DynamoDB.
    await late.land();
    expect(await readValues(ctx, 't')).toEqual(['a0', 'b0', 'b1']);
  });
});

describe('a stale leader whose manifest put lands after a newer leader appended at its base', () => {
  /** Leader A (epoch 1) appends a0, then stalls on its next manifest put until B (epoch 2) appended b0, c0, d0. */
  async function staleLeader() {
    const shared = await createTestContext();
    const process = (leaseMs: number) =>
      createContext(emulatorClients(), { bucket: shared.bucket, table: shared.table, leaseMs, leaseWaitMs: 0, graceMs: 60_000 });
    const a = process(200);
    const b = process(60_000);
    expect(await appendToPartitions(a, 't', [{ partition: 0, records: batch('a', 1) }])).toEqual([
      { partition: 0, baseOffset: 0, count: 1 },
    ]);
    const late = delayNextSegmentPut(a, false);
    const stale = appendToPartitions(a, 't', [{ partition: 0, records: batch('stale', 1) }]);
    await late.held;
    await new Promise((resolve) => setTimeout(resolve, 300)); // A's lease expires
    for (const [tag, baseOffset] of [['b', 1], ['c', 2], ['d', 3]] as const) {
      expect(await appendToPartitions(b, 't', [{ partition: 0, records: batch(tag, 1) }])).toEqual([
        { partition: 0, baseOffset, count: 1 },
      ]);
    }
    return { b, land: late.land, stale };
  }

  it('cannot recreate the item at its base after compaction merged it away', async () => {
    const { b, land, stale } = await staleLeader();
    const snapshot = await readPartitionSnapshot(b, 't', 0);
    await compactPartition(b, snapshot, { segmentBytes: 1 << 20, segmentMs: 86_400_000, indexIntervalBytes: 4096 });

    await land();
    const [result] = await stale;
    expect(result).toMatchObject({ partition: 0, error: { code: 'NOT_LEADER_OR_FOLLOWER' } });
    // From every offset, as a consumer resuming there would read.
    for (const [offset, value] of ['a0', 'b0', 'c0', 'd0'].entries()) {
      expect((await readAll(b, 't', 0, offset)).records[0].value!.toString()).toBe(value);
    }
  });

  it('is not acknowledged when retention removed the item at its base and its own put recreated it', async () => {
    const { b, land, stale } = await staleLeader();
    const retained = await applyRetention(b, await readPartitionSnapshot(b, 't', 0), { retentionMs: -1, retentionBytes: 0 });
    expect(retained.logStartOffset).toBe(3);

    await land();
    const [result] = await stale;
    expect(result).toMatchObject({ partition: 0, error: { code: 'NOT_LEADER_OR_FOLLOWER' } });
    expect((await readAll(b, 't', 0, 3)).records.map((r) => r.value!.toString())).toEqual(['d0']);
  });
});
