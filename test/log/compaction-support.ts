// Helpers of the log cleaner's tests: keyed appends, maintenance cycles on a moved clock until the
// log is merged and cleaned, and a consumer's read of a compacted partition (offsets strictly
// increasing, gaps allowed) reduced to each key's newest value.
import { expect } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { appendToPartitions } from '../../lib/log/append.js';
import type { MaintenanceReport } from '../../lib/log/maintenance.js';
import { TAIL_MAX_AGE_MS } from '../../lib/log/maintenance.js';
import { readBatches, readRecords } from '../../lib/log/read.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import type { TopicRef } from '../../lib/metadata/types.js';
import type { DecodedRecord } from '../../lib/records/index.js';
import { type ClockedContext, runOnce } from './maintenance-support.js';

export type KeyedValue = readonly [key: string, value: string | null];

/** Appends one batch of keyed records (null value: a tombstone); returns its base offset. */
export async function appendKeyed(ctx: SluiceContext, topic: TopicRef, records: readonly KeyedValue[], partition = 0, timestamp = ctx.now()): Promise<number> {
  const [result] = await appendToPartitions(ctx, topic, [
    { partition, records: records.map(([key, value]) => ({ timestamp, key: Buffer.from(key), value: value === null ? null : Buffer.from(value) })) },
  ]);
  if ('error' in result) throw result.error;
  return result.baseOffset;
}

/**
 * Maintenance runs, each after moving the clock past the idle-tail age and the grace period, so
 * that an appended tail is spilled, merged and cleaned: three runs take new appends all the way.
 */
export async function maintainUntilCleaned(ctx: ClockedContext, runs = 3, options: { dedupeBufferBytes?: number } = {}): Promise<MaintenanceReport[]> {
  const reports: MaintenanceReport[] = [];
  for (let i = 0; i < runs; i++) {
    ctx.advance(TAIL_MAX_AGE_MS + ctx.graceMs + 1);
    const report = options.dedupeBufferBytes === undefined ? await runOnce(ctx) : await runWith(ctx, options.dedupeBufferBytes);
    expect(report.errors).toEqual([]);
    reports.push(report);
  }
  return reports;
}

async function runWith(ctx: SluiceContext, dedupeBufferBytes: number): Promise<MaintenanceReport> {
  const { runMaintenance } = await import('../../lib/log/maintenance.js');
  return runMaintenance(ctx, { timeLeftMs: () => 60_000, reserveMs: 0, dedupeBufferBytes });
}

/** Every record from `offset` to the high watermark, fetch after fetch, as a consumer reads: offsets strictly increase. */
export async function readCompacted(ctx: SluiceContext, topic: TopicRef, partition = 0, from?: number, maxBytes = 1 << 20): Promise<DecodedRecord[]> {
  let offset = from ?? (await getPartitionState(ctx, topic, partition)).logStartOffset;
  const records: DecodedRecord[] = [];
  let last = offset - 1;
  for (let fetches = 0; ; fetches++) {
    expect(fetches).toBeLessThan(100_000);
    const read = await readRecords(ctx, topic, partition, { offset, maxBytes });
    for (const r of read.records) {
      expect(r.offset).toBeGreaterThan(last);
      last = r.offset;
    }
    records.push(...read.records);
    if (read.nextFetchOffset >= read.highWatermark) return records;
    expect(read.nextFetchOffset).toBeGreaterThan(offset);
    offset = read.nextFetchOffset;
  }
}

/** The same through raw batches (the record-batches body and the Kafka gateway): records below each fetch's offset skipped. */
export async function readCompactedBatches(ctx: SluiceContext, topic: TopicRef, partition = 0, from?: number, maxBytes = 1 << 20): Promise<DecodedRecord[]> {
  let offset = from ?? (await getPartitionState(ctx, topic, partition)).logStartOffset;
  const { decodeRecordBatch } = await import('../../lib/records/index.js');
  const records: DecodedRecord[] = [];
  let last = offset - 1;
  for (let fetches = 0; ; fetches++) {
    expect(fetches).toBeLessThan(100_000);
    const read = await readBatches(ctx, topic, partition, { offset, maxBytes });
    for (const batch of read.batches) {
      for (const r of decodeRecordBatch(batch).records) {
        if (r.offset < offset) continue;
        expect(r.offset).toBeGreaterThan(last);
        last = r.offset;
        records.push(r);
      }
    }
    if (read.nextFetchOffset >= read.highWatermark) return records;
    expect(read.nextFetchOffset).toBeGreaterThan(offset);
    offset = read.nextFetchOffset;
  }
}

/** Each key's newest value (undefined after a tombstone: the key is deleted), as a consumer of a compacted topic builds its table. */
export function latestByKey(records: readonly { key: Buffer | null; value: Buffer | null }[]): Map<string, string> {
  const table = new Map<string, string>();
  for (const r of records) {
    const key = r.key!.toString();
    if (r.value === null) table.delete(key);
    else table.set(key, r.value.toString());
  }
  return table;
}
