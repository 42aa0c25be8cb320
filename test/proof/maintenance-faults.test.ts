// Fault injection at every storage write of the partition leader's maintenance of one partition:
// the idle-tail spill, retention (retention.bytes), a merge swap with leftovers to delete, the
// segment count, the lease release, then the topic's object sweep, enumerated from a clean run (a
// crash at a read is a crash before the next write). A fault kills the process: before a call is
// sent, or after the server applied it (the reply is lost). After the faulted run the log must
// read exactly as acknowledged; the next run (a new process whose clock is past the dead one's
// lease and the grace period) must settle it: no leftovers, counters right, the same
// logStartOffset as the clean run.
import { describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { sweepTopic } from '../../lib/log/cleanup.js';
import { type MutableMaintenanceReport, emptyMaintenanceReport, maintainPartitions } from '../../lib/log/maintenance.js';
import { readPartitionState } from '../../lib/metadata/partition-state.js';
import { type TopicMetadata, createTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';
import { expectConsistentPartition, otherProcess } from '../log/maintenance-support.js';
import { crashError, observeSdk } from '../log/sdk-faults.js';

const APPENDS = 28;
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'PutObject', 'DeleteObjects']);
const value = (i: number) => `v${String(i).padStart(3, '0')}:${'m'.repeat(80)}`;

async function maintain(ctx: SluiceContext, topic: TopicMetadata): Promise<MutableMaintenanceReport> {
  const report = emptyMaintenanceReport() as MutableMaintenanceReport;
  await maintainPartitions(ctx, topic, [0], report);
  await sweepTopic(ctx, topic);
  return report;
}

/** 28 appends: SEG#0, SEG#8 and SEG#16 spilled by the appenders (who filled the tail), 4 entries in the tail. */
async function populate(ctx: SluiceContext, name: string, retentionBytes: number) {
  const topic = await createTopic(ctx, name, 1, { 'retention.bytes': retentionBytes });
  const expected = new Map<number, string>();
  for (let i = 0; i < APPENDS; i++) {
    const [res] = await appendToPartitions(ctx, topic, [{ partition: 0, records: [{ timestamp: ctx.now(), key: null, value: Buffer.from(value(i)) }] }]);
    if ('error' in res) throw res.error;
    expected.set(res.baseOffset, value(i));
  }
  return { topic, expected };
}

describe('fault injection at every AWS call of the partition leader’s maintenance', () => {
  it.each(['before', 'after'] as const)('a crash %s each call: the log reads as acknowledged and the next run settles it', async (when) => {
    const shared = await createTestContext({ graceMs: 1000 });
    // Retention keeps 20 of the 28 batches' bytes: SEG#0 goes, SEG#8 and SEG#16 are merged.
    const probe = await createTopic(shared, `probe-${when}`, 1);
    await appendToPartitions(shared, probe, [{ partition: 0, records: [{ timestamp: shared.now(), key: null, value: Buffer.from(value(0)) }] }]);
    const batchBytes = (await readPartitionState(shared, probe, 0))!.bytes;
    const retentionBytes = 20 * batchBytes;

    const skew = 61_000 + 1_100;
    const clean = await populate(shared, `clean-${when}`, retentionBytes);
    const job = otherProcess(shared, skew);
    const sdk = observeSdk(job);
    const cleanReport = await maintain(job, clean.topic);
    // A crash at a read is a crash before the next write: only the writes are enumerated.
    const writes = sdk.calls.flatMap((call, i) => (WRITES.has(call.command) ? [i + 1] : []));
    expect(cleanReport).toMatchObject({ tailSpills: 1, retention: { segments: 1 }, merge: { merges: 1, replacedItems: 2 } });
    const cleanStart = (await expectConsistentPartition(shared, clean.topic, clean.expected)).state.logStartOffset;
    expect(cleanStart).toBe(8);

    let fired = 0;
    for (const k of writes) {
      const { topic, expected } = await populate(shared, `mf-${when}-${k}`, retentionBytes);
      const faulted = otherProcess(shared, skew);
      const observer = observeSdk(faulted);
      let hit = '';
      observer.fault = (call, index) => {
        if (index !== k) return undefined;
        hit = `${call.client} ${call.command}`;
        observer.crashed = true;
        return { when, error: crashError() };
      };
      await maintain(faulted, topic).catch(() => undefined);
      if (hit) fired++;
      const label = `${topic.name} (${hit || 'no fault'})`;
      try {
        await expectConsistentPartition(shared, topic, expected, { settled: false });
        // The next run: past the dead process's partition lease (30 s) and the grace period.
        await maintain(otherProcess(shared, skew + 31_000 + 1_100), topic);
        const { state } = await expectConsistentPartition(shared, topic, expected);
        expect(state.logStartOffset).toBe(cleanStart);
      } catch (e) {
        throw new Error(`${label}: ${(e as Error).message}`);
      }
    }
    expect(fired).toBe(writes.length);
    expect(writes.length).toBeGreaterThan(10);
  });
});
