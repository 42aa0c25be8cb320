// The scheduled maintenance job (the retention Lambda; locally a timer in `npm start`): for every
// partition of every topic, in a fixed order (topics by name, partitions 0..n-1, then the topic's
// object sweep; finally the sweep of shared produce objects and of deleted topics' folders), it
//   0. spills the STATE tail of a partition with no live leader once it is old (partition-tail.ts),
//   1. finishes compaction swaps a crash interrupted (compaction.ts repairSwaps),
//   2. applies retention.ms / retention.bytes (retention.ts),
//   3. merges small segments (compaction.ts),
// and sweeps unreferenced objects (cleanup.ts). Tasks run `concurrency` at a time. Before starting
// a task it checks its time budget; when less than `reserveMs` is left it stops and stores the
// first unfinished task in MAINTENANCE / CURSOR, where the next run resumes (then wraps around),
// so any number of topics and partitions is covered over successive runs.
//
// It never takes a partition's lease and writes STATE only with conditions the leader's commit
// does not depend on (the idle-tail spill only while no lease is live), so produce and fetch of a
// partition never wait for it. One run at a time
// holds MAINTENANCE / LEASE (liveness only: every step is safe even if two runs overlap).
import type { SluiceContext } from '../context.js';
import { type TopicMetadata, listTopics } from '../metadata/topics.js';
import { metrics } from '../observability/metrics.js';
import { type SweepResult, sweepDeletedTopics, sweepSharedObjects, sweepTopic } from './cleanup.js';
import { compactPartition, repairSwaps } from './compaction.js';
import {
  type MaintenanceCursor,
  getMaintenanceCursor,
  putMaintenanceCursor,
  releaseMaintenanceLease,
  tryAcquireMaintenanceLease,
} from './maintenance-store.js';
import { readPartitionSnapshot } from './partition-snapshot.js';
import { spillIdleTail, tailLimits } from './partition-tail.js';
import { applyRetention } from './retention.js';

export interface MaintenanceOptions {
  /** Milliseconds this run may still use (Lambda: context.getRemainingTimeInMillis). */
  readonly timeLeftMs: () => number;
  /** No task starts with less than this left. @default 10000 */
  readonly reserveMs?: number;
  /** Tasks (partitions, sweeps) in flight at once. @default 4 */
  readonly concurrency?: number;
  /** Cap on one merge's size in memory. @default compaction.ts DEFAULT_MAX_MERGE_BYTES */
  readonly maxMergeBytes?: number;
}

export interface MaintenanceReport {
  /** 'busy': another run holds the job lease; nothing was done. */
  readonly outcome: 'complete' | 'stopped' | 'busy';
  readonly tasksRun: number;
  readonly partitions: number;
  /** Idle partitions' STATE tails spilled into SEG items. */
  readonly tailSpills: number;
  readonly retention: { segments: number; bytes: number; itemsRemoved: number };
  readonly compaction: { merges: number; replacedItems: number; replacedRanges: number; rewrittenBytes: number; abandoned: number; repairedItems: number };
  readonly sweep: { listedObjects: number; deletedObjects: number; pendingObjects: number; deletedTopics: number };
  readonly errors: string[];
}

/** Sorts after every legal topic name (Kafka's topic characters are [a-zA-Z0-9._-]). */
const GLOBAL_TASKS = '~';
const SHARED_OBJECTS_TASK = 0;
const DELETED_TOPICS_TASK = 1;

interface Task {
  readonly topic: string;
  /** 0..partitions-1: a partition; partitions: the topic's sweep. */
  readonly task: number;
  readonly meta?: TopicMetadata;
}

const compareCursor = (a: MaintenanceCursor, b: MaintenanceCursor) =>
  a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.task - b.task;

