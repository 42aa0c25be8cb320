// Helpers shared by the retention, compaction and cleanup tests: a context with a movable clock,
// appends of known values, and the invariants a partition must satisfy after any maintenance.
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { expect } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { runMaintenance, type MaintenanceReport } from '../../lib/log/maintenance.js';
import { readPartitionSnapshot, splitLeftovers } from '../../lib/log/partition-snapshot.js';
import { decodeRanges, rangesOf } from '../../lib/log/segment-range.js';
import { getTopic } from '../../lib/metadata/topics.js';
import { readAll } from './read-all.js';

export interface ClockedContext extends SluiceContext {
  /** Moves this context's clock (ctx.now) forward. */
  advance(ms: number): void;
}

/** The same context with its own clock: real time plus a skew the test moves forward. */
export function withClock(ctx: SluiceContext): ClockedContext {
  let skew = 0;
  return { ...ctx, now: () => Date.now() + skew, advance: (ms: number) => void (skew += ms) };
}

/**
 * Appends one batch of `values` stamped `timestamp` (default ctx.now()) as the produce API does
 * (with the topic's segment.ms and segment.bytes, when the topic exists); returns its base offset.
 */
export async function appendValues(ctx: SluiceContext, topic: string, values: string[], timestamp = ctx.now(), partition = 0): Promise<number> {
  const meta = await getTopic(ctx, topic);
  const [result] = await appendToPartitions(
    ctx,
    topic,
    [{ partition, records: values.map((v) => ({ timestamp, key: null, value: Buffer.from(v) })) }],
    { segmentMs: meta?.config['segment.ms'], segmentBytes: meta?.config['segment.bytes'] },
  );
  if ('error' in result) throw result.error;
  return result.baseOffset;
}

/** One maintenance run with a generous budget and no reserve. */
export function runOnce(ctx: SluiceContext): Promise<MaintenanceReport> {
  return runMaintenance(ctx, { timeLeftMs: () => 60_000, reserveMs: 0 });
}

export async function bucketKeys(ctx: SluiceContext): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await ctx.s3.send(new ListObjectsV2Command({ Bucket: ctx.bucket, ContinuationToken: token }));
    for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys.sort();
}

/**
 * The partition's invariants: readable densely from logStartOffset to the high watermark with the
 * expected value at every offset; committed items, then STATE's tail, form one gap-free, overlap-free chain from
 * logStartOffset (no leftovers, none below it, when `settled`); STATE's bytes/segments counters
 * equal the chain's. Returns the chain.
 */
export async function expectConsistentPartition(
  ctx: SluiceContext,
  topic: string,
  expected: ReadonlyMap<number, string>,
  options: { partition?: number; settled?: boolean } = {},
) {
  const partition = options.partition ?? 0;
  const snapshot = await readPartitionSnapshot(ctx, topic, partition);
  const { state } = snapshot;
  const { records, highWatermark } = await readAll(ctx, topic, partition, state.logStartOffset);
  expect(highWatermark).toBe(state.nextOffset);
  expect(records.map((r) => r.offset)).toEqual(Array.from({ length: highWatermark - state.logStartOffset }, (_, i) => state.logStartOffset + i));
  for (const r of records) expect(r.value?.toString()).toBe(expected.get(r.offset));
  const live = snapshot.items.filter((i) => i.lastOffset >= state.logStartOffset);
  const { chain: items, leftovers } = splitLeftovers(live);
  // The manifest goes on in STATE's tail (ranges not yet spilled into a SEG item).
  const tail = decodeRanges(ctx, topic, partition, state.tail);
  const tailBase = tail[0]?.baseOffset ?? state.nextOffset;
  const chain = [...items.filter((i) => i.lastOffset < tailBase), ...tail.filter((r) => r.lastOffset >= state.logStartOffset)];
  if (chain.length > 0) expect(chain[0].baseOffset).toBeLessThanOrEqual(state.logStartOffset);
  chain.slice(1).forEach((item, i) => expect(item.baseOffset).toBe(chain[i].lastOffset + 1));
  if (chain.length > 0) expect(chain[chain.length - 1].lastOffset).toBe(state.nextOffset - 1);
  if (options.settled ?? true) {
    expect(leftovers).toEqual([]);
    expect(snapshot.items.length).toBe(live.length);
    expect(chain[0]?.baseOffset ?? state.logStartOffset).toBe(state.logStartOffset);
    expect(state.segments).toBe(chain.length);
    expect(state.bytes).toBe(chain.reduce((n, i) => n + i.size, 0));
  }
  return { state, chain };
}

/** Every object the partitions' manifests reference: SEG items (and the ranges they list) and STATE tails. */
export async function referencedObjectKeys(ctx: SluiceContext, topic: string, partitions = 1): Promise<string[]> {
  const keys = new Set<string>();
  for (let p = 0; p < partitions; p++) {
    const { items, state } = await readPartitionSnapshot(ctx, topic, p);
    for (const item of items) {
      for (const key of [item.indexKey, item.timeIndexKey]) if (key) keys.add(key);
      for (const range of rangesOf(ctx, topic, p, item)) keys.add(range.objectKey);
    }
    for (const range of decodeRanges(ctx, topic, p, state.tail)) keys.add(range.objectKey);
  }
  return [...keys];
}
