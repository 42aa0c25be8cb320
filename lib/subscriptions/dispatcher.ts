// The dispatcher: a poller that delivers every enabled subscription's partitions whose delivery
// lease it can take (partition-worker.ts does one partition). Every `refreshIntervalMs` it lists
// the subscriptions and their leases, starts a worker for each partition whose lease is free or
// expired (a dead poller's partitions are taken over this way, once its leases expire), and stops
// the workers of subscriptions deleted, disabled or re-created, and of topics deleted. Any number
// of dispatchers may run against one table: the leases keep each partition with one of them.
//
//   startDispatcher   runs until stopped: `npm start` (lib/local/main.ts)
//   runDispatcherFor  runs until a deadline, then commits, hands its leases on and reports: the
//                     poller Lambda, started on a schedule, with the deadline inside its timeout
//                     (leave room for the longest delivery in flight: no delivery starts after
//                     the deadline, but one in flight finishes)
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SluiceContext } from '../context.js';
import { getTopic } from '../metadata/topics.js';
import { logger } from '../observability/logger.js';
import { type Backoff, DEFAULT_BACKOFF } from './batch-delivery.js';
import { isHeld, listDeliveryLeases } from './delivery-lease.js';
import { type DispatchReport, emptyReport } from './delivery-metrics.js';
import { type FailureSender, type FailureSenderOptions, defaultFailureSender } from './failure-destination.js';
import { PartitionWorker } from './partition-worker.js';
import { listStoredSubscriptions, type StoredSubscription } from './subscription-store.js';
import { type TargetInvoker, type TargetOptions, defaultInvoker } from './targets/target-invoker.js';

export type { DispatchReport } from './delivery-metrics.js';

export interface DispatcherOptions extends TargetOptions, FailureSenderOptions {
  /** Delivers batches. @default Lambda Invoke and signed HTTPS POSTs (targets/) */
  readonly invoker?: TargetInvoker;
  /** Records failures at onFailure. @default SQS, SNS and Sluice topics (failure-destination.ts) */
  readonly failureSender?: FailureSender;
  /** Pause between reads of a caught-up partition: the delivery latency at the tail. @default 100 */
  readonly pollIntervalMs?: number;
  /** How often subscriptions and leases are listed (new subscriptions, free partitions). @default 1000 */
  readonly refreshIntervalMs?: number;
  /** Delivery lease length: a dead poller's partitions are taken over after this. @default 10000 */
  readonly leaseMs?: number;
  /** This poller's lease owner id. @default a fresh id per dispatcher */
  readonly ownerId?: string;
  /** Partitions this poller delivers at most (the rest is left to other pollers). @default 1000 */
  readonly maxPartitions?: number;
  /** Retry backoff of a failing batch. @default { baseMs: 200, maxMs: 30000 } */
  readonly backoff?: Partial<Backoff>;
  /** Estimated event bytes per batch at most. @default 5000000 (Lambda's synchronous payload limit is 6 MB) */
  readonly maxBatchBytes?: number;
  /** Only these subscriptions. @default all */
  readonly subscriptions?: readonly string[];
  /** Only subscriptions with these target types (`npm start` leaves Lambda targets out unless a Lambda endpoint is configured). @default both */
  readonly targetTypes?: readonly ('lambda' | 'https')[];
}

export interface Dispatcher {
  /** Stops taking partitions, lets deliveries in flight finish, commits and hands every lease on. */
  stop(): Promise<void>;
  /** The counters so far. */
  report(): DispatchReport;
}

/** Starts a dispatcher that runs until stopped. */
export function startDispatcher(ctx: SluiceContext, options: DispatcherOptions = {}): Dispatcher {
  return new DispatcherLoop(ctx, options);
}

/** Runs a dispatcher until `deadlineMs` (a time by ctx.now()), then hands its leases on and reports. */
export async function runDispatcherFor(ctx: SluiceContext, options: DispatcherOptions & { readonly deadlineMs: number }): Promise<DispatchReport> {
  const loop = new DispatcherLoop(ctx, options, options.deadlineMs);
  await loop.finished;
  return loop.report();
}

class DispatcherLoop implements Dispatcher {
  private readonly workers = new Map<string, PartitionWorker>();
  private readonly abort = new AbortController();
  private readonly counters = emptyReport();
  private readonly owner: string;
  private readonly invoker: TargetInvoker;
  private readonly failureSender: FailureSender;
  private readonly pollIntervalMs: number;
  private readonly refreshIntervalMs: number;
  private readonly leaseMs: number;
  private readonly backoff: Backoff;
  readonly finished: Promise<void>;

