// The scheduled maintenance job (the maintenance Lambda; locally a timer in `npm start`): the
// partition leader's work for every partition of every topic, in a fixed order (topics by name,
// each topic's partitions in chunks, then the topic's object sweep; finally the sweep of intake
// objects and of deleted topics' folders). For each partition of a chunk it
//   1. takes the partition leader lease (partition-state.ts acquirePartitionLease; a partition
//      whose lease someone else holds is skipped): a new epoch, on which every STATE write below
//      is conditioned,
//   2. spills an idle tail (its oldest entry older than TAIL_MAX_AGE_MS or segment.ms), so that
//      retention and merges reach every entry in bounded time (spill.ts; any process may spill),
//   3. removes idle idempotent producers' entries (PRODUCER_ENTRY_IDLE_MS),
//   4. finishes merge swaps a crash interrupted (merge.ts repairSwaps),
//   5. applies retention.ms / retention.bytes (retention.ts; not for cleanup.policy=compact alone),
// then merges the chunk's partitions together (merge.ts mergeTopic: each intake object read once
// for every partition whose ranges it holds), cleans compacted topics' partitions one at a time
// (compaction/cleaner.ts: keeps each key's newest record), sets STATE's segment counter (and, after
// a cleaning, its byte counter) to what it sees, and releases the leases. Tasks (chunks, sweeps) run `concurrency` at a time. Before starting a task
// it checks its time budget; when less than `reserveMs` is left it stops and stores the first
// unfinished task in MAINTENANCE / CURSOR, where the next run resumes (then wraps around), so any
// number of topics and partitions is covered over successive runs.
//
// Appends never wait for it: they take no lease. One run at a time holds MAINTENANCE / LEASE
// (liveness only: two overlapping runs are safe, as the partition leases, the epoch conditions and
// the conditions on every item seen keep each step's writes apart).
import type { SluiceContext } from '../context.js';
import {
  type PartitionLease,
  acquirePartitionLease,
  recordCleaning,
  recordMerge,
  releasePartitionLease,
  removeIdleProducers,
} from '../metadata/partition-state.js';
import { type TopicMetadata, hasDeletePolicy, isCompacted, listTopics } from '../metadata/topics.js';
import type { PartitionState } from '../metadata/types.js';
import { logger } from '../observability/logger.js';
import { type SweepResult, sweepDeletedTopics, sweepIntakeObjects, sweepTopic } from './cleanup.js';
import {
  type MaintenanceCursor,
  getMaintenanceCursor,
  putMaintenanceCursor,
  releaseMaintenanceLease,
  tryAcquireMaintenanceLease,
} from '../metadata/maintenance-items.js';
import { decodeEntry } from './manifest-entry.js';
import { DEFAULT_MAX_MERGE_BYTES, type MergeConfig, type PartitionMergePlan, mergeTopic, planMergeRuns, repairSwaps } from './merge.js';
import { type PartitionSnapshot, expectedByteCount, expectedSegmentCount, forEachLimited, readPartitionSnapshot } from './partition-snapshot.js';
import { type CleanResult, cleanPartition, cleanerConfigOf, emptyCleanResult } from './compaction/cleaner.js';
import { PRODUCER_ENTRY_IDLE_MS } from './producer-sequence.js';
import { applyRetention } from './retention.js';
import { spillTail } from './spill.js';

/** An idle tail is spilled once its oldest entry is this old (or segment.ms, when shorter). */
export const TAIL_MAX_AGE_MS = 60_000;
/** Partitions one task leads and merges together (their intake objects read once for all). */
export const PARTITIONS_PER_TASK = 64;
/** Partitions of a task maintained at once. */
const PARTITION_CONCURRENCY = 8;

