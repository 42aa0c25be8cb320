// lib/api/fetch-operations.ts: fetch and listOffsets run directly: records in the declared schema,
// encodings, nextOffset, long-poll wake-up, and input checks.
import { describe, expect, it } from 'vitest';
import { fetchOperations, fetchResponseSchema } from '../../lib/api/fetch-operations.js';
import type { Operation } from '../../lib/api/operation.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';

const op = (name: string): Operation => fetchOperations.find((o) => o.name === name)!;

describe('fetch operations', () => {
  it('routes', () => {
    expect(fetchOperations.map((o) => [o.name, o.method, o.path])).toEqual([
      ['fetch', 'GET', '/v1/topics/{topic}/partitions/{partition}/records'],
      ['listOffsets', 'GET', '/v1/topics/{topic}/partitions/{partition}/offsets'],
    ]);
  });

  it('fetch: records from the offset, string parameters accepted, utf8 and base64', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 1);
    await appendToPartitions(ctx, topic, [{ partition: 0, records: [0, 1, 2].map((i) => ({ timestamp: 100 + i, key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`), headers: [{ key: 'h', value: Buffer.from([0xff]) }] })) }]);
    const out = await op('fetch').run(ctx, { topic: 't', partition: '0', offset: '1' });
    expect(out.status).toBe(200);
    const body = fetchResponseSchema.parse(out.body);
    expect(body.records.map((r) => [r.offset, r.key, r.value])).toEqual([[1, 'k1', 'v1'], [2, 'k2', 'v2']]);
    expect(body).toMatchObject({ nextOffset: 3, highWatermark: 3, logStartOffset: 0 });
    const b64 = fetchResponseSchema.parse((await op('fetch').run(ctx, { topic: 't', partition: 0, offset: 2, encoding: 'base64' })).body);
    expect(b64.records[0]).toMatchObject({ key: Buffer.from('k2').toString('base64'), headers: [{ key: 'h', value: '/w==' }] });
  });

  it('fetch at the high watermark with maxWaitMs wakes when a record lands', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 1);
    const started = Date.now();
    const waiting = op('fetch').run(ctx, { topic: 't', partition: 0, offset: 0, maxWaitMs: 5000 });
    await new Promise((r) => setTimeout(r, 200));
    await appendToPartitions(ctx, topic, [{ partition: 0, records: [{ timestamp: 1, key: null, value: Buffer.from('late') }] }]);
    const body = fetchResponseSchema.parse((await waiting).body);
    expect(body.records.map((r) => r.value)).toEqual(['late']);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('listOffsets: earliest, latest, by timestamp', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 1);
    await appendToPartitions(ctx, topic, [{ partition: 0, records: [10, 20].map((ts) => ({ timestamp: ts, key: null, value: null })) }]);
    const list = async (at: unknown) => {
      const r = await op('listOffsets').run(ctx, { topic: 't', partition: 0, at });
      op('listOffsets').response.body!.parse(r.body);
      return r.body;
    };
    expect(await list('earliest')).toEqual({ offset: 0 });
    expect(await list('latest')).toEqual({ offset: 2 });
    expect(await list('15')).toEqual({ offset: 1, timestamp: 20 });
  });

  it('input checks: negative offset, partition beyond the topic, unknown format', async () => {
    const ctx = await createTestContext();
    await createTopic(ctx, 't', 1);
    await expect(op('fetch').run(ctx, { topic: 't', partition: 0, offset: -1 })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(op('fetch').run(ctx, { topic: 't', partition: 1, offset: 0 })).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
    await expect(op('fetch').run(ctx, { topic: 't', partition: 0, offset: 0, format: 'xml' })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(op('listOffsets').run(ctx, { topic: 't', partition: 0, at: 'middle' })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });
});
