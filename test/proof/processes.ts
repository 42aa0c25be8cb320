// "Processes" for the proof tests: every Sluice process is a SluiceContext with its own SDK clients
// (so faults injected into one never touch another), its own owner id (fresh per process start,
// as docs/ARCHITECTURE.md requires) and its own clock. Clocks are injected (`ctx.now`) so a test can move a
// process past a lease's expiry without sleeping, or skew two processes against each other.
// Appends take no lease (the leaderless protocol): the lease options only matter to maintenance.
import { createContext, type SluiceContext } from '../../lib/context.js';
import { appendToPartitions, type PartitionAppendResult } from '../../lib/log/append.js';
import { readRecords } from '../../lib/log/read.js';
import { createTopic, type TopicMetadata } from '../../lib/metadata/topics.js';
import type { TopicRef } from '../../lib/metadata/types.js';
import type { RecordInput } from '../../lib/records/index.js';
import { emulatorClients } from '../support/storage.js';

export interface ProcessOptions {
  /** Added to the real clock: a process far ahead sees every other process's lease as expired. */
  readonly skewMs?: number | (() => number);
  /** The partition leader (maintenance) lease. */
  readonly leaseMs?: number;
  readonly graceMs?: number;
}

/** A new process on the same bucket and table as `shared`. */
export function startProcess(shared: SluiceContext, options: ProcessOptions = {}): SluiceContext {
  const ctx = createContext(emulatorClients(), {
    bucket: shared.bucket,
    table: shared.table,
    prefix: shared.prefix,
    leaseMs: options.leaseMs ?? 2000,
    graceMs: options.graceMs ?? 1000,
  });
  const skew = options.skewMs ?? 0;
  const offset = typeof skew === 'number' ? () => skew : skew;
  return { ...ctx, now: () => Date.now() + offset() };
}

/** Ends a process: its SDK clients' sockets are closed (nothing of it may still be in flight). */
export function stopProcess(ctx: SluiceContext): void {
  ctx.s3.destroy();
  ctx.ddb.destroy();
}

/** A process whose clock is past every lease taken so far by processes with smaller skews. */
export function successorOf(shared: SluiceContext, previousSkewMs: number, options: ProcessOptions = {}): { ctx: SluiceContext; skewMs: number } {
  const skewMs = previousSkewMs + 60_000;
  return { ctx: startProcess(shared, { ...options, skewMs }), skewMs };
}

/** Creates a topic (every partition's STATE item with it) and returns its name and id. */
export async function createTestTopic(ctx: SluiceContext, name: string, partitions = 1, config: Record<string, unknown> = {}): Promise<TopicMetadata> {
  return createTopic(ctx, name, partitions, config);
}

let batchCounter = 0;

/** Unique record values for a new batch: `<tag>:<batch>:<i>`, so a checker can tell batches apart. */
export function batchValues(tag: string, count: number): string[] {
  const id = `${tag}:${++batchCounter}`;
  return Array.from({ length: count }, (_, i) => `${id}:${i}`);
}

export function toRecords(values: readonly string[]): RecordInput[] {
  return values.map((v, i) => ({ timestamp: 1_700_000_000_000 + i, key: Buffer.from(`k${i % 3}`), value: Buffer.from(v) }));
}

export interface ProducerIdentity {
  readonly producerId: number;
  readonly producerEpoch: number;
}

/** One append of one batch to one partition. */
export async function appendBatch(
  ctx: SluiceContext,
  topic: TopicRef,
  partition: number,
  values: readonly string[],
  producer?: ProducerIdentity & { readonly baseSequence: number },
): Promise<PartitionAppendResult> {
  const [result] = await appendToPartitions(ctx, topic, [{ partition, records: toRecords(values), producer }]);
  return result;
}

export interface LogRecord {
  readonly offset: number;
  readonly value: string;
}

/** The whole visible log of a partition, page by page, as [offset, value] pairs. */
export async function readLog(
  ctx: SluiceContext,
  topic: TopicRef,
  partition: number,
  maxBytes = 1 << 20,
): Promise<{ records: LogRecord[]; logStartOffset: number; highWatermark: number }> {
  let read = await readRecords(ctx, topic, partition, { offset: 0, maxBytes }).catch(async (e: { code?: string; details?: { logStartOffset?: number } }) => {
    // Retention moved the start: read from where the log begins now.
    if (e.code !== 'OFFSET_OUT_OF_RANGE' || e.details?.logStartOffset === undefined) throw e;
    return readRecords(ctx, topic, partition, { offset: e.details.logStartOffset, maxBytes });
  });
  const logStartOffset = read.logStartOffset;
  const records: LogRecord[] = [];
  for (;;) {
    for (const r of read.records) records.push({ offset: r.offset, value: r.value === null ? '<null>' : r.value.toString() });
    if (read.nextFetchOffset >= read.highWatermark) return { records, logStartOffset, highWatermark: read.highWatermark };
    read = await readRecords(ctx, topic, partition, { offset: read.nextFetchOffset, maxBytes });
  }
}
