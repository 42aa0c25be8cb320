// The local server over real HTTP: requests become API Gateway events for the Lambda handlers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORD_BATCHES_MEDIA_TYPE, encodeBatchFrames } from '../../lib/records/batch-frames.js';
import { startServer, type LocalServer } from '../../lib/local/server.js';
import { encodeRecordBatch } from '../../lib/records/index.js';
import { decodeRecordBatches } from '../support/record-batches.js';
import { createTestContext } from '../support/storage.js';

describe('local server', () => {
  let server: LocalServer;
  const lines: string[] = [];
  beforeAll(async () => {
    server = await startServer({ context: await createTestContext(), log: (l) => lines.push(l) });
  });
  afterAll(async () => {
    await server?.close();
  });

  const request = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };

  it('creates a topic, produces and fetches over HTTP', async () => {
    expect((await request('POST', '/v1/topics', { name: 'http', partitions: 2 })).status).toBe(201);
    const produced = await request('POST', '/v1/topics/http/records', {
      records: [
        { key: 'ключ', value: 'значение', headers: [{ key: 'h', value: '✓' }] },
        { partition: 1, key: null, value: null },
      ],
    });
    expect(produced.status).toBe(200);
    const [first, second] = produced.body.records;
    const fetched = await request('GET', `/v1/topics/http/partitions/${first.partition}/records?offset=${first.offset}`);
    expect(fetched.body.records[0]).toMatchObject({ offset: first.offset, key: 'ключ', value: 'значение', headers: [{ key: 'h', value: '✓' }] });
    const tombstone = await request('GET', `/v1/topics/http/partitions/1/records?offset=${second.offset}&encoding=base64`);
    expect(tombstone.body.records[0]).toMatchObject({ key: null, value: null });
    expect((await request('GET', '/v1/topics')).body.topics).toEqual([{ name: 'http', topicId: expect.any(String), partitions: 2 }]);
    expect((await request('DELETE', '/v1/topics/http')).status).toBe(204);
  });

  it('carries concurrent multi-chunk binary bodies to the handlers intact, each its own', async () => {
    expect((await request('POST', '/v1/topics', { name: 'bin', partitions: 4, config: { 'max.message.bytes': 2 ** 21 } })).status).toBe(201);
    // ~600 KiB per body (many socket chunks), distinct bytes per partition, all in flight at once.
    const valueOf = (p: number, i: number) => Buffer.alloc(600, (p * 37 + i) & 0xff);
    const bodies = [0, 1, 2, 3].map((p) =>
      encodeBatchFrames([{ partition: p, batch: encodeRecordBatch(Array.from({ length: 1000 }, (_, i) => ({ timestamp: 1, key: null, value: valueOf(p, i) })), { baseOffset: 0 }) }]),
    );
    const answers = await Promise.all(
      bodies.map(async (body) => {
        const res = await fetch(`${server.url}/v1/topics/bin/records`, { method: 'POST', headers: { 'content-type': RECORD_BATCHES_MEDIA_TYPE }, body: body as BodyInit });
        return { status: res.status, body: await res.json() };
      }),
    );
    for (const [p, answer] of answers.entries()) {
      expect(answer, JSON.stringify(answer.body)).toMatchObject({ status: 200, body: { offsets: [{ partition: p, baseOffset: 0, count: 1000 }] } });
      const res = await fetch(`${server.url}/v1/topics/bin/partitions/${p}/records?offset=0&maxBytes=${2 ** 21}`, { headers: { accept: RECORD_BATCHES_MEDIA_TYPE } });
      const [batch] = decodeRecordBatches(Buffer.from(await res.arrayBuffer()));
      expect(batch.records.length).toBe(1000);
      batch.records.forEach((r, i) => expect(r.value!.equals(valueOf(p, i))).toBe(true));
    }
  });

  it('answers routing and framing errors with the contract', async () => {
    const missing = await request('GET', '/nowhere');
    expect(missing).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    const wrong = await request('PATCH', '/v1/topics');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST, GET');
    const badJson = await request('POST', '/v1/topics', '{nope');
    expect(badJson).toMatchObject({ status: 400, body: { error: { code: 'INVALID_REQUEST' } } });
    const huge = await request('POST', '/v1/topics/x/records', 'x'.repeat(7 * 1024 * 1024));
    expect(huge).toMatchObject({ status: 413, body: { error: { code: 'MESSAGE_TOO_LARGE' } } });
  });

  it('logs one JSON line per request', () => {
    const parsed = lines.map((l) => JSON.parse(l));
    expect(parsed).toContainEqual(expect.objectContaining({ method: 'POST', path: '/v1/topics', status: 201, ms: expect.any(Number) }));
  });
});