  constructor(
    private readonly ctx: SluiceContext,
    private readonly options: DispatcherOptions,
    private readonly deadlineMs?: number,
  ) {
    this.owner = options.ownerId ?? `${ctx.ownerId}/${randomUUID().slice(0, 8)}`;
    this.invoker = options.invoker ?? defaultInvoker(ctx, options);
    this.failureSender = options.failureSender ?? defaultFailureSender(ctx, options);
    this.pollIntervalMs = options.pollIntervalMs ?? 100;
    this.refreshIntervalMs = options.refreshIntervalMs ?? 1000;
    this.leaseMs = options.leaseMs ?? 10_000;
    this.backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
    this.finished = this.run();
  }

  report(): DispatchReport {
    return { ...this.counters };
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.finished;
  }

  private running(): boolean {
    return !this.abort.signal.aborted && (this.deadlineMs === undefined || this.ctx.now() < this.deadlineMs);
  }

  private async run(): Promise<void> {
    while (this.running()) {
      try {
        await this.refresh();
      } catch (e) {
        this.counters.errors++;
        logger.error('subscription dispatcher refresh failed', { error: String(e) });
      }
      const untilDeadline = this.deadlineMs === undefined ? Infinity : this.deadlineMs - this.ctx.now();
      await sleep(Math.max(0, Math.min(this.refreshIntervalMs, untilDeadline)), undefined, { signal: this.abort.signal }).catch(() => undefined);
    }
    for (const worker of this.workers.values()) worker.stop();
    await Promise.all([...this.workers.values()].map((w) => w.done));
    this.workers.clear();
    this.abort.abort();
  }

  private async refresh(): Promise<void> {
    const only = this.options.subscriptions && new Set(this.options.subscriptions);
    const types = new Set(this.options.targetTypes ?? ['lambda', 'https']);
    const subs = (await listStoredSubscriptions(this.ctx)).filter((s) => s.enabled && types.has(s.target.type) && (!only || only.has(s.name)));
    const current = new Map(subs.map((s) => [s.name, s] as const));
    // Workers of subscriptions gone, disabled or re-created stop (and leave the map when done).
    for (const worker of this.workers.values()) {
      const sub = current.get(worker.subscription.name);
      if (!sub || sub.createdAt !== worker.subscription.createdAt) worker.stop();
    }
    for (const sub of subs) {
      if (!this.running()) return;
      await this.takePartitions(sub);
    }
  }

  /** Starts workers for the subscription's partitions whose leases are free or expired. */
  private async takePartitions(sub: StoredSubscription): Promise<void> {
    const topic = await getTopic(this.ctx, sub.topic);
    if (!topic || topic.id !== sub.topicId) {
      for (const worker of this.workers.values()) if (worker.subscription.name === sub.name) worker.stop();
      return;
    }
    const leases = new Map((await listDeliveryLeases(this.ctx, sub.name)).map((l) => [l.partition, l] as const));
    const now = this.ctx.now();
    const room = (this.options.maxPartitions ?? 1000) - this.workers.size;
    const free = Array.from({ length: topic.partitions }, (_, p) => p)
      .filter((p) => !this.workers.has(key(sub.name, p)))
      .filter((p) => !isHeld(leases.get(p), now) || leases.get(p)?.owner === this.owner)
      .slice(0, Math.max(0, room));
    const workerOptions = {
      owner: this.owner,
      invoker: this.invoker,
      failureSender: this.failureSender,
      pollIntervalMs: this.pollIntervalMs,
      leaseMs: this.leaseMs,
      backoff: this.backoff,
      maxBatchBytes: this.options.maxBatchBytes ?? 5_000_000,
      deadlineMs: this.deadlineMs,
      report: this.counters,
      signal: this.abort.signal,
    };
    await Promise.all(
      free.map(async (partition) => {
        const worker = await PartitionWorker.start(this.ctx, sub, topic, partition, workerOptions);
        if (!worker) return;
        if (this.running()) {
          const k = key(sub.name, partition);
          this.workers.set(k, worker);
          // A finished worker (stopped, lease lost, topic deleted) makes room for the next one.
          void worker.done.then(() => this.workers.get(k) === worker && this.workers.delete(k));
        } else {
          worker.stop();
          await worker.done;
        }
      }),
    );
  }
}

const key = (subscription: string, partition: number) => `${subscription}#${partition}`;
