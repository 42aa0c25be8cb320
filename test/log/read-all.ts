// Reads a partition from `offset` to its high watermark the way a consumer does: fetch after fetch
// from each nextFetchOffset (one fetch reads one manifest range, or two of the tail), checking offsets
// are dense.
import { expect } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { decodeEntries, rangesOf } from '../../lib/log/manifest-entry.js';
import { readRecords } from '../../lib/log/read.js';
import { allSegmentItems } from '../../lib/metadata/manifest.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import type { ManifestRange, TopicRef } from '../../lib/metadata/types.js';
import type { DecodedRecord } from '../../lib/records/index.js';

export async function readAll(
  ctx: SluiceContext,
  topic: TopicRef,
  partition: number,
  offset = 0,
): Promise<{ records: DecodedRecord[]; highWatermark: number; fetches: number }> {
  const records: DecodedRecord[] = [];
  for (let fetches = 1; ; fetches++) {
    const read = await readRecords(ctx, topic, partition, { offset, maxBytes: 1 << 20 });
    read.records.forEach((r, i) => expect(r.offset).toBe(offset + i));
    records.push(...read.records);
    if (read.nextFetchOffset === read.highWatermark) return { records, highWatermark: read.highWatermark, fetches };
    expect(read.nextFetchOffset).toBeGreaterThan(offset);
    offset = read.nextFetchOffset;
  }
}

export async function readValues(ctx: SluiceContext, topic: TopicRef, partition = 0): Promise<(string | null)[]> {
  return (await readAll(ctx, topic, partition)).records.map((r) => r.value?.toString() ?? null);
}

/** The manifest range starting at `baseOffset`, wherever it is listed: STATE's tail or a SEG item. */
export async function rangeAt(ctx: SluiceContext, topic: TopicRef, partition: number, baseOffset: number): Promise<ManifestRange | undefined> {
  const state = await getPartitionState(ctx, topic, partition);
  const ranges = decodeEntries(ctx, state.tailBase, state.tail);
  for await (const item of allSegmentItems(ctx, topic, partition)) ranges.push(...rangesOf(ctx, item));
  return ranges.find((r) => r.baseOffset === baseOffset);
}
