// Helpers shared by the retention, merge and cleanup tests: a context with a movable clock, appends
// of known values, the invariants a partition must satisfy after any maintenance, and a check that
// every merged segment in the bucket is Kafka's layout.
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { expect } from 'vitest';
import { type SluiceContext, createContext } from '../../lib/context.js';
import { emulatorClients } from '../support/storage.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { type MaintenanceReport, runMaintenance } from '../../lib/log/maintenance.js';
import { decodeEntries, rangesOf } from '../../lib/log/manifest-entry.js';
import { expectedSegmentCount, itemsBelowTail, readPartitionSnapshot, splitLeftovers } from '../../lib/log/partition-snapshot.js';
import { PARTITION_LEADER_EPOCH } from '../../lib/log/batch-stamp.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import type { TopicRef } from '../../lib/metadata/types.js';
import { spillTail } from '../../lib/log/spill.js';
import { decodeRecordBatch } from '../../lib/records/index.js';
import { decodeOffsetIndex, decodeTimeIndex } from './index-files.js';
import { readAll } from './read-all.js';
export { readAll };

export interface ClockedContext extends SluiceContext {
  /** Moves this context's clock (ctx.now) forward. */
  advance(ms: number): void;
}

/** The same context with its own clock: real time plus a skew the test moves forward. */
export function withClock(ctx: SluiceContext, skewMs = 0): ClockedContext {
  let skew = skewMs;
  return { ...ctx, now: () => Date.now() + skew, advance: (ms: number) => void (skew += ms) };
}

/** Appends one batch of `values` stamped `timestamp` (default ctx.now()) to one partition; returns its base offset. */
export async function appendValues(ctx: SluiceContext, topic: TopicRef, values: string[], timestamp = ctx.now(), partition = 0): Promise<number> {
  const [result] = await appendToPartitions(ctx, topic, [
    { partition, records: values.map((v) => ({ timestamp, key: null, value: Buffer.from(v) })) },
  ]);
  if ('error' in result) throw result.error;
  return result.baseOffset;
}

/** One maintenance run with a generous budget and no reserve. */
export function runOnce(ctx: SluiceContext, maxMergeBytes?: number): Promise<MaintenanceReport> {
  return runMaintenance(ctx, { timeLeftMs: () => 60_000, reserveMs: 0, maxMergeBytes });
}

export async function bucketKeys(ctx: SluiceContext, prefix?: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await ctx.s3.send(new ListObjectsV2Command({ Bucket: ctx.bucket, Prefix: prefix, ContinuationToken: token }));
    for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys.sort();
}

async function getObject(ctx: SluiceContext, key: string): Promise<Buffer> {
  const out = await ctx.s3.send(new GetObjectCommand({ Bucket: ctx.bucket, Key: key }));
  return Buffer.from(await out.Body!.transformToByteArray());
}

/**
 * The partition's invariants: readable densely from logStartOffset to the high watermark with the
 * expected value at every offset; the items below tailBase, then STATE's tail, form one gap-free,
 * overlap-free chain reaching logStartOffset (no leftovers, nothing below it, when `settled`);
 * STATE's bytes and segments counters equal the chain's. Returns the chain.
 */
export async function expectConsistentPartition(
  ctx: SluiceContext,
  topic: TopicRef,
  expected: ReadonlyMap<number, string>,
  options: { partition?: number; settled?: boolean } = {},
) {
  const partition = options.partition ?? 0;
  const snapshot = await readPartitionSnapshot(ctx, topic, partition);
  const { state } = snapshot;
  const { records, highWatermark } = await readAll(ctx, topic, partition, state.logStartOffset);
  expect(highWatermark).toBe(state.logEndOffset);
  expect(records.map((r) => r.offset)).toEqual(Array.from({ length: highWatermark - state.logStartOffset }, (_, i) => state.logStartOffset + i));
  for (const r of records) expect(r.value?.toString(), `offset ${r.offset}`).toBe(expected.get(r.offset));
  expect(state.logStartOffset).toBeLessThanOrEqual(state.tailBase);
  const below = itemsBelowTail(snapshot);
  const { chain: items, leftovers } = splitLeftovers(below.filter((i) => i.lastOffset >= state.logStartOffset));
  const tail = decodeEntries(ctx, state.tailBase, state.tail);
  const chain = [...items, ...tail];
  if (chain.length > 0) expect(chain[0].baseOffset).toBeLessThanOrEqual(state.logStartOffset);
  chain.slice(1).forEach((item, i) => expect(item.baseOffset).toBe(chain[i].lastOffset + 1));
  if (chain.length > 0) expect(chain[chain.length - 1].lastOffset).toBe(state.logEndOffset - 1);
  if (options.settled ?? true) {
    expect(leftovers).toEqual([]);
    expect(below.filter((i) => i.lastOffset < state.logStartOffset)).toEqual([]);
    expect(chain[0]?.baseOffset ?? state.logStartOffset).toBe(state.logStartOffset);
    expect(state.segments).toBe(expectedSegmentCount(snapshot));
    expect(state.bytes).toBe(chain.reduce((n, i) => n + i.size, 0));
  }
  return { state, chain, items: snapshot.items };
}

