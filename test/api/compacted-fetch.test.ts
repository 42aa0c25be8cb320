// A compacted topic over HTTP: 10,000 updates to 100 keys (record-batches produce, as the client
// sends them), the maintenance job cleans, and a fetch from the beginning (JSON and record
// batches) returns each key's newest record once, at its original offset, with gaps between;
// tombstoned keys go after delete.retention.ms.
import { describe, expect, it } from 'vitest';
import { handleHttp } from '../../lib/api/router.js';
import { HIGH_WATERMARK_HEADER, NEXT_OFFSET_HEADER, RECORD_BATCHES_MEDIA_TYPE, encodeBatchFrames } from '../../lib/records/batch-frames.js';
import { encodeRecordBatch } from '../../lib/records/index.js';
import type { ClockedContext } from '../log/maintenance-support.js';
import { withClock } from '../log/maintenance-support.js';
import { maintainUntilCleaned } from '../log/compaction-support.js';
import { decodeRecordBatches } from '../support/record-batches.js';
import { createTestContext } from '../support/storage.js';
import { call } from './call.js';

const KEYS = 100;
const UPDATES = 10_000;
const PER_REQUEST = 2_500;
const DELETED = 10;

interface Wire {
  offset: number;
  key: string | null;
  value: string | null;
}

async function fetchJson(ctx: ClockedContext): Promise<Wire[]> {
  const records: Wire[] = [];
  for (let offset = 0; ; ) {
    const res = await call(ctx, 'GET', '/v1/topics/table/partitions/0/records', undefined, { offset: String(offset) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    records.push(...res.body.records);
    if (res.body.nextOffset >= res.body.highWatermark) return records;
    offset = res.body.nextOffset;
  }
}

async function fetchBatches(ctx: ClockedContext): Promise<Wire[]> {
  const records: Wire[] = [];
  for (let offset = 0; ; ) {
    const res = await handleHttp(ctx, {
      method: 'GET',
      path: '/v1/topics/table/partitions/0/records',
      query: { offset: String(offset), maxBytes: '4096' },
      headers: { accept: RECORD_BATCHES_MEDIA_TYPE },
    });
    expect(res.status).toBe(200);
    for (const batch of decodeRecordBatches(Buffer.from(res.body, 'base64'))) {
      for (const r of batch.records) if (r.offset >= offset) records.push({ offset: r.offset, key: r.key!.toString(), value: r.value?.toString() ?? null });
    }
    const next = Number(res.headers[NEXT_OFFSET_HEADER]);
    if (next >= Number(res.headers[HIGH_WATERMARK_HEADER])) return records;
    offset = next;
  }
}

describe('a compacted topic over HTTP', () => {
  it('10,000 updates to 100 keys read back as 100 records, each its key newest, at original offsets with gaps', { timeout: 60_000 }, async () => {
    const ctx = withClock(await createTestContext());
    const created = await call(ctx, 'POST', '/v1/topics', { name: 'table', partitions: 1, config: { 'cleanup.policy': 'compact', 'delete.retention.ms': 3_600_000 } });
    expect(created.status).toBe(201);
    const newest = new Map<string, { offset: number; value: string | null }>();
    for (let from = 0; from < UPDATES; from += PER_REQUEST) {
      const records = Array.from({ length: PER_REQUEST }, (_, i) => ({ timestamp: ctx.now(), key: Buffer.from(`key-${(from + i) % KEYS}`), value: Buffer.from(`value-${from + i}`) }));
      const res = await handleHttp(ctx, {
        method: 'POST',
        path: '/v1/topics/table/records',
        headers: { 'content-type': RECORD_BATCHES_MEDIA_TYPE },
        body: encodeBatchFrames([{ partition: 0, batch: encodeRecordBatch(records, { baseOffset: 0 }) }]),
      });
      expect(res.status, res.body).toBe(200);
      const { baseOffset } = JSON.parse(res.body).offsets[0];
      records.forEach((r, i) => newest.set(r.key.toString(), { offset: baseOffset + i, value: r.value.toString() }));
    }
    // Tombstones for ten keys, through the JSON body.
    const deleted = await call(ctx, 'POST', '/v1/topics/table/records', {
      records: Array.from({ length: DELETED }, (_, i) => ({ partition: 0, key: `key-${i * 7}`, value: null })),
    });
    expect(deleted.status).toBe(200);
    deleted.body.records.forEach((r: { offset: number }, i: number) => newest.set(`key-${i * 7}`, { offset: r.offset, value: null }));
    expect([...newest.values()]).toHaveLength(KEYS);

    const [first] = await fetchJson(ctx);
    expect(first).toMatchObject({ offset: 0, key: 'key-0', value: 'value-0' });
    await maintainUntilCleaned(ctx);

    const expected = [...newest.entries()].map(([key, { offset, value }]) => ({ offset, key, value })).sort((a, b) => a.offset - b.offset);
    const json = await fetchJson(ctx);
    expect(json.map(({ offset, key, value }) => ({ offset, key, value }))).toEqual(expected);
    expect(json).toHaveLength(KEYS);
    expect(json[0].offset).toBeGreaterThan(UPDATES - KEYS - 1);
    expect((await fetchBatches(ctx))).toEqual(expected);
    // The log is no shorter: logStartOffset stays 0, the high watermark where it was.
    const described = await call(ctx, 'GET', '/v1/topics/table');
    expect(described.body.partitions[0]).toMatchObject({ logStartOffset: 0, highWatermark: UPDATES + DELETED });

    // Past delete.retention.ms the tombstones go, and their keys with them.
    ctx.advance(3_600_000);
    await maintainUntilCleaned(ctx, 1);
    const live = expected.filter((r) => r.value !== null);
    expect(await fetchJson(ctx)).toEqual(live.map((r) => expect.objectContaining(r)));
    expect(live).toHaveLength(KEYS - DELETED);
  });
});
