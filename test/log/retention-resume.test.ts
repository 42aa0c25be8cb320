// The job's time budget: a run stops before its budget runs out, stores where it stopped, and
// the next run resumes there, so any number of partitions is covered over successive runs. A
// second run while one holds the job lease does nothing.
import { describe, expect, it } from 'vitest';
import { runMaintenance } from '../../lib/log/maintenance.js';
import { getMaintenanceCursor, tryAcquireMaintenanceLease } from '../../lib/metadata/maintenance-items.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createContext } from '../../lib/context.js';
import { createTestContext, emulatorClients } from '../support/storage.js';
import type { TopicMetadata } from '../../lib/metadata/topics.js';
import { appendSpilled, runOnce } from './maintenance-support.js';

describe('maintenance budget and resume', () => {
  it('covers every partition over several short runs, each resuming where the last stopped', async () => {
    const ctx = await createTestContext();
    const topics: TopicMetadata[] = [];
    for (const name of ['t-a', 't-b', 't-c', 't-d', 't-e']) {
      const topic = await createTopic(ctx, name, 2, { 'retention.bytes': 1 });
      topics.push(topic);
      // Each append spilled into a SEG item of its own: three segments per partition.
      for (const p of [0, 1]) for (let i = 0; i < 3; i++) await appendSpilled(ctx, topic, [`${name}-${p}-${i}`], ctx.now(), p);
    }
    const order = topics.flatMap((topic) => [0, 1].map((p) => ({ topic, p })));
    const retained = async () => {
      const done: boolean[] = [];
      for (const { topic, p } of order) done.push((await getPartitionState(ctx, topic, p)).logStartOffset === 2);
      return done;
    };

    // Each run may check its budget only a few times: it stops early every time.
    let runs = 0;
    let covered = 0;
    for (; runs < 30 && covered < order.length; runs++) {
      let checks = 4;
      const report = await runMaintenance(ctx, { timeLeftMs: () => (checks-- > 0 ? 60_000 : 0), reserveMs: 1000, concurrency: 1 });
      expect(report.errors).toEqual([]);
      const done = await retained();
      const now = done.filter(Boolean).length;
      // Progress is a growing prefix of the fixed order: the cursor resumes, never restarts.
      expect(done).toEqual(order.map((_, i) => i < now));
      if (now < order.length) {
        expect(report.outcome).toBe('stopped');
        expect(await getMaintenanceCursor(ctx)).toBeDefined();
      }
      expect(now).toBeGreaterThanOrEqual(covered);
      covered = now;
    }
    expect(covered).toBe(order.length);
    expect(runs).toBeGreaterThan(2);

    // With a full budget a run completes the whole cycle.
    expect((await runOnce(ctx)).outcome).toBe('complete');
  });

  it('does nothing while another run holds the job lease', async () => {
    const ctx = await createTestContext();
    const leased = await createTopic(ctx, 'leased', 1, { 'retention.bytes': 1 });
    for (let i = 0; i < 3; i++) await appendSpilled(ctx, leased, [`v${i}`]);
    const other = createContext(emulatorClients(), { bucket: ctx.bucket, table: ctx.table });
    expect(await tryAcquireMaintenanceLease(other, other.now() + 60_000)).toBe(true);
    expect((await runOnce(ctx)).outcome).toBe('busy');
    expect((await getPartitionState(ctx, leased, 0)).logStartOffset).toBe(0);
  });
});
