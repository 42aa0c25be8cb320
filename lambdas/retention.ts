// Retention function: invoked by the EventBridge schedule (any event means "run one maintenance
// pass"): retention, segment merging and the orphan sweep over all topics (lib/log/maintenance.ts),
// within the invocation's time budget; a pass cut short resumes where it stopped on the next run.
import type { Context } from 'aws-lambda';
import { createClients, createContext, type SluiceContext } from '../lib/context.js';
import { type MaintenanceReport, runMaintenance } from '../lib/log/maintenance.js';
import { observeInvocation } from '../lib/observability/invocation.js';
import { logger } from '../lib/observability/logger.js';

/** Left unused at the end of an invocation: the last task's work plus the cursor write must fit. */
const RESERVE_MS = 30_000;
/** Budget when invoked without a Lambda context (scripts, tests). */
const DEFAULT_BUDGET_MS = 60_000;

let processContext: SluiceContext | undefined;

export async function handler(_event: unknown, context?: Context): Promise<{ status: number; body: MaintenanceReport }> {
  const ctx = (processContext ??= createContext(createClients()));
  const deadline = Date.now() + DEFAULT_BUDGET_MS;
  const timeLeftMs = context ? () => context.getRemainingTimeInMillis() : () => deadline - Date.now();
  // Short-lived invocations (tests, small timeouts) keep a proportionate reserve.
  const reserveMs = Math.min(RESERVE_MS, Math.floor(timeLeftMs() / 4));
  const run = async () => {
    const report = await runMaintenance(ctx, { timeLeftMs, reserveMs });
    logger.info('maintenance run', { ...report, errors: report.errors.slice(0, 20) });
    return { status: report.errors.length > 0 ? 500 : 200, body: report };
  };
  return observeInvocation('maintenance', context, run, { logger, metrics: ctx.metrics });
}
