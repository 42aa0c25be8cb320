// Reads a partition from `offset` to its high watermark the way a consumer does: fetch after fetch
// from each nextOffset (one fetch reads one manifest item), checking offsets are dense.
import { expect } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { readRecords } from '../../lib/log/read.js';
import type { DecodedRecord } from '../../lib/records/index.js';

export async function readAll(
  ctx: SluiceContext,
  topic: string,
  partition: number,
  offset = 0,
): Promise<{ records: DecodedRecord[]; highWatermark: number; fetches: number }> {
  const records: DecodedRecord[] = [];
  for (let fetches = 1; ; fetches++) {
    const read = await readRecords(ctx, topic, partition, { offset, maxBytes: 1 << 20 });
    read.records.forEach((r, i) => expect(r.offset).toBe(offset + i));
    records.push(...read.records);
    if (read.nextOffset === read.highWatermark) return { records, highWatermark: read.highWatermark, fetches };
    expect(read.nextOffset).toBeGreaterThan(offset);
    offset = read.nextOffset;
  }
}

export async function readValues(ctx: SluiceContext, topic: string, partition = 0): Promise<(string | null)[]> {
  return (await readAll(ctx, topic, partition)).records.map((r) => r.value?.toString() ?? null);
}