export interface MaintenanceOptions {
  /** Milliseconds this run may still use (Lambda: context.getRemainingTimeInMillis). */
  readonly timeLeftMs: () => number;
  /** No task starts with less than this left. @default 10000 */
  readonly reserveMs?: number;
  /** Tasks (partition chunks, sweeps) in flight at once. @default 4 */
  readonly concurrency?: number;
  /** Object bytes one task's merge holds in memory. @default merge.ts DEFAULT_MAX_MERGE_BYTES */
  readonly maxMergeBytes?: number;
  /** How long a partition leader lease is taken for. @default max(ctx.leaseMs, 30000) */
  readonly partitionLeaseMs?: number;
  /** Memory of the log cleaner's key map (Kafka's log.cleaner.dedupe.buffer.size). @default compaction/cleaner.ts DEFAULT_DEDUPE_BUFFER_BYTES */
  readonly dedupeBufferBytes?: number;
}

export interface MaintenanceReport {
  /** 'busy': another run holds the job lease; nothing was done. */
  readonly outcome: 'complete' | 'stopped' | 'busy';
  readonly tasksRun: number;
  /** Partitions led (their lease taken) in this run. */
  readonly partitions: number;
  /** Partitions skipped because another process holds their leader lease. */
  readonly partitionsBusy: number;
  /** Idle STATE tails spilled into SEG items. */
  readonly tailSpills: number;
  /** Idle idempotent producers' entries removed. */
  readonly producersRemoved: number;
  readonly retention: { segments: number; bytes: number; itemsRemoved: number };
  readonly merge: {
    merges: number;
    replacedItems: number;
    replacedRanges: number;
    rewrittenBytes: number;
    abandoned: number;
    repairedItems: number;
    /** GETs of intake objects: at most one per object per task. */
    intakeObjectsRead: number;
    segmentObjectsRead: number;
    /** Runs left to a later run by the memory budget (or the time budget). */
    deferredRuns: number;
  };
  readonly sweep: { listedObjects: number; deletedObjects: number; pendingObjects: number; deletedTopics: number };
  /** The log cleaner's work on compacted topics (compaction/cleaner.ts CleanResult, summed). */
  readonly compaction: CleanResult;
  readonly errors: string[];
}

export function emptyMaintenanceReport(): MaintenanceReport {
  return {
    outcome: 'complete',
    tasksRun: 0,
    partitions: 0,
    partitionsBusy: 0,
    tailSpills: 0,
    producersRemoved: 0,
    retention: { segments: 0, bytes: 0, itemsRemoved: 0 },
    merge: {
      merges: 0,
      replacedItems: 0,
      replacedRanges: 0,
      rewrittenBytes: 0,
      abandoned: 0,
      repairedItems: 0,
      intakeObjectsRead: 0,
      segmentObjectsRead: 0,
      deferredRuns: 0,
    },
    sweep: { listedObjects: 0, deletedObjects: 0, pendingObjects: 0, deletedTopics: 0 },
    compaction: emptyCleanResult(),
    errors: [],
  };
}

/** Sorts after every legal topic name (Kafka's topic characters are [a-zA-Z0-9._-]). */
const GLOBAL_TASKS = '~';
const INTAKE_OBJECTS_TASK = 0;
const DELETED_TOPICS_TASK = 1;

interface Task {
  readonly topic: string;
  /** A chunk's first partition; `partitions`: the topic's sweep. */
  readonly task: number;
  readonly meta?: TopicMetadata;
}

const compareCursor = (a: MaintenanceCursor, b: MaintenanceCursor) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.task - b.task);

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends object ? Mutable<T[K]> : T[K] };
export type MutableMaintenanceReport = Mutable<MaintenanceReport>;

