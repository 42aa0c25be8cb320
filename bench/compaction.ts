// Log compaction (issue 16): what the log cleaner (lib/log/compaction/cleaner.ts) costs. A compacted
// topic gets rounds of updates to the same keys; after each, the leader's maintenance merges the
// appends into segments (with a compaction lag that keeps the cleaner out), then one cleaning runs
// alone under a request counter: bytes read and rewritten per byte it freed (rewrite amplification:
// a cleaning rewrites the clean part of the log too, as Kafka's does), and S3 / DynamoDB requests
// per segment it replaced. The log is read back after each round and must hold exactly one record
// per key.
//
// Run alone (prints the section): NODE_OPTIONS=--openssl-legacy-provider npx tsx bench/compaction.ts
import { pathToFileURL } from 'node:url';
import type { SluiceContext } from '../lib/context.js';
import { appendToPartitions } from '../lib/log/append.js';
import { type CleanResult, cleanPartition, cleanerConfigOf, planCleaning } from '../lib/log/compaction/cleaner.js';
import { TAIL_MAX_AGE_MS, runMaintenance } from '../lib/log/maintenance.js';
import { readPartitionSnapshot } from '../lib/log/partition-snapshot.js';
import { readRecords } from '../lib/log/read.js';
import { acquirePartitionLease, releasePartitionLease } from '../lib/metadata/partition-state.js';
import { type TopicMetadata, createTopic } from '../lib/metadata/topics.js';
import { countStorageRequests } from './request-counter.js';
import { type BenchStorage, startBenchStorage } from './storage.js';

const KEYS = 2_000;
const VALUE_BYTES = 100;
const RECORDS_PER_APPEND = 500;
const SEGMENT_BYTES = 256 * 1024;

export interface CompactionRound {
  readonly label: string;
  /** Updates appended before this cleaning (all keys, round-robin). */
  readonly updates: number;
  /** Merged segments and their bytes before the cleaning. */
  readonly segmentsBefore: number;
  readonly bytesBefore: number;
  /** Share of those bytes not cleaned yet (what min.cleanable.dirty.ratio is compared with). */
  readonly dirtyRatio: number;
  readonly clean: CleanResult;
  /** Storage requests of the cleaning alone, by kind. */
  readonly counts: Readonly<Record<string, number>>;
  readonly ms: number;
  /** Records a fetch from the beginning returned after it (must be KEYS). */
  readonly recordsAfter: number;
}

export interface CompactionResult {
  readonly keys: number;
  readonly valueBytes: number;
  readonly segmentBytes: number;
  readonly rounds: readonly CompactionRound[];
}

async function appendUpdates(ctx: SluiceContext, topic: TopicMetadata, updates: number, round: number): Promise<void> {
  for (let from = 0; from < updates; from += RECORDS_PER_APPEND) {
    const records = Array.from({ length: Math.min(RECORDS_PER_APPEND, updates - from) }, (_, i) => ({
      timestamp: ctx.now(),
      key: Buffer.from(`key-${String((from + i) % KEYS).padStart(5, '0')}`),
      value: Buffer.alloc(VALUE_BYTES, 97 + ((round + from + i) % 26)),
    }));
    const [result] = await appendToPartitions(ctx, topic, [{ partition: 0, records }]);
    if ('error' in result) throw result.error;
  }
}

async function countRecords(ctx: SluiceContext, topic: TopicMetadata): Promise<number> {
  let n = 0;
  for (let offset = 0; ; ) {
    const read = await readRecords(ctx, topic, 0, { offset, maxBytes: 1 << 20 });
    n += read.records.length;
    if (read.nextFetchOffset >= read.highWatermark) return n;
    offset = read.nextFetchOffset;
  }
}

