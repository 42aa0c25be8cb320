// Failures inside the maintenance job are never silent: a failed task is in the report and in the
// structured log, a lease that could not be released is logged (it expires on its own), and the
// local timer logs a run that threw when nobody passed an onError.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runMaintenance, startMaintenanceTimer } from '../../lib/log/maintenance.js';
import { logger } from '../../lib/observability/logger.js';
import { createTestContext } from '../support/storage.js';
import { observeSdk } from './sdk-faults.js';

afterEach(() => vi.restoreAllMocks());

const budget = { timeLeftMs: () => 30_000, reserveMs: 1000 };

describe('maintenance errors', () => {
  it('logs a lease it could not release', async () => {
    const ctx = await createTestContext();
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const sdk = observeSdk(ctx);
    sdk.fault = (call) => (call.command === 'DeleteItem' ? { when: 'before', error: Object.assign(new Error('injected'), { name: 'InternalServerError' }) } : undefined);
    const report = await runMaintenance(ctx, budget);
    expect(report.outcome).not.toBe('busy');
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('lease not released'), expect.objectContaining({ error: expect.any(Error) }));
  });

  it('logs a failed task as well as reporting it', async () => {
    const ctx = await createTestContext();
    const error = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const sdk = observeSdk(ctx);
    // Every S3 request fails: the sweeps of intake objects and deleted topics (tasks of every run) throw.
    sdk.fault = (call) => (call.client === 's3' ? { when: 'before', error: Object.assign(new Error('injected'), { name: 'AccessDenied' }) } : undefined);
    const report = await runMaintenance(ctx, budget);
    expect(report.errors.length).toBeGreaterThan(0);
    expect(error).toHaveBeenCalledWith('maintenance task failed', expect.objectContaining({ error: expect.any(Error) }));
  });

  it('the timer logs a run that threw when no onError is given', async () => {
    const ctx = await createTestContext();
    const error = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const sdk = observeSdk(ctx);
    sdk.crashed = true; // every request fails: the run cannot even take its lease
    const timer = startMaintenanceTimer(ctx, 50);
    await vi.waitFor(() => expect(error).toHaveBeenCalledWith('maintenance run failed', expect.objectContaining({ error: expect.anything() })), { timeout: 5000 });
    await timer.stop();
  });
});
