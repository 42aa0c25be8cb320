import { describe, expect, it } from 'vitest';
import { appendToPartitions } from '../../lib/log/append.js';
import { listOffsets } from '../../lib/log/list-offsets.js';
import { readRecords } from '../../lib/log/read.js';
import { TAIL_MAX_ENTRIES } from '../../lib/log/spill.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import type { SluiceError } from '../../lib/errors.js';
import { type RecordInput, encodeRecordBatch } from '../../lib/records/index.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';
import { readAll } from './read-all.js';

const rec = (value: string, extra: Partial<RecordInput> = {}): RecordInput => ({
  timestamp: 1_700_000_000_000,
  key: null,
  value: Buffer.from(value),
  ...extra,
});

describe('append then read', () => {
  it('assigns dense offsets per partition and reads keys, headers and binary values back intact', async () => {
    const ctx = await createTestContext();
    const orders = await createTopic(ctx, 'orders', 3);
    const binary = Buffer.from([0, 255, 1, 254, 0, 0, 7]);
    const first = await appendToPartitions(ctx, orders, [
      { partition: 0, records: [rec('a0', { key: Buffer.from('k') }), rec('a1')] },
      { partition: 1, records: [rec('b0', { headers: [{ key: 'h', value: Buffer.from('hv') }, { key: 'n', value: null }] })] },
      { partition: 2, records: [{ timestamp: 5, key: binary, value: binary }] },
    ]);
    expect(first).toEqual([
      { partition: 0, baseOffset: 0, count: 2 },
      { partition: 1, baseOffset: 0, count: 1 },
      { partition: 2, baseOffset: 0, count: 1 },
    ]);
    const second = await appendToPartitions(ctx, orders, [
      { partition: 0, records: [rec('a2'), rec('a3'), rec('a4', { value: null })] },
      { partition: 2, records: [rec('c1')] },
    ]);
    expect(second).toEqual([
      { partition: 0, baseOffset: 2, count: 3 },
      { partition: 2, baseOffset: 1, count: 1 },
    ]);

    const p0 = await readAll(ctx, orders, 0);
    expect(p0.records.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4]);
    expect(p0.records.map((r) => r.value?.toString() ?? null)).toEqual(['a0', 'a1', 'a2', 'a3', null]);
    expect(p0.records[0].key?.toString()).toBe('k');
    // Both ranges are in STATE's tail: one fetch reads them together (two GETs in parallel).
    expect(p0).toMatchObject({ highWatermark: 5, fetches: 1 });

    const p1 = await readAll(ctx, orders, 1);
    expect(p1.records[0].headers).toEqual([
      { key: 'h', value: Buffer.from('hv') },
      { key: 'n', value: null },
    ]);
    const p2 = await readAll(ctx, orders, 2);
    expect(p2.records[0]).toMatchObject({ offset: 0, timestamp: 5, key: binary, value: binary });
    expect(p2.records[1]).toMatchObject({ offset: 1 });

    // Mid-batch offset: earlier records of the batch are dropped.
    const mid = await readRecords(ctx, orders, 0, { offset: 3, maxBytes: 1 << 20 });
    expect(mid.records.map((r) => r.offset)).toEqual([3, 4]);
  });

  it('returns one whole batch even when it is larger than maxBytes, and continues from nextFetchOffset', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 2);
    const big = 'x'.repeat(3000);
    await appendToPartitions(ctx, t, [{ partition: 0, records: [rec(big), rec(big)] }]);
    await appendToPartitions(ctx, t, [{ partition: 0, records: [rec('small')] }]);
    const read = await readRecords(ctx, t, 0, { offset: 0, maxBytes: 10 });
    expect(read.records.map((r) => r.offset)).toEqual([0, 1]);
    expect(read.nextFetchOffset).toBe(2);
    const rest = await readRecords(ctx, t, 0, { offset: read.nextFetchOffset, maxBytes: 10 });
    expect(rest.records.map((r) => r.value?.toString())).toEqual(['small']);
    expect(rest.nextFetchOffset).toBe(3);
    // One fetch reads at most two tail ranges (three storage requests with the STATE read): with
    // room in maxBytes, the range after the one holding the offset comes along.
    const mid = await readRecords(ctx, t, 0, { offset: 1, maxBytes: 100_000 });
    expect(mid.records.map((r) => r.offset)).toEqual([1, 2]);
    expect(mid.nextFetchOffset).toBe(3);
  });

  it('rejects offsets outside [logStartOffset, highWatermark] with both in the details; the high watermark reads empty', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 2);
    await appendToPartitions(ctx, t, [{ partition: 0, records: [rec('a'), rec('b')] }]);
    await expect(readRecords(ctx, t, 0, { offset: 3, maxBytes: 100 })).rejects.toMatchObject({
      code: 'OFFSET_OUT_OF_RANGE',
      details: { logStartOffset: 0, highWatermark: 2 },
    } satisfies Partial<SluiceError>);
    await expect(readRecords(ctx, t, 0, { offset: -1, maxBytes: 100 })).rejects.toMatchObject({ code: 'OFFSET_OUT_OF_RANGE' });
    expect(await readRecords(ctx, t, 0, { offset: 2, maxBytes: 100 })).toEqual({
      records: [],
      nextFetchOffset: 2,
      highWatermark: 2,
      logStartOffset: 0,
    });
    // A partition never written reads as empty at 0.
    expect(await readRecords(ctx, t, 1, { offset: 0, maxBytes: 100 })).toMatchObject({ records: [], highWatermark: 0 });
  });

  it('lists earliest, latest and by-timestamp offsets', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 2);
    await appendToPartitions(ctx, t, [{ partition: 0, records: [rec('a', { timestamp: 100 }), rec('b', { timestamp: 200 })] }]);
    await appendToPartitions(ctx, t, [{ partition: 0, records: [rec('c', { timestamp: 300 })] }]);
    expect(await listOffsets(ctx, t, 0, 'earliest')).toEqual({ offset: 0 });
    expect(await listOffsets(ctx, t, 0, 'latest')).toEqual({ offset: 3 });
    expect(await listOffsets(ctx, t, 0, 150)).toEqual({ offset: 1, timestamp: 200 });
    expect(await listOffsets(ctx, t, 0, 250)).toEqual({ offset: 2, timestamp: 300 });
    expect(await listOffsets(ctx, t, 0, 50)).toEqual({ offset: 0, timestamp: 100 });
    expect(await listOffsets(ctx, t, 0, 301)).toEqual({ offset: 3 });
  });

  it('reads the same records, at the same offsets, whether a range is in STATE\'s tail or spilled into SEG items, compressed or not', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    const expected: [number, string][] = [];
    for (let i = 0; i < TAIL_MAX_ENTRIES * 2 + 3; i++) {
      const values = Array.from({ length: 1 + (i % 3) }, (_, j) => `v${i}.${j}`);
      const records = values.map((v) => rec(v));
      // Odd appends: a gzip batch as a compressing client sends it; even ones: records sent as JSON.
      const append = i % 2
        ? { partition: 0, batch: { bytes: encodeRecordBatch(records, { baseOffset: 0, compression: 'gzip' }), count: records.length, minTimestamp: records[0].timestamp } }
        : { partition: 0, records };
      const [r] = await appendToPartitions(ctx, t, [append]);
      if (!('baseOffset' in r)) throw r.error;
      expect(r.baseOffset).toBe(expected.length);
      values.forEach((v) => expected.push([expected.length, v]));
    }
    const state = await getPartitionState(ctx, t, 0);
    expect(state.tailBase).toBeGreaterThan(0);
    const read = await readAll(ctx, t, 0);
    expect(read.records.map((r) => [r.offset, r.value!.toString()])).toEqual(expected);
    // From every offset, as a consumer resuming there would.
    for (const [offset, value] of expected) {
      const at = await readRecords(ctx, t, 0, { offset, maxBytes: 1 });
      expect([at.records[0].offset, at.records[0].value!.toString()]).toEqual([offset, value]);
    }
  });

  it('refuses to read a partition that does not exist, or a deleted topic\'s, as UNKNOWN_TOPIC_OR_PARTITION', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    await expect(readRecords(ctx, t, 1, { offset: 0, maxBytes: 100 })).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
    await expect(readRecords(ctx, { name: 't', id: 'not-its-id' }, 0, { offset: 0, maxBytes: 100 })).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
  });
});
