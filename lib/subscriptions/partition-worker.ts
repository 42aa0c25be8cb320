// One poller's delivery of one partition of one subscription, while it holds the partition's
// delivery lease (delivery-lease.ts).
//
// Start: take the lease (with an epoch above the committed offset's generation), read the committed
// offset again and re-commit it with the new epoch, which fences every earlier holder's commits;
// with nothing committed, start where the subscription's starting position says.
//
// Then, round after round: gather up to batchSize × parallelizationFactor records from the next
// offset (lib/log/read.ts), waiting up to maximumBatchingWindowMs for a full batch; split them into
// parallelizationFactor lanes by the murmur2 hash of the key (keyless records by offset), so the
// records of one key stay in one lane, in order; deliver each lane's batches in order (batch-delivery.ts),
// the lanes concurrently; after each settled batch, commit the offset of the lowest record of the
// round not yet settled (the partition's lowest fully delivered point). A commit happens only after
// the target accepted (or onFailure recorded) everything below it, so a crash redelivers, never skips.
//
// The lease is renewed every leaseMs / 3 in the background; the worker starts no delivery once it
// lost the lease, the lease has less than leaseMs / 5 left (renewals failing), its stop was asked
// or its deadline passed; on stopping it commits what settled and hands the lease on.
import { setTimeout as sleep } from 'node:timers/promises';
import type { SluiceContext } from '../context.js';
import { isSluiceError } from '../errors.js';
import { readRecords } from '../log/read.js';
import type { TopicRef } from '../metadata/types.js';
import { logger } from '../observability/logger.js';
import { murmur2, toPositive } from '../partitioners/index.js';
import type { DecodedRecord } from '../records/index.js';
import { type Backoff, backoffDelay, deliverBatch } from './batch-delivery.js';
import { buildEvent } from './delivery-event.js';
import { acquireDeliveryLease, type DeliveryLease, releaseDeliveryLease, renewDeliveryLease } from './delivery-lease.js';
import { type DispatchReport, deliveryMetrics } from './delivery-metrics.js';
import { type FailureCondition, type FailureSender, failureRecord } from './failure-destination.js';
import type { StoredSubscription } from './subscription-store.js';
import { commitSubscriptionOffset, readCommittedPosition, startingOffset } from './subscription-offsets.js';
import type { TargetInvoker } from './targets/target-invoker.js';

export interface WorkerOptions {
  readonly owner: string;
  readonly invoker: TargetInvoker;
  readonly failureSender: FailureSender;
  /** Pause between reads of a caught-up partition. */
  readonly pollIntervalMs: number;
  readonly leaseMs: number;
  readonly backoff: Backoff;
  /** Estimated event bytes per batch at most (Lambda's synchronous payload limit is 6 MB). */
  readonly maxBatchBytes: number;
  /** No delivery starts at or after this time (ctx.now()). */
  readonly deadlineMs?: number;
  /** Counters shared by the dispatcher's workers. */
  readonly report: DispatchReport;
  /** Aborted when the dispatcher stops: sleeps end at once. */
  readonly signal: AbortSignal;
}

/** Bytes one read asks for. */
const READ_BYTES = 1 << 20;
/** Emit position metrics of an idle partition at most this often. */
const IDLE_METRICS_MS = 60_000;

class Abandoned extends Error {}

export class PartitionWorker {
  private stopping = false;
  private lost = false;
  private committed: number;
  private fetchOffset: number;
  private buffer: DecodedRecord[] = [];
  private windowStart: number | undefined;
  private highWatermark = 0;
  private lastIdleMetrics = 0;
  /** The position written to the group (`committed` is the position reached). */
  private written: number;
  private committing = false;
  private commits: Promise<void> = Promise.resolve();
  /** Resolves when the worker has stopped and handed its lease on. */
  readonly done: Promise<void>;

  private constructor(
    private readonly ctx: SluiceContext,
    readonly subscription: StoredSubscription,
    private readonly topic: TopicRef,
    readonly partition: number,
    private lease: DeliveryLease,
    start: number,
    private readonly options: WorkerOptions,
  ) {
    this.committed = start;
    this.written = start;
    this.fetchOffset = start;
    this.done = this.run();
  }

