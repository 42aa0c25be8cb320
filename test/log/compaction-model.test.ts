// The log cleaner against a reference: the keyed "latest value per key" view of a compacted topic
// under random produces (updates and tombstones), maintenance runs that clean (some killed at a
// write of the cleaning, before the request or after the server applied it), and consumers
// reading from the start while maintenance and produces run beside them. A seeded PRNG drives it;
// a failure names its seed and step. After every run:
//   - every record read is the record acknowledged at that offset (no wrong byte), offsets
//     strictly increase, logStartOffset stays 0;
//   - every key's newest record is present at its original offset, so no dropped record was the
//     newest of its key, except a tombstone, which goes only delete.retention.ms after it was
//     appended at the earliest (its horizon starts at the cleaning that first saw it);
//   - a consumer reading from offset 0 ends, for every key, with the newest value as of a point at
//     or after where it started (the value then, or one produced while it read).
// At the end, past the horizon and with the ratio at 0, the log is exactly each live key's newest record.
import { describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { TAIL_MAX_AGE_MS, runMaintenance } from '../../lib/log/maintenance.js';
import { alterTopicConfig } from '../../lib/metadata/alter-topic-config.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { type TopicMetadata, createTopic } from '../../lib/metadata/topics.js';
import { type DecodedRecord, decodeRecordBatch, readBatchHeader } from '../../lib/records/index.js';
import { readBatches } from '../../lib/log/read.js';
import { DELETE_HORIZON_FLAG } from '../../lib/log/compaction/cleaned-batch.js';
import { createTestContext } from '../support/storage.js';
import { appendKeyed, readCompacted } from './compaction-support.js';
import { otherProcess } from './maintenance-support.js';
import { type SdkCall, crashError, observeSdk } from './sdk-faults.js';

const DELETE_RETENTION_MS = 400_000;
const KEYS = 12;

/** mulberry32: a small seeded PRNG. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), chance: (p: number) => next() < p };
}

interface Acked {
  readonly offset: number;
  readonly key: string;
  readonly value: string | null;
  readonly appendedAt: number;
}

/** A write of the cleaner: a segment object, a cleaned SEG item put, a checkpoint update, a replaced item's delete. */
function isCleanerWrite(call: SdkCall): boolean {
  const input = call.input as Record<string, Record<string, Record<string, string>> | string | undefined>;
  if (call.client === 's3') return call.command === 'PutObject' && typeof input.Key === 'string' && !input.Key.includes('_intake');
  if (call.command === 'PutItem') return (input.Item as Record<string, unknown> | undefined)?.cleanedThrough !== undefined;
  if (call.command === 'UpdateItem') return String(input.UpdateExpression).includes('cleanedThrough');
  if (call.command === 'DeleteItem') return String((input.Key as Record<string, Record<string, string>>)?.sk?.S).startsWith('SEG#');
  return false;
}

class Scenario {
  skew = 0;
  readonly acked: Acked[] = [];
  /** Lease holders a crash left behind: the next run waits them out. */
  crashed = false;
  /** When a run first left each tombstone (by offset) in a batch carrying a delete horizon: the cleaning that first saw it ran then or later. */
  readonly flaggedSince = new Map<number, number>();
  /** What the runs did, for the test to show it exercised cleanings, crashes inside them and gaps. */
  readonly stats = { cleanings: 0, crashes: 0, recordsRemoved: 0, tombstonesRemoved: 0 };
  lastRunAt = 0;

  constructor(
    readonly base: SluiceContext,
    readonly topic: TopicMetadata,
    readonly rnd: ReturnType<typeof prng>,
    readonly label: string,
  ) {}

  now(): number {
    return Date.now() + this.skew;
  }

  /** A producer process at the scenario's clock. */
  producer(): SluiceContext {
    return { ...this.base, now: () => Date.now() + this.skew };
  }

  async produce(): Promise<void> {
    const records = Array.from({ length: 1 + this.rnd.int(8) }, () => {
      const key = `k${this.rnd.int(KEYS)}`;
      return [key, this.rnd.chance(0.2) ? null : `${key}=${this.acked.length}.${this.rnd.int(1000)}`] as const;
    });
    const appendedAt = this.now();
    const base = await appendKeyed(this.producer(), this.topic, records, 0, appendedAt);
    records.forEach(([key, value], i) => this.acked.push({ offset: base + i, key, value, appendedAt }));
  }

  /** One maintenance run by a fresh process, perhaps killed at the n-th write of the cleaning. */
  async maintain(crash: boolean): Promise<string> {
    // Past the idle-tail age and the grace period; after a crash past the dead run's leases too.
    this.skew += this.crashed ? 62_000 + this.rnd.int(10_000) : 20_000 + this.rnd.int(50_000);
    this.lastRunAt = this.now();
    this.crashed = false;
    const job = otherProcess(this.base, this.skew);
    let hit = '';
    if (crash) {
      const sdk = observeSdk(job);
      const at = 1 + this.rnd.int(6);
      const when = this.rnd.chance(0.5) ? 'before' : 'after';
      let seen = 0;
      sdk.fault = (call) => {
        if (sdk.crashed || !isCleanerWrite(call) || ++seen !== at) return undefined;
        hit = `${when} ${call.client} ${call.command}`;
        sdk.crashed = true;
        return { when, error: crashError() };
      };
      await runMaintenance(job, { timeLeftMs: () => 60_000, reserveMs: 0 }).catch(() => undefined);
      if (hit) {
        this.crashed = true;
        this.stats.crashes++;
      }
    } else {
      const report = await runMaintenance(job, { timeLeftMs: () => 60_000, reserveMs: 0 });
      expect(report.errors, this.label).toEqual([]);
      this.stats.cleanings += report.compaction.cleanings;
      this.stats.recordsRemoved += report.compaction.recordsRemoved;
      this.stats.tombstonesRemoved += report.compaction.tombstonesRemoved;
    }
    return hit;
  }

  /** The reference's latest record per key as of `count` acknowledged records. */
  latestAsOf(count: number): Map<string, Acked> {
    const latest = new Map<string, Acked>();
    for (const a of this.acked.slice(0, count)) latest.set(a.key, a);
    return latest;
  }

  /** Every record read is the acknowledged one at its offset. */
  expectGenuine(records: readonly DecodedRecord[], context: string): void {
    for (const r of records) {
      const a = this.acked[r.offset];
      expect(a, `${context}: offset ${r.offset} was never acknowledged`).toBeDefined();
      expect([r.key?.toString(), r.value?.toString() ?? null], `${context}: offset ${r.offset}`).toEqual([a.key, a.value]);
    }
  }

  /** The log after a run: genuine, each key's newest present, tombstones gone only after delete.retention.ms. */
  async expectLog(context: string): Promise<DecodedRecord[]> {
    const reader = this.producer();
    const records = await readCompacted(reader, this.topic, 0, 0, [1, 300, 1 << 20][this.rnd.int(3)]);
    this.expectGenuine(records, context);
    const present = new Set(records.map((r) => r.offset));
    await this.noteDeleteHorizons(reader);
    for (const [key, newest] of this.latestAsOf(this.acked.length)) {
      if (present.has(newest.offset)) continue;
      expect(newest.value, `${context}: ${key}'s newest record (offset ${newest.offset}) is gone`).toBeNull();
      expect(this.now() - newest.appendedAt, `${context}: tombstone of ${key} at ${newest.offset} gone before delete.retention.ms`).toBeGreaterThanOrEqual(DELETE_RETENTION_MS);
      const flagged = this.flaggedSince.get(newest.offset);
      expect(flagged, `${context}: tombstone at ${newest.offset} went without a delete horizon first`).toBeDefined();
      expect(this.now() - flagged!, `${context}: tombstone at ${newest.offset} gone before delete.retention.ms after its first cleaning`).toBeGreaterThanOrEqual(DELETE_RETENTION_MS);
      expect(records.some((r) => r.key?.toString() === key), `${context}: ${key} resurrected after its tombstone went`).toBe(false);
    }
    const state = await getPartitionState(reader, this.topic, 0);
    expect([state.logStartOffset, state.logEndOffset], context).toEqual([0, this.acked.length]);
    return records;
  }

  /** Records, for each tombstone now in a batch with a delete horizon, the start of the run that left it so (if not known yet). */
  async noteDeleteHorizons(reader: SluiceContext): Promise<void> {
    for (let offset = 0; ; ) {
      const read = await readBatches(reader, this.topic, 0, { offset, maxBytes: 1 << 20 });
      for (const batch of read.batches) {
        if (!(readBatchHeader(batch).attributes & DELETE_HORIZON_FLAG)) continue;
        for (const r of decodeRecordBatch(batch).records) {
          if (r.value === null && !this.flaggedSince.has(r.offset)) this.flaggedSince.set(r.offset, this.lastRunAt);
        }
      }
      if (read.nextFetchOffset >= read.highWatermark) return;
      offset = read.nextFetchOffset;
    }
  }

  /** A consumer from offset 0 while a maintenance run and a produce go on. */
  async consumeDuringMaintenance(context: string): Promise<void> {
    const startCount = this.acked.length;
    const reader = this.producer();
    const [records] = await Promise.all([
      readCompacted(reader, this.topic, 0, 0, [1, 500, 1 << 20][this.rnd.int(3)]),
      this.maintain(false),
      this.produce(),
    ]);
    const endCount = this.acked.length;
    this.expectGenuine(records, context);
    const table = new Map<string, string | null>();
    for (const r of records) table.set(r.key!.toString(), r.value?.toString() ?? null);
    const atStart = this.latestAsOf(startCount);
    for (let k = 0; k < KEYS; k++) {
      const key = `k${k}`;
      // Allowed: the key's value when the consumer started, or one produced while it read (null: absent or deleted).
      const allowed = new Set<string | null>([atStart.get(key)?.value ?? null]);
      for (const a of this.acked.slice(startCount, endCount)) if (a.key === key) allowed.add(a.value);
      expect(allowed.has(table.get(key) ?? null), `${context}: consumer ended with ${key}=${table.get(key)}, allowed ${[...allowed].join('|')}`).toBe(true);
    }
  }
}

async function run(seed: number, steps: number): Promise<Scenario> {
  const rnd = prng(seed);
  const base = await createTestContext();
  const ratio = [0, 0.3, 0.5][rnd.int(3)];
  const topic = await createTopic(base, `m${seed}`, 1, {
    'cleanup.policy': 'compact',
    'delete.retention.ms': DELETE_RETENTION_MS,
    'min.cleanable.dirty.ratio': ratio,
    'segment.bytes': 600 + rnd.int(1500),
  });
  const s = new Scenario(base, topic, rnd, `seed ${seed}`);
  for (let step = 0; step < steps; step++) {
    const context = `seed ${seed} step ${step}`;
    const op = rnd.next();
    if (op < 0.55) {
      await s.produce();
    } else if (op < 0.88) {
      const hit = await s.maintain(rnd.chance(0.4));
      await s.expectLog(`${context} after a run${hit ? ` killed ${hit}` : ''}`);
    } else {
      await s.consumeDuringMaintenance(`${context} consumer`);
      await s.expectLog(`${context} after a run beside a consumer`);
    }
  }
  return s;
}

describe('the log cleaner against a reference', () => {
  it.each([11, 29, 47])('seed %i: random produces, cleanings, crashes and concurrent consumers', { timeout: 120_000 }, async (seed) => {
    const s = await run(seed, 36);
    // Settle: the ratio at 0 (altered as Kafka's kafka-configs does), everything cleaned, then past every horizon.
    await alterTopicConfig(s.base, s.topic.name, { set: { 'min.cleanable.dirty.ratio': 0 } });
    s.skew += TAIL_MAX_AGE_MS;
    for (let i = 0; i < 4; i++) {
      await s.maintain(false);
      await s.expectLog(`seed ${seed} settling`);
    }
    s.skew += DELETE_RETENTION_MS;
    for (let i = 0; i < 2; i++) {
      await s.maintain(false);
      await s.expectLog(`seed ${seed} settling past the horizons`);
    }
    const records = await s.expectLog(`seed ${seed} settled`);
    const live = [...s.latestAsOf(s.acked.length).values()].filter((a) => a.value !== null).sort((a, b) => a.offset - b.offset);
    expect(records.map((r) => r.offset)).toEqual(live.map((a) => a.offset));
    expect(s.stats.cleanings).toBeGreaterThan(2);
    expect(s.stats.crashes).toBeGreaterThan(0);
    expect(s.stats.recordsRemoved).toBeGreaterThan(s.acked.length / 2);
    expect(s.stats.tombstonesRemoved).toBeGreaterThan(0);
  });
});
