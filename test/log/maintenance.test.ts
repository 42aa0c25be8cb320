// lib/log/maintenance.ts: the job. One run at a time (the job lease), a report of what it did,
// idle tails spilled, partitions led by someone else skipped, the resume cursor, and the timer.
import { describe, expect, it } from 'vitest';
import { emptyMaintenanceReport, maintainPartitions, runMaintenance, startMaintenanceTimer, TAIL_MAX_AGE_MS, type MutableMaintenanceReport } from '../../lib/log/maintenance.js';
import { acquirePartitionLease, getPartitionState } from '../../lib/metadata/partition-state.js';
import { tryAcquireMaintenanceLease } from '../../lib/metadata/maintenance-items.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';
import { appendValues, runOnce, withClock } from './maintenance-support.js';

describe('maintenance (emulator)', () => {
  it('an empty report to start from', () => {
    const r = emptyMaintenanceReport();
    expect(r).toMatchObject({ outcome: 'complete', tasksRun: 0, partitions: 0, errors: [] });
    expect(emptyMaintenanceReport()).not.toBe(r);
  });

  it('busy while another run holds the job lease; otherwise every partition led and idle tails spilled', async () => {
    const ctx = withClock(await createTestContext());
    const topic = await createTopic(ctx, 't', 2);
    await appendValues(ctx, topic, ['a']);
    const other = { ...ctx, ownerId: 'someone-else' };
    expect(await tryAcquireMaintenanceLease(other, ctx.now() + 60_000)).toBe(true);
    expect((await runOnce(ctx)).outcome).toBe('busy');
    ctx.advance(61_000 + TAIL_MAX_AGE_MS);
    const report = await runOnce(ctx);
    expect(report.outcome).toBe('complete');
    expect(report.partitions).toBe(2);
    expect(report.tasksRun).toBeGreaterThanOrEqual(2);
    expect(report.tailSpills).toBe(1);
    expect(report.errors).toEqual([]);
    const state = await getPartitionState(ctx, topic, 0);
    expect(state.tail).toEqual([]);
    expect(state.tailBase).toBe(1);
  });

  it('a partition whose leader lease someone else holds is skipped and counted', async () => {
    const ctx = withClock(await createTestContext());
    const topic = await createTopic(ctx, 't', 2);
    expect(await acquirePartitionLease({ ...ctx, ownerId: 'other' }, topic, 1, 60_000)).toBeDefined();
    const report = emptyMaintenanceReport() as MutableMaintenanceReport;
    await maintainPartitions(ctx, topic, [0, 1], report);
    expect(report.partitions).toBe(1);
    expect(report.partitionsBusy).toBe(1);
  });

  it('stops when the time budget runs out (outcome stopped), and the next run resumes', async () => {
    const ctx = await createTestContext();
    for (const name of ['a', 'b', 'c']) await createTopic(ctx, name, 1);
    const stopped = await runMaintenance(ctx, { timeLeftMs: () => 5, reserveMs: 10 });
    expect(stopped.outcome).toBe('stopped');
    expect(stopped.tasksRun).toBe(0);
    const full = await runMaintenance(ctx, { timeLeftMs: () => 60_000, reserveMs: 0 });
    expect(full.outcome).toBe('complete');
    expect(full.partitions).toBe(3);
  });

  it('the timer runs the job every interval until stopped', async () => {
    const ctx = await createTestContext();
    await createTopic(ctx, 't', 1);
    const reports: string[] = [];
    const timer = startMaintenanceTimer(ctx, 100, (r) => reports.push(r.outcome));
    await new Promise((r) => setTimeout(r, 900));
    await timer.stop();
    const count = reports.length;
    expect(count).toBeGreaterThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(reports.length).toBe(count);
  });
});