  /** Takes the partition's lease and starts delivering; undefined when another poller holds it. */
  static async start(ctx: SluiceContext, sub: StoredSubscription, topic: TopicRef, partition: number, options: WorkerOptions): Promise<PartitionWorker | undefined> {
    const seen = await readCommittedPosition(ctx, sub.group, sub.topic, partition);
    const lease = await acquireDeliveryLease(ctx, sub.name, partition, options.owner, options.leaseMs, seen?.commitGeneration ?? 0);
    if (!lease) return undefined;
    try {
      // Read again under the lease: an earlier holder may have committed since the first read.
      const committed = await readCommittedPosition(ctx, sub.group, sub.topic, partition);
      const start = committed?.offset ?? (await startingOffset(ctx, sub, topic, partition, false));
      await commitSubscriptionOffset(ctx, sub, partition, start, lease.epoch);
      options.report.leasesTaken++;
      logger.info('subscription partition leased', { subscription: sub.name, partition, epoch: lease.epoch, offset: start });
      return new PartitionWorker(ctx, sub, topic, partition, lease, start, options);
    } catch (e) {
      await releaseDeliveryLease(ctx, lease).catch(() => undefined);
      if (isSluiceError(e) && e.code === 'ILLEGAL_GENERATION') return undefined; // a newer holder got there first
      throw e;
    }
  }

  /** Asks the worker to stop after the deliveries in flight; await `done`. */
  stop(): void {
    this.stopping = true;
  }

  /** Whether the worker may start a delivery now. */
  active(): boolean {
    const now = this.ctx.now();
    return (
      !this.stopping &&
      !this.lost &&
      !this.options.signal.aborted &&
      now < this.lease.expiresAt - this.options.leaseMs / 5 &&
      (this.options.deadlineMs === undefined || now < this.options.deadlineMs)
    );
  }

  private async run(): Promise<void> {
    const renewal = setInterval(() => void this.renew(), Math.max(50, Math.floor(this.options.leaseMs / 3)));
    try {
      while (this.active()) {
        const round = await this.gather();
        if (round.length === 0) {
          this.idleMetrics();
          await this.pause(this.options.pollIntervalMs);
          continue;
        }
        deliveryMetrics.position(this.ctx, this.subscription.name, Math.max(0, this.highWatermark - this.committed), Math.max(0, this.ctx.now() - round[0].timestamp));
        await this.deliverRound(round);
      }
    } catch (e) {
      this.options.report.errors++;
      logger.error('subscription partition worker failed', { subscription: this.subscription.name, partition: this.partition, error: String(e) });
    } finally {
      clearInterval(renewal);
      await this.commits;
      if (this.written < this.committed && !this.lost) await this.flushCommits();
      if (!this.lost) await releaseDeliveryLease(this.ctx, this.lease).catch(() => undefined);
    }
  }

  private async renew(): Promise<void> {
    if (this.lost) return;
    try {
      const renewed = await renewDeliveryLease(this.ctx, this.lease, this.options.leaseMs);
      if (renewed) this.lease = renewed;
      else this.loseLease('renewal refused');
    } catch (e) {
      logger.warn('subscription lease renewal failed', { subscription: this.subscription.name, partition: this.partition, error: String(e) });
    }
  }

  private loseLease(why: string): void {
    if (this.lost) return;
    this.lost = true;
    this.options.report.leasesLost++;
    logger.warn('subscription partition lease lost', { subscription: this.subscription.name, partition: this.partition, epoch: this.lease.epoch, why });
  }

  private async pause(ms: number): Promise<void> {
    await sleep(ms, undefined, { signal: this.options.signal }).catch(() => undefined);
  }