export async function runMaintenance(ctx: SluiceContext, options: MaintenanceOptions): Promise<MaintenanceReport> {
  const reserveMs = options.reserveMs ?? 10_000;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const shouldStop = () => options.timeLeftMs() < reserveMs;
  const report = {
    outcome: 'complete' as MaintenanceReport['outcome'],
    tasksRun: 0,
    partitions: 0,
    tailSpills: 0,
    retention: { segments: 0, bytes: 0, itemsRemoved: 0 },
    compaction: { merges: 0, replacedItems: 0, replacedRanges: 0, rewrittenBytes: 0, abandoned: 0, repairedItems: 0 },
    sweep: { listedObjects: 0, deletedObjects: 0, pendingObjects: 0, deletedTopics: 0 },
    errors: [] as string[],
  };
  if (!(await tryAcquireMaintenanceLease(ctx, ctx.now() + options.timeLeftMs()))) return { ...report, outcome: 'busy' };
  try {
    const tasks: Task[] = [];
    // The resume cursor relies on this order: topics by name, whatever order the listing has.
    const topics = (await listTopics(ctx)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const meta of topics) {
      for (let p = 0; p <= meta.partitions; p++) tasks.push({ topic: meta.name, task: p, meta });
    }
    tasks.push({ topic: GLOBAL_TASKS, task: SHARED_OBJECTS_TASK }, { topic: GLOBAL_TASKS, task: DELETED_TOPICS_TASK });
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
          await runTask(ctx, task, topics, report, shouldStop, options);
        } catch (e) {
          report.errors.push(`${task.topic}/${task.task}: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
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
    await releaseMaintenanceLease(ctx).catch(() => undefined);
  }
  metrics.retentionDeleted(report.retention.segments, report.retention.bytes);
  return report;
}

/** The counters tasks add to. */
type MutableReport = { -readonly [K in 'partitions' | 'tailSpills' | 'retention' | 'compaction' | 'sweep']: MaintenanceReport[K] };

function addSweep(report: MutableReport, swept: SweepResult): void {
  report.sweep.listedObjects += swept.listedObjects;
  report.sweep.deletedObjects += swept.deletedObjects;
  report.sweep.pendingObjects += swept.pendingObjects;
}

async function runTask(
  ctx: SluiceContext,
  task: Task,
  topics: readonly TopicMetadata[],
  report: MutableReport,
  shouldStop: () => boolean,
  options: MaintenanceOptions,
): Promise<void> {
  if (task.topic === GLOBAL_TASKS) {
    if (task.task === DELETED_TOPICS_TASK) {
      report.sweep.deletedTopics += (await sweepDeletedTopics(ctx, shouldStop)).length;
    } else {
      addSweep(report, await sweepSharedObjects(ctx, topics, shouldStop));
    }
    return;
  }
  const meta = task.meta!;
  if (task.task === meta.partitions) {
    addSweep(report, await sweepTopic(ctx, meta.name, meta.partitions, shouldStop));
    return;
  }
  report.partitions++;
  await maintainPartition(ctx, meta, task.task, report, shouldStop, options.maxMergeBytes);
}

/** Repair, retention and compaction of one partition (exported for tests and tools). */
export async function maintainPartition(
  ctx: SluiceContext,
  meta: TopicMetadata,
  partition: number,
  report: MutableReport,
  shouldStop: () => boolean = () => false,
  maxMergeBytes?: number,
): Promise<void> {
  let snapshot = await readPartitionSnapshot(ctx, meta.name, partition);
  // An idle partition's old tail goes to a SEG item, where retention and compaction reach it.
  if (await spillIdleTail(ctx, snapshot.state, tailLimits({ segmentMs: meta.config['segment.ms'] }).maxAgeMs)) {
    report.tailSpills++;
    snapshot = await readPartitionSnapshot(ctx, meta.name, partition);
  }
  if (snapshot.items.length === 0) return;
  const repaired = await repairSwaps(ctx, snapshot);
  report.compaction.repairedItems += repaired;
  if (repaired > 0) snapshot = await readPartitionSnapshot(ctx, meta.name, partition);

  const retained = await applyRetention(ctx, snapshot, {
    retentionMs: meta.config['retention.ms'],
    retentionBytes: meta.config['retention.bytes'],
  });
  report.retention.segments += retained.deletedSegments;
  report.retention.bytes += retained.deletedBytes;
  report.retention.itemsRemoved += retained.removedItems;
  if (retained.removedItems > 0 || retained.deletedSegments > 0) snapshot = await readPartitionSnapshot(ctx, meta.name, partition);

  if (shouldStop()) return;
  const compacted = await compactPartition(
    ctx,
    snapshot,
    {
      segmentBytes: meta.config['segment.bytes'],
      segmentMs: meta.config['segment.ms'],
      indexIntervalBytes: meta.config['index.interval.bytes'],
      maxMergeBytes,
    },
    shouldStop,
  );
  report.compaction.merges += compacted.merges;
  report.compaction.replacedItems += compacted.replacedItems;
  report.compaction.replacedRanges += compacted.replacedRanges;
  report.compaction.rewrittenBytes += compacted.rewrittenBytes;
  report.compaction.abandoned += compacted.abandoned;
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
  onError: (error: unknown) => void = () => undefined,
): MaintenanceTimer {
  let stopped = false;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      const deadline = Date.now() + Math.max(1000, intervalMs * 0.8);
      running = runMaintenance(ctx, {
        timeLeftMs: () => deadline - Date.now(),
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
