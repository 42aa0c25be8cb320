// Crash injection at every step of a maintenance run that both applies retention and compacts:
// the process dies before or after each of its AWS calls (every later call fails too). Right
// after the crash the log must read correctly (dense, the right value at every offset, nothing
// lost above logStartOffset); the next run must finish the work exactly as an uninterrupted run
// does, with exact STATE counters; and after the grace period the bucket holds exactly the
// objects the manifest references (crash leftovers swept).
import { describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { runMaintenance } from '../../lib/log/maintenance.js';
import { TAIL_MAX_AGE_MS } from '../../lib/log/partition-tail.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createTestContext, emulatorClients } from '../support/storage.js';
import {
  appendValues,
  bucketKeys,
  type ClockedContext,
  expectConsistentPartition,
  referencedObjectKeys,
  runOnce,
  withClock,
} from './maintenance-support.js';
import { rangeAt } from './read-all.js';
import { crashError, observeSdk } from './sdk-faults.js';

const TOPIC = 'crashy';
const SEGMENTS = 8;

/**
 * 8 one-record segments (each append comes a tail's age after the last, so its commit spills the
 * tail), the newest still in STATE's tail; retention.bytes keeps 5 of them; compaction then merges
 * 4 (not the newest).
 */
async function setUp(): Promise<{ ctx: ClockedContext; expected: Map<number, string> }> {
  const ctx = withClock(await createTestContext({ graceMs: 300 }));
  await appendValues(ctx, 'probe', ['value-0']);
  const size = (await rangeAt(ctx, 'probe', 0, 0))!.size;
  await createTopic(ctx, TOPIC, 1, { 'retention.bytes': Math.floor(4.5 * size) });
  const expected = new Map<number, string>();
  const t0 = ctx.now();
  for (let i = 0; i < SEGMENTS; i++) {
    ctx.advance(TAIL_MAX_AGE_MS);
    const base = await appendValues(ctx, TOPIC, [`value-${i}`], t0);
    expected.set(base, `value-${i}`);
  }
  // Every spill a grace period old: compaction may merge across the leader epochs (one per append).
  ctx.advance(ctx.graceMs + 1);
  return { ctx, expected };
}

/** The same process identity (so it may take the job lease the crashed run held) on fresh clients. */
function sameProcess(ctx: ClockedContext): SluiceContext {
  return { ...ctx, ...emulatorClients() };
}

async function expectOnlyReferencedObjects(ctx: ClockedContext) {
  const referenced = [...(await referencedObjectKeys(ctx, TOPIC)), ...(await referencedObjectKeys(ctx, 'probe'))];
  expect(await bucketKeys(ctx)).toEqual(referenced.sort());
}

describe('crash at every step of retention and compaction', () => {
  it('leaves a consistent log; the next run completes the work', async () => {
    // Reference: an uninterrupted run, and how many calls it makes.
    const reference = await setUp();
    const dry = sameProcess(reference.ctx);
    const drySdk = observeSdk(dry);
    const report = await runMaintenance(dry, { timeLeftMs: () => 60_000, reserveMs: 0, concurrency: 1 });
    expect(report.errors).toEqual([]);
    expect(report.retention.segments).toBe(3);
    expect(report.compaction.merges).toBe(1);
    const steps = drySdk.calls.length;
    console.log(`maintenance run: ${steps} AWS calls`);
    const { state: refState, chain: refChain } = await expectConsistentPartition(reference.ctx, TOPIC, reference.expected);
    const refRanges = refChain.map((i) => [i.baseOffset, i.lastOffset]);
    expect(refState.logStartOffset).toBe(3);
    expect(refRanges).toEqual([[3, 6], [7, 7]]);
    const commands = new Set(drySdk.calls.map((c) => c.command));
    for (const c of ['UpdateItem', 'DeleteItem', 'GetObject', 'PutObject', 'PutItem', 'ListObjectsV2']) expect(commands).toContain(c);

    let crashedRuns = 0;
    for (let step = 1; step <= steps; step++) {
      for (const when of ['before', 'after'] as const) {
        const { ctx, expected } = await setUp();
        const crashing = sameProcess(ctx);
        const sdk = observeSdk(crashing);
        sdk.fault = (_call, index) => {
          if (index !== step) return undefined;
          sdk.crashed = true;
          return { when, error: crashError() };
        };
        const crashed = await runMaintenance(crashing, { timeLeftMs: () => 60_000, reserveMs: 0, concurrency: 1 }).catch(() => undefined);
        expect(sdk.crashed).toBe(true);
        if (!crashed || crashed.errors.length > 0) crashedRuns++;

        // Right after the crash: readable, dense and right from whatever logStartOffset it has.
        await expectConsistentPartition(ctx, TOPIC, expected, { settled: false });

        // The next run completes the work, exactly as the uninterrupted run left it.
        const next = await runOnce(ctx);
        expect(next.errors).toEqual([]);
        const { state, chain } = await expectConsistentPartition(ctx, TOPIC, expected);
        expect(state.logStartOffset).toBe(3);
        expect(chain.map((i) => [i.baseOffset, i.lastOffset])).toEqual(refRanges);

        // After the grace period, only referenced objects remain.
        ctx.advance(400);
        await runOnce(ctx);
        ctx.advance(400);
        await runOnce(ctx);
        await expectOnlyReferencedObjects(ctx);
      }
    }
    expect(crashedRuns).toBeGreaterThan(steps); // most crash points really interrupted the run
  });
});
