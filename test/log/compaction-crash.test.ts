// A crash at every write of a cleaning, before the request is sent and after the server applied it
// (the reply lost): the cleaned segments' PUTs, the put of each cleaned SEG item, the checkpoint of
// a segment left as it was (the deletes of a group's other items are merge.ts's, crashed in
// merge-crash.test.ts, and in compaction-model.test.ts's random runs). The writes are enumerated from an
// undisturbed cleaning of the same log. After the crash the log reads as the reference says (every
// key's newest record at its offset, nothing but acknowledged records); the next run, a new process
// past the dead one's leases, finishes it: no leftovers, and the log is exactly each key's newest
// record, as after the undisturbed cleaning.
import { describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { runMaintenance } from '../../lib/log/maintenance.js';
import { itemsBelowTail, readPartitionSnapshot, splitLeftovers } from '../../lib/log/partition-snapshot.js';
import { type TopicMetadata, createTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';
import { appendKeyed, latestByKey, readCompacted } from './compaction-support.js';
import { otherProcess } from './maintenance-support.js';
import { type SdkCall, crashError, observeSdk } from './sdk-faults.js';

/** A write of the cleaner (the maintenance job's other writes are covered by test/proof/maintenance-faults.test.ts). */
function isCleanerWrite(call: SdkCall): boolean {
  const input = call.input as Record<string, unknown>;
  if (call.client === 's3') return call.command === 'PutObject' && !String(input.Key).includes('_intake');
  if (call.command === 'PutItem') return (input.Item as Record<string, unknown> | undefined)?.cleanedThrough !== undefined;
  if (call.command === 'UpdateItem') return String(input.UpdateExpression).includes('cleanedThrough');
  if (call.command === 'DeleteItem') return String((input.Key as { sk?: { S?: string } })?.sk?.S).startsWith('SEG#');
  return false;
}

/**
 * A log of four merged segments, none cleaned yet, with the clock where the next run cleans it:
 * keys updated across segments, a tombstone, and a segment whose records are all the newest.
 */
async function populate(shared: SluiceContext, name: string): Promise<{ topic: TopicMetadata; skew: number; expected: Map<string, string> }> {
  let skew = 0;
  const at = () => otherProcess(shared, skew);
  const topic = await createTopic(shared, name, 1, { 'cleanup.policy': 'compact', 'segment.bytes': 100, 'min.compaction.lag.ms': 3_600_000, 'min.cleanable.dirty.ratio': 0 });
  const batches = [
    [['a', 'a0'], ['b', 'b0'], ['c', 'c0']],
    [['a', 'a1'], ['d', 'd0']],
    [['b', null], ['e', 'e0']],
    [['f', 'f0'], ['g', 'g0']],
  ] as const;
  const expected = new Map<string, string>();
  for (const batch of batches) {
    await appendKeyed(at(), topic, batch);
    for (const [k, v] of batch) {
      if (v === null) expected.delete(k);
      else expected.set(k, v);
    }
    // Each batch its own merged segment (segment.bytes keeps merges from joining them); the lag
    // keeps the cleaner out. Runs until it is merged (a merge a loaded machine gave up is redone).
    for (let run = 0; run < 6; run++) {
      skew += 62_000;
      expect((await runMaintenance(at(), { timeLeftMs: () => 60_000, reserveMs: 0 })).errors).toEqual([]);
      const snapshot = await readPartitionSnapshot(shared, topic, 0);
      if (run > 0 && snapshot.state.tail.length === 0 && snapshot.items.every((i) => i.entries === undefined)) break;
    }
  }
  expect((await readPartitionSnapshot(shared, topic, 0)).items.map((i) => [i.baseOffset, i.entries === undefined])).toEqual([[0, true], [3, true], [5, true], [7, true]]);
  skew += 3_600_000;
  return { topic, skew, expected };
}

async function expectReadsAsReference(ctx: SluiceContext, topic: TopicMetadata, expected: Map<string, string>, label: string) {
  const records = await readCompacted(ctx, topic);
  expect(latestByKey(records), label).toEqual(expected);
  return records;
}

describe('a crash at every write of a cleaning', () => {
  it.each(['before', 'after'] as const)('crashed %s a write: the log reads right, and the next run finishes the cleaning', { timeout: 180_000 }, async (when) => {
    // A table and bucket per scenario, so each run maintains one topic; a generous grace period,
    // so that a loaded machine's slow PUT does not make a swap give up.
    const storage = () => createTestContext({ graceMs: 10_000 });
    let shared = await storage();
    const clean = await populate(shared, `clean-${when}`);
    const job = otherProcess(shared, clean.skew);
    const sdk = observeSdk(job);
    const report = await runMaintenance(job, { timeLeftMs: () => 60_000, reserveMs: 0 });
    expect(report.compaction.cleanings).toBe(1);
    const writes = sdk.calls.filter(isCleanerWrite).length;
    // Two segments rewritten (a .log and a .timeindex PUT, the item put), two only marked.
    expect(writes).toBe(8);
    const settled = (await expectReadsAsReference(shared, clean.topic, clean.expected, 'undisturbed')).map((r) => r.offset);

    for (let k = 1; k <= writes; k++) {
      shared = await storage();
      const { topic, skew, expected } = await populate(shared, `c-${when}-${k}`);
      const faulted = otherProcess(shared, skew);
      const observer = observeSdk(faulted);
      let seen = 0;
      let hit = '';
      observer.fault = (call) => {
        if (observer.crashed || !isCleanerWrite(call) || ++seen !== k) return undefined;
        hit = `${call.client} ${call.command}`;
        observer.crashed = true;
        return { when, error: crashError() };
      };
      await runMaintenance(faulted, { timeLeftMs: () => 60_000, reserveMs: 0 }).catch(() => undefined);
      const label = `${topic.name}: crashed ${when} write ${k} (${hit})`;
      expect(hit, label).not.toBe('');
      await expectReadsAsReference(shared, topic, expected, label);

      // The next run: a new process past the dead one's leases (partition 30 s, job 60 s).
      const next = otherProcess(shared, skew + 62_000);
      const after = await runMaintenance(next, { timeLeftMs: () => 60_000, reserveMs: 0 });
      expect(after.errors, label).toEqual([]);
      const records = await expectReadsAsReference(shared, topic, expected, `${label}, next run`);
      expect(records.map((r) => r.offset), label).toEqual(settled);
      const snapshot = await readPartitionSnapshot(shared, topic, 0);
      expect(splitLeftovers(itemsBelowTail(snapshot)).leftovers, label).toEqual([]);
    }
  });
});
