// Requests that reach DynamoDB long after their sender gave up on them (a timeout whose request was
// still queued in the network, an SDK retry that lands late): the append protocol must stay correct
// whenever they land, because a base offset is never reused for different records in one epoch.
import { describe, expect, it } from 'vitest';
import { createContext, type SluiceContext } from '../../lib/context.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { compactPartition } from '../../lib/log/compaction.js';
import { TAIL_MAX_RANGES } from '../../lib/log/partition-tail.js';
import { getSegmentItem } from '../../lib/metadata/manifest.js';
import { readPartitionSnapshot } from '../../lib/log/partition-snapshot.js';
import { applyRetention } from '../../lib/log/retention.js';
import { createTestContext, emulatorClients } from '../support/storage.js';
import { readAll, readValues } from './read-all.js';
import { timeoutError } from './sdk-faults.js';

const batch = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ timestamp: i, key: null, value: Buffer.from(`${tag}${i}`) }));

/** The spill put of step 1 (conditioned on the writer's epoch). */
const isSegmentPut = (command: string, input: Record<string, unknown>) =>
  command === 'PutItemCommand' && String(input.ConditionExpression ?? '').includes('#epoch <= :epoch');

/**
 * Holds the next spill put until `land()`: with `timeOut`, the caller sees a timeout at once
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

/** Fills partition 0's STATE tail: the next append spills it (one SEG item put, then the commit). */
async function fillTail(ctx: SluiceContext, tag: string): Promise<void> {
  for (let i = 0; i < TAIL_MAX_RANGES; i++) {
    expect(await appendToPartitions(ctx, 't', [{ partition: 0, records: batch(`${tag}${i}-`, 1) }])).toEqual([
      { partition: 0, baseOffset: i, count: 1 },
    ]);
  }
}

const tailValues = (tag: string) => Array.from({ length: TAIL_MAX_RANGES }, (_, i) => `${tag}${i}-0`);

describe('a spill put that lands after its writer gave up on it', () => {
  it('never replaces the spill of a later epoch at the same base, and loses nothing', async () => {
    const ctx = await createTestContext();
    await fillTail(ctx, 'a');

    const late = delayNextSegmentPut(ctx, true);
    const [timedOut] = await appendToPartitions(ctx, 't', [{ partition: 0, records: batch('lost', 1) }]);
    expect(timedOut).toMatchObject({ partition: 0, error: { code: 'REQUEST_TIMED_OUT', retriable: true } });

    // The writer forgot its view: it takes a new epoch and spills the same tail again.
    const [acked] = await appendToPartitions(ctx, 't', [{ partition: 0, records: batch('b', 2) }]);
    expect(acked).toEqual({ partition: 0, baseOffset: TAIL_MAX_RANGES, count: 2 });
    const spilled = await getSegmentItem(ctx, 't', 0, 0);
    expect(spilled).toMatchObject({ epoch: 2, lastOffset: TAIL_MAX_RANGES - 1 });

    // The put of the timed-out append finally reaches DynamoDB: refused, its epoch is older.
    await late.land();
    expect(await getSegmentItem(ctx, 't', 0, 0)).toEqual(spilled);
    expect(await readValues(ctx, 't')).toEqual([...tailValues('a'), 'b0', 'b1']);
  });
});

describe('a stale leader whose spill put lands after a newer leader took over', () => {
  /**
   * Leader A (epoch 1) fills its tail, then stalls on the spill put of its next append until B
   * (epoch 2) appended b0, c0, d0 (spilling the same tail first).
   */
  async function staleLeader() {
    const shared = await createTestContext();
    const process = (leaseMs: number) =>
      createContext(emulatorClients(), { bucket: shared.bucket, table: shared.table, leaseMs, leaseWaitMs: 0, graceMs: 60_000 });
    const a = process(2000);
    const b = process(60_000);
    await fillTail(a, 'a');
    const late = delayNextSegmentPut(a, false);
    const stale = appendToPartitions(a, 't', [{ partition: 0, records: batch('stale', 1) }]);
    await late.held;
    await new Promise((resolve) => setTimeout(resolve, 2100)); // A's lease expires
    for (const [tag, i] of [['b', 0], ['c', 1], ['d', 2]] as const) {
      expect(await appendToPartitions(b, 't', [{ partition: 0, records: batch(tag, 1) }])).toEqual([
        { partition: 0, baseOffset: TAIL_MAX_RANGES + i, count: 1 },
      ]);
    }
    return { b, land: late.land, stale };
  }

  it('cannot recreate the item at its base after compaction merged it away', async () => {
    const { b, land, stale } = await staleLeader();
    const snapshot = await readPartitionSnapshot(b, 't', 0);
    const compacted = await compactPartition(b, snapshot, { segmentBytes: 1 << 20, segmentMs: 86_400_000, indexIntervalBytes: 4096 });
    expect(compacted.merges).toBe(1);

    await land();
    const [result] = await stale;
    expect(result).toMatchObject({ partition: 0, error: { code: 'NOT_LEADER_OR_FOLLOWER' } });
    // From every offset, as a consumer resuming there would read.
    for (const [offset, value] of [...tailValues('a'), 'b0', 'c0', 'd0'].entries()) {
      expect((await readAll(b, 't', 0, offset)).records[0].value!.toString()).toBe(value);
    }
  });

  it('is not acknowledged when retention removed the item at its base and its own put recreated it', async () => {
    const { b, land, stale } = await staleLeader();
    const retained = await applyRetention(b, await readPartitionSnapshot(b, 't', 0), { retentionMs: -1, retentionBytes: 0 });
    expect(retained.logStartOffset).toBe(TAIL_MAX_RANGES);

    await land();
    const [result] = await stale;
    expect(result).toMatchObject({ partition: 0, error: { code: 'NOT_LEADER_OR_FOLLOWER' } });
    expect((await readAll(b, 't', 0, TAIL_MAX_RANGES)).records.map((r) => r.value!.toString())).toEqual(['b0', 'c0', 'd0']);
  });
});
