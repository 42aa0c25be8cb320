// Subscriptions poller: started every minute by an EventBridge rule (any event means one run). It
// takes the leases of undelivered (subscription, partition) pairs, delivers their batches to the
// targets — long-polling at the tail — until HANDOVER_MS before the invocation's time limit, then
// releases its leases so the next minute's run takes them over without waiting for them to expire
// (lib/subscriptions/dispatcher.ts). Reserved concurrency caps how many runs overlap.
import type { Context } from 'aws-lambda';
import { createClients, createContext, type SluiceContext } from '../lib/context.js';
import { observeInvocation } from '../lib/observability/invocation.js';
import { logger } from '../lib/observability/logger.js';
import { type DispatchReport, runDispatcherFor } from '../lib/subscriptions/dispatcher.js';

/** Left at the end of a run: the batches in flight finish, offsets are committed, leases released. */
const HANDOVER_MS = 15_000;
/** Budget when invoked without a Lambda context (scripts, tests). */
const DEFAULT_BUDGET_MS = 30_000;

let processContext: SluiceContext | undefined;

export async function handler(_event: unknown, context?: Context): Promise<{ status: number; body: DispatchReport }> {
  const ctx = (processContext ??= createContext(createClients()));
  const remainingMs = context ? context.getRemainingTimeInMillis() : DEFAULT_BUDGET_MS;
  // Short invocations (tests, small timeouts) keep a proportionate hand-over margin.
  const deadlineMs = ctx.now() + Math.max(0, remainingMs - Math.min(HANDOVER_MS, Math.floor(remainingMs / 4)));
  const run = async () => {
    const report = await runDispatcherFor(ctx, { deadlineMs });
    logger.info('subscriptions run', { ...report });
    return { status: 200, body: report };
  };
  return observeInvocation('dispatchSubscriptions', context, run, { logger, metrics: ctx.metrics });
}
