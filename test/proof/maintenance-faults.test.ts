// Fault injection at every AWS call of the maintenance job for one partition — compaction-swap
// repair, retention (retention.bytes) and compaction (merging small segments), then the object
// sweep — enumerated from a clean run. After the faulted run, the next scheduled run (a new
// process whose clock is past the grace period) runs cleanly, the writer appends once more, and
// the shared checker verifies the log: dense from logStartOffset, every acknowledged record that
// retention kept still at its offset, nothing duplicated, the manifest tiling the log.
import { describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { sweepTopic } from '../../lib/log/cleanup.js';
import { maintainPartition, type MaintenanceReport } from '../../lib/log/maintenance.js';
import { createTopic, getTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';
import { FAULT_KINDS, injectAt, recordCalls } from './faults.js';
import { checkLogInvariants, Ledger } from './invariants.js';
import { appendBatch, batchValues, startProcess } from './processes.js';

function emptyReport(): MaintenanceReport {
  return {
    outcome: 'complete',
    tasksRun: 0,
    partitions: 0,
    tailSpills: 0,
    retention: { segments: 0, bytes: 0, itemsRemoved: 0 },
    compaction: { merges: 0, replacedItems: 0, replacedRanges: 0, rewrittenBytes: 0, abandoned: 0, repairedItems: 0 },
    sweep: { listedObjects: 0, deletedObjects: 0, pendingObjects: 0, deletedTopics: 0 },
    errors: [],
  };
}

async function maintain(ctx: SluiceContext, topic: string): Promise<MaintenanceReport> {
  const meta = (await getTopic(ctx, topic))!;
  const report = emptyReport();
  await maintainPartition(ctx, meta, 0, report as never);
  await sweepTopic(ctx, topic, meta.partitions);
  return report;
}

async function populate(shared: SluiceContext, writer: SluiceContext, topic: string, ledger: Ledger) {
  await createTopic(shared, topic, 1, { 'retention.bytes': 2000, 'segment.bytes': 1500 });
  for (let i = 0; i < 7; i++) {
    const values = batchValues(topic, 1 + (i % 3)).map((v) => `${v}:${'m'.repeat(150)}`);
    // As the produce API does: the topic's segment.bytes rolls STATE's tail into SEG items.
    expect(ledger.settle(ledger.begin(0, values), await appendBatch(writer, topic, 0, values, undefined, { segmentBytes: 1500 }))).toBe(true);
  }
}

describe('fault injection at every AWS call of retention, compaction and sweep', () => {
  it.each(FAULT_KINDS)('%s at every call index: the log stays consistent and the next run completes it', async (kind) => {
    const shared = await createTestContext({ graceMs: 1000 });
    const writer = startProcess(shared);

    const cleanLedger = new Ledger();
    await populate(shared, writer, `clean-${kind}`, cleanLedger);
    const clean = startProcess(shared, { skewMs: 10_000 });
    const calls = recordCalls(clean);
    const cleanReport = await maintain(clean, `clean-${kind}`);
    const total = calls.calls.length;
    expect(cleanReport.retention.segments + cleanReport.compaction.merges).toBeGreaterThan(0);
    const cleanCheck = await checkLogInvariants(shared, `clean-${kind}`, 0, cleanLedger);
    expect(cleanCheck.logStartOffset).toBeGreaterThan(0);

    let fired = 0;
    for (let k = 1; k <= total; k++) {
      const topic = `mf-${kind}-${k}`;
      const ledger = new Ledger();
      await populate(shared, writer, topic, ledger);
      const job = startProcess(shared, { skewMs: 10_000 });
      const injection = injectAt(job, k, kind);
      try {
        await maintain(job, topic);
      } catch {
        // A failed run is fine: the log must be consistent anyway, and the next run finishes it.
      }
      if (injection.hit) fired++;
      const label = `${topic} (${injection.hit ? `${injection.hit.client} ${injection.hit.command}` : 'no fault'})`;
      await checkLogInvariants(shared, topic, 0, ledger, `${label} after the faulted run`);
      await maintain(startProcess(shared, { skewMs: 20_000 }), topic);
      const values = batchValues(topic, 1);
      expect(ledger.settle(ledger.begin(0, values), await appendBatch(writer, topic, 0, values)), label).toBe(true);
      const check = await checkLogInvariants(shared, topic, 0, ledger, `${label} after the next run`);
      expect(check.logStartOffset, label).toBe(cleanCheck.logStartOffset);
    }
    expect(fired).toBeGreaterThan(kind === 'condition' ? 0 : total - 2);
  });
});
