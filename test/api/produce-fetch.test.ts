import { Partitioners } from 'kafkajs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { handleHttp } from '../../lib/api/router.js';
import { createTestContext } from '../support/storage.js';
import { call } from './call.js';

// kafkajs's DefaultPartitioner is the Java client's murmur2 partitioner: an independent oracle.
const kafkaPartition = (key: Buffer, partitions: number) =>
  Partitioners.DefaultPartitioner()({
    topic: 't',
    partitionMetadata: Array.from({ length: partitions }, (_, i) => ({ partitionId: i, leader: 0 })),
    message: { key, value: null },
  } as never);

async function fetchAll(ctx: SluiceContext, topic: string, partition: number, encoding = 'utf8') {
  const records = [];
  let offset = 0;
  for (;;) {
    const res = await call(ctx, 'GET', `/v1/topics/${topic}/partitions/${partition}/records`, undefined, {
      offset: String(offset),
      maxBytes: '2000',
      encoding,
    });
    expect(res.status).toBe(200);
    records.push(...res.body.records);
    if (res.body.nextOffset >= res.body.highWatermark) return records;
    expect(res.body.nextOffset).toBeGreaterThan(offset);
    offset = res.body.nextOffset;
  }
}

describe('produce and fetch', () => {
  let ctx: SluiceContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });

  it('round-trips 120 keyed records with headers and non-ASCII values over 3 partitions', async () => {
    expect((await call(ctx, 'POST', '/v1/topics', { name: 'rt', partitions: 3 })).status).toBe(201);
    const inputs = Array.from({ length: 120 }, (_, i) => ({
      key: `user-${i % 17}`,
      value: `Grüße №${i} — 日本語 🚀 ${'x'.repeat(i)}`,
      headers: [
        { key: 'trace', value: `t-${i}` },
        { key: 'émoji', value: i % 5 === 0 ? null : '✓' },
      ],
      timestamp: 1_700_000_000_000 + i,
    }));
    // Four requests of 30, so each partition gets several batches.
    const acknowledged: { partition: number; offset: number }[] = [];
    for (let i = 0; i < 120; i += 30) {
      const res = await call(ctx, 'POST', '/v1/topics/rt/records', { records: inputs.slice(i, i + 30) });
      expect(res.status).toBe(200);
      expect(res.body.records).toHaveLength(30);
      const counted = res.body.offsets.reduce((n: number, o: { count: number }) => n + o.count, 0);
      expect(counted).toBe(30);
      acknowledged.push(...res.body.records);
    }

    // Keyed records land where Kafka's partitioner puts them.
    inputs.forEach((r, i) => expect(acknowledged[i].partition).toBe(kafkaPartition(Buffer.from(r.key), 3)));

    for (let p = 0; p < 3; p++) {
      const stored = await fetchAll(ctx, 'rt', p);
      const expected = inputs.filter((_, i) => acknowledged[i].partition === p);
      // Dense offsets from 0, in acknowledgement order, every field intact.
      expect(stored.map((r) => r.offset)).toEqual(expected.map((_, i) => i));
      expect(stored).toEqual(expected.map((r, i) => ({ offset: i, timestamp: r.timestamp, key: r.key, value: r.value, headers: r.headers })));
      const acked = acknowledged.filter((a) => a.partition === p).map((a) => a.offset);
      expect(acked).toEqual(expected.map((_, i) => i));
    }
  });

  it('keeps base64 keys, values and header values binary-safe (all 256 byte values)', async () => {
    await call(ctx, 'POST', '/v1/topics', { name: 'bin', partitions: 1 });
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const reversed = Buffer.from(all).reverse();
    const res = await call(ctx, 'POST', '/v1/topics/bin/records', {
      encoding: 'base64',
      records: [
        { key: reversed.toString('base64'), value: all.toString('base64'), headers: [{ key: 'h', value: all.subarray(100).toString('base64') }] },
        { key: null, value: null },
        { key: '', value: '' },
      ],
    });
    expect(res.status).toBe(200);
    const [first, tombstone, empty] = await fetchAll(ctx, 'bin', 0, 'base64');
    expect(Buffer.from(first.key, 'base64').equals(reversed)).toBe(true);
    expect(Buffer.from(first.value, 'base64').equals(all)).toBe(true);
    expect(Buffer.from(first.headers[0].value, 'base64').equals(all.subarray(100))).toBe(true);
    expect(tombstone).toMatchObject({ key: null, value: null, headers: [] });
    expect(empty).toMatchObject({ key: '', value: '' });
  });

  it('sends all keyless records of one request to one partition, rotating across requests', async () => {
    await call(ctx, 'POST', '/v1/topics', { name: 'sticky', partitions: 3 });
    const used: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await call(ctx, 'POST', '/v1/topics/sticky/records', { records: [{ value: 'a' }, { value: 'b' }, { key: null, value: 'c' }] });
      expect(res.body.offsets).toHaveLength(1);
      expect(new Set(res.body.records.map((r: { partition: number }) => r.partition)).size).toBe(1);
      used.push(res.body.offsets[0].partition);
    }
    expect(new Set(used).size).toBe(3);
  });

  it('reports offsets per partition in order of first appearance and per record in input order', async () => {
    await call(ctx, 'POST', '/v1/topics', { name: 'order', partitions: 4 });
    const res = await call(ctx, 'POST', '/v1/topics/order/records', {
      records: [
        { partition: 2, value: 'a' },
        { partition: 0, value: 'b' },
        { partition: 2, value: 'c' },
        { partition: 3, value: 'd', timestamp: 5 },
        { partition: 0, value: 'e' },
      ],
    });
    expect(res.body).toEqual({
      offsets: [
        { partition: 2, baseOffset: 0, count: 2 },
        { partition: 0, baseOffset: 0, count: 2 },
        { partition: 3, baseOffset: 0, count: 1 },
      ],
      records: [
        { partition: 2, offset: 0 },
        { partition: 0, offset: 0 },
        { partition: 2, offset: 1 },
        { partition: 3, offset: 0 },
        { partition: 0, offset: 1 },
      ],
    });
    const fetched = await call(ctx, 'GET', '/v1/topics/order/partitions/3/records', undefined, { offset: '0' });
    expect(fetched.body.records[0].timestamp).toBe(5);
    expect(fetched.body).toMatchObject({ nextOffset: 1, highWatermark: 1, logStartOffset: 0 });
  });

  it('acknowledges a retried idempotent batch with its original offsets, without a duplicate', async () => {
    await call(ctx, 'POST', '/v1/topics', { name: 'idem', partitions: 2 });
    const { producerId, producerEpoch } = (await call(ctx, 'POST', '/v1/producers')).body;
    const body = {
      producerId,
      producerEpoch,
      sequences: [{ partition: 1, baseSequence: 0 }],
      records: [{ partition: 1, value: 'once' }, { partition: 1, value: 'twice?' }],
    };
    const first = await call(ctx, 'POST', '/v1/topics/idem/records', body);
    const retry = await call(ctx, 'POST', '/v1/topics/idem/records', body);
    expect(first.body.offsets).toEqual([{ partition: 1, baseOffset: 0, count: 2 }]);
    expect(retry.status).toBe(200);
    expect(retry.body.records).toEqual(first.body.records);
    expect(retry.body.offsets[0]).toMatchObject({ partition: 1, baseOffset: 0, count: 2, duplicate: true });
    expect((await fetchAll(ctx, 'idem', 1)).map((r) => r.value)).toEqual(['once', 'twice?']);
  });

  it('lists earliest, latest and by-timestamp offsets', async () => {
    await call(ctx, 'POST', '/v1/topics', { name: 'lo', partitions: 1 });
    await call(ctx, 'POST', '/v1/topics/lo/records', { records: [10, 20, 30].map((t) => ({ value: 'v', timestamp: t })) });
    const at = async (v: string) => (await call(ctx, 'GET', '/v1/topics/lo/partitions/0/offsets', undefined, { at: v })).body;
    expect((await at('earliest')).offset).toBe(0);
    expect((await at('latest')).offset).toBe(3);
    expect((await at('15')).offset).toBe(1);
  });

  it('cuts a fetch of one huge batch of tiny records to fit a Lambda response; the rest follows from nextOffset', async () => {
    await call(ctx, 'POST', '/v1/topics', { name: 'tiny', partitions: 1 });
    const count = 100_000;
    const produced = await call(ctx, 'POST', '/v1/topics/tiny/records', { records: Array.from({ length: count }, (_, i) => ({ value: String(i % 10) })) });
    expect(produced.body.offsets).toEqual([{ partition: 0, baseOffset: 0, count }]);
    let offset = 0;
    let responses = 0;
    while (offset < count) {
      const res = await handleHttp(ctx, { method: 'GET', path: '/v1/topics/tiny/partitions/0/records', query: { offset: String(offset), maxBytes: '52428800' } });
      expect(Buffer.byteLength(res.body)).toBeLessThan(6 * 1024 * 1024);
      const body = JSON.parse(res.body);
      expect(body.records[0].offset).toBe(offset);
      expect(body.records.at(-1).offset).toBe(body.nextOffset - 1);
      expect(body.records.every((r: { offset: number; value: string }) => r.value === String(r.offset % 10))).toBe(true);
      offset = body.nextOffset;
      responses++;
    }
    expect(responses).toBeGreaterThan(1);
  });
});