export async function runMaintenance(ctx: SluiceContext, options: MaintenanceOptions): Promise<MaintenanceReport> {
  const reserveMs = options.reserveMs ?? 10_000;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const shouldStop = () => options.timeLeftMs() < reserveMs;
  const report = emptyMaintenanceReport() as MutableMaintenanceReport;
  if (!(await tryAcquireMaintenanceLease(ctx, ctx.now() + options.timeLeftMs()))) return { ...report, outcome: 'busy' };
  try {
    const tasks: Task[] = [];
    // The resume cursor relies on this order: topics by name, whatever order the listing has.
    const topics = (await listTopics(ctx)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const meta of topics) {
      for (let p = 0; p < meta.partitions; p += PARTITIONS_PER_TASK) tasks.push({ topic: meta.name, task: p, meta });
      tasks.push({ topic: meta.name, task: meta.partitions, meta });
    }
    tasks.push({ topic: GLOBAL_TASKS, task: INTAKE_OBJECTS_TASK }, { topic: GLOBAL_TASKS, task: DELETED_TOPICS_TASK });
    const cursor = await getMaintenanceCursor(ctx);
    const start = cursor ? Math.max(0, tasks.findIndex((t) => compareCursor(t, cursor) >= 0)) : 0;
    const order = [...tasks.slice(start), ...tasks.slice(0, start)];

    const done = new Array<boolean>(order.length).fill(false);
    let next = 0;
    const worker = async () => {
      while (next < order.length && !shouldStop()) {
        const index = next++;
        const task = order[index];
        try {
          await runTask(ctx, task, report, shouldStop, options);
        } catch (e) {
          report.errors.push(`${task.topic}/${task.task}: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
          logger.error('maintenance task failed', { topic: task.topic, task: task.task, error: e as Error });
        }
        report.tasksRun++;
        done[index] = true;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));

    const firstUndone = done.indexOf(false);
    if (firstUndone >= 0) {
      report.outcome = 'stopped';
      await putMaintenanceCursor(ctx, { topic: order[firstUndone].topic, task: order[firstUndone].task });
    } else if (cursor) {
      await putMaintenanceCursor(ctx, undefined);
    }
  } finally {
    // A lease not released expires on its own (the next run waits for it), so this is no failure
    // of the run; but it is logged, since every run waiting out a lease would mean something is wrong.
    await releaseMaintenanceLease(ctx).catch((e) => logger.warn('maintenance lease not released; it expires on its own', { error: e as Error }));
  }
  ctx.metrics.retentionDeleted(report.retention.segments, report.retention.bytes);
  return report;
}

function addSweep(report: MutableMaintenanceReport, swept: SweepResult): void {
  report.sweep.listedObjects += swept.listedObjects;
  report.sweep.deletedObjects += swept.deletedObjects;
  report.sweep.pendingObjects += swept.pendingObjects;
}

async function runTask(
  ctx: SluiceContext,
  task: Task,
  report: MutableMaintenanceReport,
  shouldStop: () => boolean,
  options: MaintenanceOptions,
): Promise<void> {
  if (task.topic === GLOBAL_TASKS) {
    if (task.task === DELETED_TOPICS_TASK) report.sweep.deletedTopics += (await sweepDeletedTopics(ctx, shouldStop)).length;
    else addSweep(report, await sweepIntakeObjects(ctx, shouldStop));
    return;
  }
  const meta = task.meta!;
  if (task.task === meta.partitions) {
    addSweep(report, await sweepTopic(ctx, meta, shouldStop));
    return;
  }
  const partitions = Array.from({ length: Math.min(PARTITIONS_PER_TASK, meta.partitions - task.task) }, (_, i) => task.task + i);
  await maintainPartitions(ctx, meta, partitions, report, { ...options, shouldStop });
}

export interface MaintainPartitionsOptions {
  readonly shouldStop?: () => boolean;
  readonly maxMergeBytes?: number;
  readonly partitionLeaseMs?: number;
  readonly dedupeBufferBytes?: number;
}

/** One partition's leadership for this task: its lease and what it last read. */
interface Led {
  readonly lease: PartitionLease;
  snapshot: PartitionSnapshot;
  /** Whether this task changed its manifest (the segment count is checked again at the end). */
  changed: boolean;
  /** Whether the log cleaner ran a cleaning (the byte counter is checked again at the end). */
  cleaned?: boolean;
}

/**
 * The partition leader's work on some partitions of one topic: lease, idle-tail spill, idle
 * producers, swap repair, retention, then one merge for all of them (exported for tests and tools).
 */
export async function maintainPartitions(
  ctx: SluiceContext,
  meta: TopicMetadata,
  partitions: readonly number[],
  report: MutableMaintenanceReport,
  options: MaintainPartitionsOptions = {},
): Promise<void> {
  const shouldStop = options.shouldStop ?? (() => false);
  const leaseMs = options.partitionLeaseMs ?? Math.max(ctx.leaseMs, 30_000);
  const led: Led[] = [];
  try {
    // A task started is finished (the reserve covers it), except for merges, which can wait.
    await forEachLimited(partitions, PARTITION_CONCURRENCY, async (partition) => {
      const acquired = await acquirePartitionLease(ctx, meta, partition, leaseMs);
      if (!acquired) {
        report.partitionsBusy++;
        return;
      }
      report.partitions++;
      const entry: Led = { lease: acquired.lease, snapshot: { topic: meta, partition, state: acquired.state, items: [] }, changed: false };
      led.push(entry);
      entry.snapshot = await leadPartition(ctx, meta, acquired.lease, acquired.state, report, entry);
    });
    if (led.length === 0) return;

    // Merges of every led partition together: each intake object read once for all of them.
    const config: MergeConfig = {
      segmentBytes: meta.config['segment.bytes'],
      segmentMs: meta.config['segment.ms'],
      indexIntervalBytes: meta.config['index.interval.bytes'],
    };
    const maxBytes = options.maxMergeBytes ?? DEFAULT_MAX_MERGE_BYTES;
    const now = ctx.now();
    led.sort((a, b) => a.lease.partition - b.lease.partition);
    const plans: PartitionMergePlan[] = led.map(({ lease, snapshot }) => ({
      lease,
      snapshot,
      runs: planMergeRuns(snapshot, config, now, ctx.graceMs, maxBytes),
    }));
    if (!shouldStop() && plans.some((p) => p.runs.length > 0)) {
      const merged = await mergeTopic(ctx, meta, plans, config, maxBytes, shouldStop);
      for (const key of Object.keys(merged) as (keyof typeof merged)[]) report.merge[key] += merged[key];
      for (const entry of led) if (plans.find((p) => p.lease === entry.lease)!.runs.length > 0) entry.changed = true;
    }

    // The log cleaner, one partition at a time (each holds its key map and a group of segments).
    if (isCompacted(meta.config)) {
      for (const entry of led) {
        if (shouldStop()) break;
        const merged = plans.find((p) => p.lease === entry.lease)!.runs.length > 0;
        try {
          const snapshot = merged ? await readPartitionSnapshot(ctx, meta, entry.lease.partition) : entry.snapshot;
          const cleaned = await cleanPartition(ctx, meta, entry.lease, snapshot, cleanerConfigOf(meta.config), {
            dedupeBufferBytes: options.dedupeBufferBytes,
            maxBytes,
            shouldStop,
          });
          for (const key of Object.keys(cleaned) as (keyof CleanResult)[]) report.compaction[key] += cleaned[key];
          if (cleaned.cleanings > 0 || cleaned.abandoned > 0) entry.changed = entry.cleaned = true;
        } catch (e) {
          report.errors.push(`${meta.name}/${entry.lease.partition} cleaner: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
          logger.error('log cleaner failed', { topic: meta.name, partition: entry.lease.partition, error: e as Error });
          entry.changed = entry.cleaned = true;
        }
      }
    }

    // STATE's segment counter: set from what the leader sees, so a merge (or a swap repaired
    // later, or retention, or a cleaning) is counted exactly once whatever crashed where. After a
    // cleaning, the byte counter likewise: a cleaned segment is smaller than those it replaced.
    await forEachLimited(led, PARTITION_CONCURRENCY, async (entry) => {
      const snapshot = entry.changed ? await readPartitionSnapshot(ctx, meta, entry.lease.partition) : entry.snapshot;
      const surplus = snapshot.state.segments - expectedSegmentCount(snapshot);
      if (surplus !== 0) await recordMerge(ctx, entry.lease, surplus + 1);
      const removedBytes = entry.cleaned ? snapshot.state.bytes - expectedByteCount(ctx, snapshot) : 0;
      if (removedBytes > 0) await recordCleaning(ctx, entry.lease, removedBytes);
    });
  } finally {
    await Promise.all(
      led.map(({ lease }) =>
        releasePartitionLease(ctx, lease).catch((e) =>
          logger.warn('partition lease not released; it expires on its own', { topic: meta.name, partition: lease.partition, error: e as Error }),
        ),
      ),
    );
  }
}

/** Steps 2 to 5 for one led partition; returns what it read last. */
async function leadPartition(
  ctx: SluiceContext,
  meta: TopicMetadata,
  lease: PartitionLease,
  acquired: PartitionState,
  report: MutableMaintenanceReport,
  entry: { changed: boolean },
): Promise<PartitionSnapshot> {
  const { partition } = lease;
  /** STATE as last read; undefined once this step changed it. */
  let state: PartitionState | undefined = acquired;
  const now = ctx.now();

  // An idle tail goes to a SEG item, where retention and merges reach it.
  const maxAgeMs = Math.min(meta.config['segment.ms'], TAIL_MAX_AGE_MS);
  if (acquired.tail.length > 0 && decodeEntry(ctx, acquired.tailBase, acquired.tail[0]).createdAt <= now - maxAgeMs) {
    if (await spillTail(ctx, meta, acquired)) report.tailSpills++;
    state = undefined;
  }

  const idle = Object.entries(acquired.producers)
    .filter(([, producer]) => producer.lastUpdated <= now - PRODUCER_ENTRY_IDLE_MS)
    .map(([producerId, producer]) => ({ producerId, lastUpdated: producer.lastUpdated }));
  if (idle.length > 0) {
    if (await removeIdleProducers(ctx, meta, partition, idle)) report.producersRemoved += idle.length;
    state = undefined;
  }

  let snapshot = await readPartitionSnapshot(ctx, meta, partition, state);
  const repaired = await repairSwaps(ctx, snapshot);
  report.merge.repairedItems += repaired;
  if (repaired > 0) {
    entry.changed = true;
    snapshot = await readPartitionSnapshot(ctx, meta, partition);
  }

  // cleanup.policy=compact alone keeps every key's newest record forever: no retention by time or size.
  const deletes = hasDeletePolicy(meta.config);
  const retained = await applyRetention(ctx, lease, snapshot, {
    retentionMs: deletes ? meta.config['retention.ms'] : -1,
    retentionBytes: deletes ? meta.config['retention.bytes'] : -1,
  });
  report.retention.segments += retained.deletedSegments;
  report.retention.bytes += retained.deletedBytes;
  report.retention.itemsRemoved += retained.removedItems;
  if (retained.removedItems > 0 || retained.deletedSegments > 0) {
    entry.changed = true;
    snapshot = await readPartitionSnapshot(ctx, meta, partition);
  }
  return snapshot;
}

export interface MaintenanceTimer {
  /** Stops scheduling and waits for a run in progress. */
  stop(): Promise<void>;
}

/**
 * Runs the job every `intervalMs` (the local server's stand-in for the EventBridge schedule),
 * each run with a budget of 80% of the interval. Reports go to `onReport`, failures to `onError`.
 */
export function startMaintenanceTimer(
  ctx: SluiceContext,
  intervalMs: number,
  onReport: (report: MaintenanceReport) => void = () => undefined,
  onError: (error: unknown) => void = (error) => logger.error('maintenance run failed', { error: error as Error }),
): MaintenanceTimer {
  let stopped = false;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      const deadline = ctx.now() + Math.max(1000, intervalMs * 0.8);
      running = runMaintenance(ctx, {
        timeLeftMs: () => deadline - ctx.now(),
        reserveMs: Math.min(10_000, Math.max(200, intervalMs / 10)),
      })
        .then(onReport, onError)
        .finally(() => {
          running = undefined;
          schedule();
        });
    }, intervalMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
