// lib/log/read.ts: Kafka's Fetch for one partition against the emulator: from the tail, from
// spilled items and from a merged segment, decoded or raw; maxBytes and nextFetchOffset; offsets out of
// range; stale views refreshed.
import { describe, expect, it } from 'vitest';
import { readBatches, readRecords } from '../../lib/log/read.js';
import { spillTail } from '../../lib/log/spill.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { decodeRecordBatch } from '../../lib/records/index.js';
import { createTestContext } from '../support/storage.js';
import { appendValues, runOnce, withClock } from './maintenance-support.js';

const values = (r: { records: { value: Buffer | null }[] }) => r.records.map((x) => x.value!.toString());

describe('readRecords / readBatches (emulator)', () => {
  it('records from the offset across tail ranges, nextFetchOffset after the last, high watermark and log start', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 1);
    await appendValues(ctx, topic, ['a', 'b', 'c']);
    await appendValues(ctx, topic, ['d', 'e']);
    const r = await readRecords(ctx, topic, 0, { offset: 1, maxBytes: 1 << 20 });
    expect(values(r)).toEqual(['b', 'c', 'd', 'e']);
    expect(r).toMatchObject({ nextFetchOffset: 5, highWatermark: 5, logStartOffset: 0 });
    expect(values(await readRecords(ctx, topic, 0, { offset: 3, maxBytes: 1 << 20 }))).toEqual(['d', 'e']);
    const end = await readRecords(ctx, topic, 0, { offset: 5, maxBytes: 1 << 20 });
    expect(end).toMatchObject({ records: [], nextFetchOffset: 5, highWatermark: 5 });
  });

  it('maxBytes bounds whole batches, but the batch holding the offset always comes', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 1);
    await appendValues(ctx, topic, ['a', 'b', 'c']);
    await appendValues(ctx, topic, ['d', 'e']);
    const r = await readRecords(ctx, topic, 0, { offset: 1, maxBytes: 1 });
    expect(values(r)).toEqual(['b', 'c']);
    expect(r.nextFetchOffset).toBe(3);
  });

  it('beyond the high watermark: OFFSET_OUT_OF_RANGE with the bounds', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 1);
    await appendValues(ctx, topic, ['a']);
    await expect(readRecords(ctx, topic, 0, { offset: 2, maxBytes: 1000 })).rejects.toMatchObject({ code: 'OFFSET_OUT_OF_RANGE', details: { logStartOffset: 0, highWatermark: 1 } });
  });

  it('raw batches: stamped with their offsets, CRC intact; the first batch may start before the offset', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 1);
    await appendValues(ctx, topic, ['a', 'b']);
    await appendValues(ctx, topic, ['c']);
    const r = await readBatches(ctx, topic, 0, { offset: 1, maxBytes: 1 << 20 });
    expect(r.batches).toHaveLength(2);
    const [first, second] = r.batches.map((b) => decodeRecordBatch(b));
    expect(first.header.baseOffset).toBe(0); // starts before the offset asked for
    expect(first.records.map((x) => x.offset)).toEqual([0, 1]);
    expect(second.header.baseOffset).toBe(2);
    expect(r).toMatchObject({ nextFetchOffset: 3, highWatermark: 3 });
    expect((await readBatches(ctx, topic, 0, { offset: 1, maxBytes: 1 })).batches).toHaveLength(1);
  });

  it('the same records from spilled items and from a merged segment as from the tail', async () => {
    const base = await createTestContext() /* grace 1 s: a merge gives up past half of it */;
    const ctx = withClock(base);
    const topic = await createTopic(ctx, 't', 1, { 'segment.bytes': 1 << 20 });
    for (let i = 0; i < 6; i++) await appendValues(ctx, topic, [`v${2 * i}`, `v${2 * i + 1}`]);
    const expected = Array.from({ length: 12 }, (_, i) => `v${i}`);
    const readAllValues = async () => {
      const out: string[] = [];
      for (let offset = 0; offset < 12; ) {
        const r = await readRecords(ctx, topic, 0, { offset, maxBytes: 1 << 20 });
        out.push(...values(r));
        offset = r.nextFetchOffset;
      }
      return out;
    };
    expect(await readAllValues()).toEqual(expected);
    expect(await spillTail(ctx, topic, await getPartitionState(ctx, topic, 0))).toBe(true);
    expect((await getPartitionState(ctx, topic, 0)).tailBase).toBe(12);
    expect(await readAllValues()).toEqual(expected);
    ctx.advance(10 * 60_000);
    const report = await runOnce(ctx);
    expect(report.merge.merges).toBeGreaterThan(0);
    expect(await readAllValues()).toEqual(expected);
    // merged: one fetch returns many records
    expect(values(await readRecords(ctx, topic, 0, { offset: 0, maxBytes: 1 << 20 })).length).toBeGreaterThan(2);
  });
});