  /** Up to batchSize × parallelizationFactor records from the next offset, after the batching window. */
  private async gather(): Promise<DecodedRecord[]> {
    const { batchSize, parallelizationFactor, maximumBatchingWindowMs } = this.subscription;
    const target = batchSize * parallelizationFactor;
    while (this.buffer.length < target && this.active()) {
      let read;
      try {
        read = await readRecords(this.ctx, this.topic, this.partition, { offset: this.fetchOffset, maxBytes: READ_BYTES });
      } catch (e) {
        if (isSluiceError(e) && e.code === 'OFFSET_OUT_OF_RANGE') {
          this.outOfRange(e.details);
          continue;
        }
        if (isSluiceError(e) && e.code === 'UNKNOWN_TOPIC_OR_PARTITION') throw e;
        logger.warn('subscription read failed', { subscription: this.subscription.name, partition: this.partition, offset: this.fetchOffset, error: String(e) });
        await this.pause(this.options.pollIntervalMs);
        break;
      }
      this.highWatermark = read.highWatermark;
      this.fetchOffset = Math.max(this.fetchOffset, read.nextFetchOffset);
      if (read.records.length > 0) {
        this.buffer.push(...read.records);
        this.windowStart ??= this.ctx.now();
        if (read.nextFetchOffset < read.highWatermark) continue;
      }
      // Caught up with the log end.
      if (this.buffer.length === 0) break;
      const waited = this.ctx.now() - this.windowStart!;
      if (waited >= maximumBatchingWindowMs) break;
      await this.pause(Math.min(this.options.pollIntervalMs, maximumBatchingWindowMs - waited));
    }
    const round = this.buffer.splice(0, target);
    this.windowStart = this.buffer.length > 0 ? this.ctx.now() : undefined;
    return round;
  }

  /** The next offset fell out of the log: retention removed it (jump to the log start) or the log was cut. */
  private outOfRange(details: Readonly<Record<string, unknown>>): void {
    const logStart = Number(details.logStartOffset ?? 0);
    const logEnd = Number(details.highWatermark ?? 0);
    const to = this.fetchOffset < logStart ? logStart : logEnd;
    logger.warn('subscription offset out of range', { subscription: this.subscription.name, partition: this.partition, offset: this.fetchOffset, resetTo: to });
    this.buffer = [];
    this.fetchOffset = to;
    this.commitUpTo(to);
  }

  /** Delivers one round's lanes concurrently and commits as records settle. */
  private async deliverRound(round: readonly DecodedRecord[]): Promise<void> {
    const settled = new Set<number>();
    let lowest = 0;
    const settle = (records: readonly DecodedRecord[]) => {
      for (const r of records) settled.add(r.offset);
      while (lowest < round.length && settled.has(round[lowest].offset)) lowest++;
      this.commitUpTo(lowest < round.length ? round[lowest].offset : round[round.length - 1].offset + 1);
    };
    let abandoned = false;
    await Promise.all(
      this.lanes(round).map(async (lane) => {
        for (const batch of this.batches(lane)) {
          if (abandoned || (await this.deliver(batch, settle)) === 'abandoned') {
            abandoned = true;
            return;
          }
        }
      }),
    );
    await this.commits;
    if (abandoned) {
      // Stopping: whatever did not settle is the next holder's to deliver.
      this.buffer = [];
      this.fetchOffset = this.committed;
    }
  }

  private async deliver(batch: readonly DecodedRecord[], settle: (records: readonly DecodedRecord[]) => void): Promise<'settled' | 'abandoned'> {
    const sub = this.subscription;
    const { report } = this.options;
    try {
      return await deliverBatch(
        sub,
        this.partition,
        batch,
        {
          invoke: (records) => this.options.invoker.invoke(sub, JSON.stringify(buildEvent(sub.name, sub.topic, this.partition, records))),
          delivered: (records) => {
            report.recordsDelivered += records.length;
            report.batchesDelivered++;
            deliveryMetrics.delivered(this.ctx, sub.name, records.length, 1);
            settle(records);
          },
          failed: (records, error, attempt) => {
            report.deliveryFailures++;
            deliveryMetrics.failed(this.ctx, sub.name);
            logger.warn('subscription delivery failed', { subscription: sub.name, partition: this.partition, firstOffset: records[0].offset, lastOffset: records[records.length - 1].offset, attempt, error });
          },
          giveUp: async (records, condition, invokeCount, error) => {
            await this.giveUp(records, condition, invokeCount, error);
            report.onFailureRecords += records.length;
            deliveryMetrics.gaveUp(this.ctx, sub.name, records.length);
            settle(records);
          },
          active: () => this.active(),
          sleep: (ms) => this.pause(ms),
          now: () => this.ctx.now(),
        },
        this.options.backoff,
      );
    } catch (e) {
      if (e instanceof Abandoned) return 'abandoned';
      throw e;
    }
  }