export async function benchCompaction(storage: BenchStorage, progress: (message: string) => void = () => undefined): Promise<CompactionResult> {
  const base = await storage.newContext();
  let skew = 0;
  const ctx: SluiceContext = { ...base, now: () => Date.now() + skew };
  // The lag keeps the maintenance job's own cleaner away: the measured cleaning runs alone below.
  const topic = await createTopic(ctx, 'changelog', 1, { 'cleanup.policy': 'compact', 'segment.bytes': SEGMENT_BYTES, 'min.compaction.lag.ms': 3_600_000 });
  const counter = countStorageRequests(ctx);
  const rounds: CompactionRound[] = [];
  const plan = [
    { label: 'first cleaning: 10 versions of every key', updates: 10 * KEYS },
    { label: 'second cleaning: 2 more versions of every key', updates: 2 * KEYS },
    { label: 'third cleaning: 1 more version of a quarter of the keys', updates: KEYS / 4 },
  ];
  for (const [round, step] of plan.entries()) {
    progress(`compaction: ${step.label}`);
    await appendUpdates(ctx, topic, step.updates, round);
    // Spill, merge, and let the merged segments age past the grace period.
    for (let run = 0; run < 3; run++) {
      skew += TAIL_MAX_AGE_MS + ctx.graceMs + 1;
      const report = await runMaintenance(ctx, { timeLeftMs: () => 600_000, reserveMs: 0 });
      if (report.errors.length > 0) throw new Error(`maintenance failed: ${report.errors.join('; ')}`);
    }
    skew += ctx.graceMs + 1;
    const snapshot = await readPartitionSnapshot(ctx, topic, 0);
    const below = snapshot.items.filter((i) => i.lastOffset < snapshot.state.tailBase);
    const cleanerConfig = { ...cleanerConfigOf(topic.config), minCompactionLagMs: 0, minCleanableDirtyRatio: 0 };
    const dirtyRatio = planCleaning(snapshot, cleanerConfig, ctx.now(), ctx.graceMs);
    const acquired = await acquirePartitionLease(ctx, topic, 0, 600_000);
    if (!acquired) throw new Error('partition lease not acquired');
    counter.reset();
    const started = performance.now();
    // Forced (ratio 0): the cost of a cleaning at each dirty share, including one the default ratio would still wait for.
    const clean = await cleanPartition(ctx, topic, acquired.lease, snapshot, cleanerConfig);
    const ms = performance.now() - started;
    const counts = counter.byKind();
    await releasePartitionLease(ctx, acquired.lease);
    const recordsAfter = await countRecords(ctx, topic);
    if (recordsAfter !== KEYS) throw new Error(`after ${step.label}: ${recordsAfter} records, expected one per key (${KEYS})`);
    const ratio = dirtyRatio.dirtyBytes / Math.max(1, dirtyRatio.dirtyBytes + dirtyRatio.cleanBytes);
    rounds.push({ label: step.label, updates: step.updates, segmentsBefore: below.length, bytesBefore: below.reduce((n, i) => n + i.size, 0), dirtyRatio: ratio, clean, counts, ms, recordsAfter });
  }
  return { keys: KEYS, valueBytes: VALUE_BYTES, segmentBytes: SEGMENT_BYTES, rounds };
}

export function compactionSection(r: CompactionResult): string {
  const fx = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
  const kib = (n: number) => `${fx(n / 1024, 1)} KiB`;
  const ddbWrites = (c: Readonly<Record<string, number>>) => (c['ddb:PutItem'] ?? 0) + (c['ddb:UpdateItem'] ?? 0) + (c['ddb:DeleteItem'] ?? 0);
  const per = (n: number, of: number) => (of === 0 ? 'n/a' : fx(n / of));
  const rows = r.rounds.map((round) => {
    const { clean, counts } = round;
    const replaced = clean.cleanedItems;
    return (
      `| ${round.label} | ${round.segmentsBefore} (${kib(round.bytesBefore)}) | ${fx(round.dirtyRatio)} | ${clean.cleanedItems} → ${clean.segmentsWritten} | ${kib(clean.bytesRead)} | ` +
      `${kib(clean.bytesWritten)} | ${kib(clean.bytesRemoved)} | **${fx(clean.bytesWritten / clean.bytesRemoved)}** | ${fx(clean.bytesRead / clean.bytesRemoved)} | ` +
      `${per(counts['s3:GetObject'] ?? 0, replaced)} | ${per(counts['s3:PutObject'] ?? 0, replaced)} | ${per(ddbWrites(counts), replaced)} | ${fx(round.ms, 0)} |`
    );
  });
  const first = r.rounds[0];
  const last = r.rounds[r.rounds.length - 1];
  const amp = (round: CompactionRound) => round.clean.bytesWritten / round.clean.bytesRemoved;
  return [
    '## (f) Log compaction: what a cleaning costs',
    '',
    `A compacted topic of ${r.keys} keys with ${r.valueBytes}-byte values, \`segment.bytes\` ${r.segmentBytes}; after each round of updates the`,
    'maintenance job merges the appends into segments, then one cleaning (lib/log/compaction/cleaner.ts) runs alone under a request',
    'counter, forced whatever the dirty ratio (the default `min.cleanable.dirty.ratio` 0.5 waits for a dirty ratio of 0.5: rows below it',
    `show what it saves). After every round a fetch from the beginning returned exactly one record per key (${r.rounds.map((x) => x.recordsAfter).join(', ')}).`,
    `"Rewritten per byte freed" is \`.log\` bytes written / bytes the cleaning removed: ${fx(amp(first))} in the first cleaning (dirty ratio`,
    `${fx(first.dirtyRatio)}) and ${fx(amp(last))} in the last (dirty ratio ${fx(last.dirtyRatio)}): ` +
      (amp(last) > amp(first)
        ? "higher, since a cleaning rewrites the clean part of the log as well, as Kafka's cleaner does; the ratio bounds how often."
        : 'no higher, though a cleaning rewrites the clean part of the log as well.'),
    'Requests are per segment the cleaning replaced: a segment holding records is read once (one GET: the map\'s reads are kept for',
    'the rewrite within the 64 MiB budget; a segment the cleaner left empty needs none), each written segment is one `.log` PUT plus its',
    'indexes, the swap one PutItem and one DeleteItem per other segment of its group, and a segment nothing changed in one UpdateItem.',
    '',
    '| cleaning | segments before (bytes) | dirty ratio | segments replaced → written | read | written | freed | rewritten per byte freed | read per byte freed | GETs per segment | PUTs per segment | DynamoDB writes per segment | ms |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const storage = await startBenchStorage();
  try {
    console.log(compactionSection(await benchCompaction(storage, (m) => console.error(m))));
  } finally {
    await storage.close();
  }
}