/** Every object the partitions' manifests reference: SEG items (and the entries they list), indexes, STATE tails. */
export async function referencedObjectKeys(ctx: SluiceContext, topic: TopicRef, partitions = 1): Promise<string[]> {
  const keys = new Set<string>();
  for (let p = 0; p < partitions; p++) {
    const { items, state } = await readPartitionSnapshot(ctx, topic, p);
    for (const item of items) {
      for (const key of [item.indexKey, item.timeIndexKey]) if (key) keys.add(key);
      for (const range of rangesOf(ctx, item)) keys.add(range.objectKey);
    }
    for (const range of decodeEntries(ctx, state.tailBase, state.tail)) keys.add(range.objectKey);
  }
  return [...keys];
}

const SEGMENT_LOG = /\/(\d+)\/(\d{20})-[^/]+\.log$/;

/**
 * Lists the bucket and decodes every merged `.log` object: RecordBatches (CRC checked) whose base
 * offsets run densely (with `gaps`: increase) from the base offset its name says, stamped with PARTITION_LEADER_EPOCH;
 * every `.index` entry points at a batch whose lastOffset is at least the entry's offset (and the
 * batch before it ends below it); every `.timeindex` entry at an offset inside the segment.
 * Returns how many segments and index entries it checked.
 */
export async function expectKafkaSegments(ctx: SluiceContext, options: { gaps?: boolean } = {}): Promise<{ segments: number; indexEntries: number }> {
  const keys = await bucketKeys(ctx);
  let segments = 0;
  let indexEntries = 0;
  for (const key of keys) {
    const name = SEGMENT_LOG.exec(key);
    if (!name) continue;
    segments++;
    const base = Number(name[2]);
    const log = await getObject(ctx, key);
    const batchAt = new Map<number, { baseOffset: number; lastOffset: number }>();
    let expected = base;
    for (let position = 0; position < log.length; ) {
      const { header } = decodeRecordBatch(log, position);
      // A compacted topic's cleaned segments have gaps (lib/log/compaction/): offsets increase.
      if (options.gaps) expect(header.baseOffset, `${key} at byte ${position}`).toBeGreaterThanOrEqual(expected);
      else expect(header.baseOffset, `${key} at byte ${position}`).toBe(expected);
      expect(header.partitionLeaderEpoch).toBe(PARTITION_LEADER_EPOCH);
      batchAt.set(position, { baseOffset: header.baseOffset, lastOffset: header.lastOffset });
      expected = header.lastOffset + 1;
      position += header.sizeInBytes;
    }
    const stem = key.slice(0, -'.log'.length);
    if (keys.includes(`${stem}.index`)) {
      for (const entry of decodeOffsetIndex(base, await getObject(ctx, `${stem}.index`))) {
        const batch = batchAt.get(entry.position);
        expect(batch, `${stem}.index entry ${JSON.stringify(entry)} points at a batch`).toBeDefined();
        expect(batch!.lastOffset).toBeGreaterThanOrEqual(entry.offset);
        expect(batch!.baseOffset).toBeLessThanOrEqual(entry.offset);
        indexEntries++;
      }
    }
    if (keys.includes(`${stem}.timeindex`)) {
      for (const entry of decodeTimeIndex(base, await getObject(ctx, `${stem}.timeindex`))) {
        expect(entry.offset).toBeGreaterThanOrEqual(base);
        expect(entry.offset).toBeLessThan(expected);
      }
    }
  }
  return { segments, indexEntries };
}

/**
 * Another process on the same bucket and table: its own SDK clients (so middleware installed on
 * them sees only its requests), its own owner id and a clock `skewMs` ahead of real time.
 */
export function otherProcess(ctx: SluiceContext, skewMs = 0): ClockedContext {
  const clients = emulatorClients();
  const { s3: _s3, ddb: _ddb, ownerId: _owner, now: _now, ...settings } = ctx;
  return withClock(createContext(clients, settings), skewMs);
}

/** Appends as appendValues does, then spills STATE's tail: the batch gets a SEG item of its own. */
export async function appendSpilled(ctx: SluiceContext, topic: TopicRef, values: string[], timestamp = ctx.now(), partition = 0): Promise<number> {
  const base = await appendValues(ctx, topic, values, timestamp, partition);
  expect(await spillTail(ctx, topic, await getPartitionState(ctx, topic, partition))).toBe(true);
  return base;
}