  /** Records the given-up records at onFailure, retrying until it is recorded or the worker must stop. */
  private async giveUp(records: readonly DecodedRecord[], condition: FailureCondition, invokeCount: number, error: string): Promise<void> {
    const sub = this.subscription;
    const message = failureRecord(sub.name, sub.topic, this.partition, records, condition, invokeCount, error, this.ctx.now());
    logger.error('subscription records sent to onFailure', { ...message.KafkaBatchInfo, subscription: sub.name, condition, error, destination: sub.onFailure?.type ?? 'none' });
    if (!sub.onFailure) return;
    for (let attempt = 1; ; attempt++) {
      if (!this.active()) throw new Abandoned();
      try {
        await this.options.failureSender.send(sub.onFailure, message);
        return;
      } catch (e) {
        logger.error('subscription onFailure destination refused', { subscription: sub.name, partition: this.partition, destination: sub.onFailure, error: String(e) });
        await this.pause(backoffDelay(this.options.backoff, attempt));
      }
    }
  }

  /** Commits `offset` (in the background, after the commits before it) if it moves the position on. */
  private commitUpTo(offset: number): void {
    if (offset <= this.committed) return;
    this.committed = offset;
    if (!this.committing) this.commits = this.flushCommits();
  }

  /**
   * Writes the newest position until the written one catches up: positions reached while a write
   * is in flight are coalesced into the next write. A fenced commit loses the lease; any other
   * failure leaves the position to the next commit (or to redelivery, if none comes).
   */
  private async flushCommits(): Promise<void> {
    this.committing = true;
    try {
      while (this.written < this.committed && !this.lost) {
        const offset = this.committed;
        try {
          await commitSubscriptionOffset(this.ctx, this.subscription, this.partition, offset, this.lease.epoch);
          this.written = offset;
        } catch (e) {
          if (isSluiceError(e) && e.code === 'ILLEGAL_GENERATION') return this.loseLease('commit fenced by a newer holder');
          this.options.report.errors++;
          logger.warn('subscription offset commit failed', { subscription: this.subscription.name, partition: this.partition, offset, error: String(e) });
          return;
        }
      }
    } finally {
      this.committing = false;
    }
  }

  /** The round's records by lane: one lane per key hash modulo parallelizationFactor, each in offset order. */
  private lanes(round: readonly DecodedRecord[]): DecodedRecord[][] {
    const n = this.subscription.parallelizationFactor;
    if (n === 1) return [[...round]];
    const lanes: DecodedRecord[][] = Array.from({ length: n }, () => []);
    for (const r of round) lanes[r.key === null ? r.offset % n : toPositive(murmur2(r.key)) % n].push(r);
    return lanes.filter((l) => l.length > 0);
  }

  /** A lane cut into batches of batchSize records and at most maxBatchBytes of event. */
  private *batches(lane: readonly DecodedRecord[]): Generator<DecodedRecord[]> {
    let batch: DecodedRecord[] = [];
    let bytes = 0;
    for (const r of lane) {
      const size = eventBytes(r);
      if (batch.length > 0 && (batch.length >= this.subscription.batchSize || bytes + size > this.options.maxBatchBytes)) {
        yield batch;
        batch = [];
        bytes = 0;
      }
      batch.push(r);
      bytes += size;
    }
    if (batch.length > 0) yield batch;
  }

  private idleMetrics(): void {
    const now = this.ctx.now();
    if (now - this.lastIdleMetrics < IDLE_METRICS_MS) return;
    this.lastIdleMetrics = now;
    deliveryMetrics.position(this.ctx, this.subscription.name, Math.max(0, this.highWatermark - this.committed), 0);
  }
}

/** A record's approximate size in the event: base64 key and value, headers as byte arrays, field names. */
function eventBytes(r: DecodedRecord): number {
  const base64 = (b: Buffer | null) => (b === null ? 0 : Math.ceil(b.length / 3) * 4);
  return 160 + base64(r.key) + base64(r.value) + r.headers.reduce((sum, h) => sum + h.key.length + 8 + (h.value?.length ?? 0) * 4, 0);
}
