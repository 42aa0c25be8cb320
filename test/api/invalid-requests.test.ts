// Every malformed or invalid request gets the contract's status and error code, and changes
// nothing: the whole stored state visible through the API (topics, partition states, records,
// producer-id allocator) is compared before and after each one.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { handleHttp } from '../../lib/api/router.js';
import { createTestContext } from '../support/storage.js';
import { call } from './call.js';

interface Case {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  /** A string is sent verbatim (bad JSON); anything else as JSON. */
  readonly body?: unknown;
  readonly query?: Record<string, string>;
  readonly status: number;
  readonly code: string;
  /** Substring the message must contain (usually the offending field). */
  readonly mentions?: string;
}

const topics = '/v1/topics';
const records = '/v1/topics/t/records';
const fetchPath = '/v1/topics/t/partitions/0/records';
const offsetsPath = '/v1/topics/t/partitions/0/offsets';
const ok = { records: [{ value: 'fine' }] };
const big = 'x'.repeat(2000);

const cases: Case[] = [
  // Routing and framing
  { name: 'unknown path', method: 'GET', path: '/v1/nothing', status: 404, code: 'NOT_FOUND' },
  { name: 'wrong method', method: 'PUT', path: topics, status: 405, code: 'METHOD_NOT_ALLOWED', mentions: 'POST or GET' },
  // An empty segment must not collapse: DELETE /v1/topics//t is not DELETE /v1/topics/t.
  { name: 'empty path segment', method: 'DELETE', path: '/v1/topics//t', status: 404, code: 'NOT_FOUND' },
  { name: 'bad percent-encoding in path', method: 'GET', path: '/v1/topics/%E0%A4%A', status: 400, code: 'INVALID_REQUEST' },
  { name: 'bad JSON', method: 'POST', path: topics, body: '{"name": "x",', status: 400, code: 'INVALID_REQUEST', mentions: 'JSON' },
  { name: 'JSON array body', method: 'POST', path: topics, body: '[1,2]', status: 400, code: 'INVALID_REQUEST', mentions: 'object' },
  { name: 'JSON string body', method: 'POST', path: records, body: '"records"', status: 400, code: 'INVALID_REQUEST' },
  { name: 'body over 6 MB', method: 'POST', path: records, body: { records: [{ value: 'y'.repeat(6 * 1024 * 1024) }] }, status: 413, code: 'MESSAGE_TOO_LARGE' },

  // Create topic
  { name: 'topic: missing name', method: 'POST', path: topics, body: { partitions: 1 }, status: 400, code: 'INVALID_REQUEST', mentions: "'name' is required" },
  { name: 'topic: missing partitions', method: 'POST', path: topics, body: { name: 'x' }, status: 400, code: 'INVALID_REQUEST', mentions: 'partitions' },
  { name: 'topic: numeric name', method: 'POST', path: topics, body: { name: 5, partitions: 1 }, status: 400, code: 'INVALID_REQUEST', mentions: 'name' },
  { name: 'topic: partitions as string', method: 'POST', path: topics, body: { name: 'x', partitions: '3' }, status: 400, code: 'INVALID_REQUEST', mentions: 'partitions' },
  { name: 'topic: fractional partitions', method: 'POST', path: topics, body: { name: 'x', partitions: 1.5 }, status: 400, code: 'INVALID_REQUEST', mentions: 'partitions' },
  { name: 'topic: huge partitions', method: 'POST', path: topics, body: { name: 'x', partitions: 1e20 }, status: 400, code: 'INVALID_REQUEST', mentions: 'partitions' },
  { name: 'topic: zero partitions', method: 'POST', path: topics, body: { name: 'x', partitions: 0 }, status: 400, code: 'INVALID_PARTITIONS' },
  { name: 'topic: negative partitions', method: 'POST', path: topics, body: { name: 'x', partitions: -1 }, status: 400, code: 'INVALID_PARTITIONS' },
  { name: 'topic: 1001 partitions', method: 'POST', path: topics, body: { name: 'x', partitions: 1001 }, status: 400, code: 'INVALID_PARTITIONS', mentions: '1000' },
  { name: 'topic: unknown field', method: 'POST', path: topics, body: { name: 'x', partitions: 1, replicas: 3 }, status: 400, code: 'INVALID_REQUEST', mentions: "'replicas'" },
  { name: 'topic: empty name', method: 'POST', path: topics, body: { name: '', partitions: 1 }, status: 400, code: 'INVALID_TOPIC_EXCEPTION' },
  { name: "topic: name '.'", method: 'POST', path: topics, body: { name: '.', partitions: 1 }, status: 400, code: 'INVALID_TOPIC_EXCEPTION' },
  { name: "topic: name '..'", method: 'POST', path: topics, body: { name: '..', partitions: 1 }, status: 400, code: 'INVALID_TOPIC_EXCEPTION' },
  { name: 'topic: name with a space', method: 'POST', path: topics, body: { name: 'a b', partitions: 1 }, status: 400, code: 'INVALID_TOPIC_EXCEPTION' },
  { name: 'topic: name with a slash', method: 'POST', path: topics, body: { name: 'a/b', partitions: 1 }, status: 400, code: 'INVALID_TOPIC_EXCEPTION' },
  { name: 'topic: non-ASCII name', method: 'POST', path: topics, body: { name: 'grüße', partitions: 1 }, status: 400, code: 'INVALID_TOPIC_EXCEPTION' },
  { name: 'topic: 250-char name', method: 'POST', path: topics, body: { name: 'a'.repeat(250), partitions: 1 }, status: 400, code: 'INVALID_TOPIC_EXCEPTION', mentions: '249' },
  { name: 'topic: already exists', method: 'POST', path: topics, body: { name: 't', partitions: 1 }, status: 409, code: 'TOPIC_ALREADY_EXISTS' },
  { name: 'config: unknown policy in a list', method: 'POST', path: topics, body: { name: 'x', partitions: 1, config: { 'cleanup.policy': 'compact,eat' } }, status: 400, code: 'INVALID_CONFIG', mentions: 'compact' },
  { name: 'config: unknown key', method: 'POST', path: topics, body: { name: 'x', partitions: 1, config: { 'min.insync.replicas': 2 } }, status: 400, code: 'INVALID_CONFIG', mentions: 'min.insync.replicas' },
  { name: 'config: non-numeric value', method: 'POST', path: topics, body: { name: 'x', partitions: 1, config: { 'retention.ms': 'soon' } }, status: 400, code: 'INVALID_CONFIG', mentions: 'retention.ms' },
  { name: 'config: negative value', method: 'POST', path: topics, body: { name: 'x', partitions: 1, config: { 'retention.ms': -5 } }, status: 400, code: 'INVALID_CONFIG', mentions: 'retention.ms' },
  { name: 'config: boolean value', method: 'POST', path: topics, body: { name: 'x', partitions: 1, config: { 'max.message.bytes': true } }, status: 400, code: 'INVALID_REQUEST', mentions: 'config.max.message.bytes' },
  { name: 'config: max.message.bytes over 4 MiB', method: 'POST', path: topics, body: { name: 'x', partitions: 1, config: { 'max.message.bytes': 5_000_000 } }, status: 400, code: 'INVALID_CONFIG', mentions: 'max.message.bytes' },
  { name: 'config: array', method: 'POST', path: topics, body: { name: 'x', partitions: 1, config: [] }, status: 400, code: 'INVALID_REQUEST', mentions: 'config' },

  // Partitions, describe, delete
  { name: 'partitions: decrease', method: 'POST', path: '/v1/topics/t/partitions', body: { count: 1 }, status: 400, code: 'INVALID_PARTITIONS' },
  { name: 'partitions: over the limit', method: 'POST', path: '/v1/topics/t/partitions', body: { count: 5000 }, status: 400, code: 'INVALID_PARTITIONS' },
  { name: 'partitions: count as text', method: 'POST', path: '/v1/topics/t/partitions', body: { count: 'many' }, status: 400, code: 'INVALID_REQUEST', mentions: 'count' },
  { name: 'partitions: unknown topic', method: 'POST', path: '/v1/topics/nope/partitions', body: { count: 5 }, status: 404, code: 'UNKNOWN_TOPIC_OR_PARTITION' },
  { name: 'describe: unknown topic', method: 'GET', path: '/v1/topics/nope', status: 404, code: 'UNKNOWN_TOPIC_OR_PARTITION' },
  { name: 'describe: illegal name', method: 'GET', path: '/v1/topics/a%20b', status: 400, code: 'INVALID_TOPIC_EXCEPTION' },
  { name: 'list: unknown query parameter', method: 'GET', path: topics, query: { page: '2' }, status: 400, code: 'INVALID_REQUEST', mentions: 'page' },
  { name: 'delete: unknown topic', method: 'DELETE', path: '/v1/topics/nope', status: 404, code: 'UNKNOWN_TOPIC_OR_PARTITION' },
  { name: 'delete: illegal name', method: 'DELETE', path: '/v1/topics/..', status: 400, code: 'INVALID_TOPIC_EXCEPTION' },

  // Produce
  { name: 'produce: missing records', method: 'POST', path: records, body: {}, status: 400, code: 'INVALID_REQUEST', mentions: "'records' is required" },
  { name: 'produce: no records', method: 'POST', path: records, body: { records: [] }, status: 400, code: 'INVALID_REQUEST', mentions: 'records' },
  { name: 'produce: over 100000 records', method: 'POST', path: records, body: { records: Array.from({ length: 100_001 }, () => ({ value: '' })) }, status: 400, code: 'INVALID_REQUEST', mentions: '100000' },
  { name: 'produce: records not an array', method: 'POST', path: records, body: { records: 'x' }, status: 400, code: 'INVALID_REQUEST', mentions: 'records' },
  { name: 'produce: missing value', method: 'POST', path: records, body: { records: [{ key: 'k' }] }, status: 400, code: 'INVALID_REQUEST', mentions: "'records[0].value' is required" },
  { name: 'produce: numeric value', method: 'POST', path: records, body: { records: [{ value: 'ok' }, { value: 5 }] }, status: 400, code: 'INVALID_REQUEST', mentions: 'records[1].value' },
  { name: 'produce: object key', method: 'POST', path: records, body: { records: [{ key: {}, value: 'v' }] }, status: 400, code: 'INVALID_REQUEST', mentions: 'records[0].key' },
  { name: 'produce: negative partition', method: 'POST', path: records, body: { records: [{ partition: -1, value: 'v' }] }, status: 400, code: 'INVALID_REQUEST', mentions: 'records[0].partition' },
  { name: 'produce: partition as string', method: 'POST', path: records, body: { records: [{ partition: '0', value: 'v' }] }, status: 400, code: 'INVALID_REQUEST', mentions: 'records[0].partition' },
  { name: 'produce: partition beyond the count', method: 'POST', path: records, body: { records: [{ value: 'ok' }, { partition: 2, value: 'v' }] }, status: 404, code: 'UNKNOWN_TOPIC_OR_PARTITION', mentions: 'partition 2' },
  { name: 'produce: misspelt field', method: 'POST', path: records, body: { records: [{ partiton: 1, value: 'v' }] }, status: 400, code: 'INVALID_REQUEST', mentions: 'records[0].partiton' },
  { name: 'produce: negative timestamp', method: 'POST', path: records, body: { records: [{ value: 'v', timestamp: -1 }] }, status: 400, code: 'INVALID_REQUEST', mentions: 'timestamp' },
  { name: 'produce: huge timestamp', method: 'POST', path: records, body: { records: [{ value: 'v', timestamp: 2 ** 60 }] }, status: 400, code: 'INVALID_REQUEST', mentions: 'timestamp' },
  { name: 'produce: headers as object', method: 'POST', path: records, body: { records: [{ value: 'v', headers: { a: 'b' } }] }, status: 400, code: 'INVALID_REQUEST', mentions: 'records[0].headers' },
  { name: 'produce: numeric header key', method: 'POST', path: records, body: { records: [{ value: 'v', headers: [{ key: 1, value: 'x' }] }] }, status: 400, code: 'INVALID_REQUEST', mentions: 'records[0].headers[0].key' },
  { name: 'produce: unknown encoding', method: 'POST', path: records, body: { ...ok, encoding: 'hex' }, status: 400, code: 'INVALID_REQUEST', mentions: 'encoding' },
  { name: 'produce: bad base64 value', method: 'POST', path: records, body: { encoding: 'base64', records: [{ value: 'aGk=' }, { value: 'not base64!' }] }, status: 400, code: 'INVALID_REQUEST', mentions: 'records[1].value' },
  { name: 'produce: bad base64 key', method: 'POST', path: records, body: { encoding: 'base64', records: [{ key: 'abc', value: 'aGk=' }] }, status: 400, code: 'INVALID_REQUEST', mentions: 'records[0].key' },
  { name: 'produce: bad base64 header', method: 'POST', path: records, body: { encoding: 'base64', records: [{ value: 'aGk=', headers: [{ key: 'h', value: '@@@@' }] }] }, status: 400, code: 'INVALID_REQUEST', mentions: 'records[0].headers[0].value' },
  { name: 'produce: oversize record after a good one', method: 'POST', path: '/v1/topics/small/records', body: { records: [{ value: 'ok' }, { value: big }] }, status: 413, code: 'MESSAGE_TOO_LARGE', mentions: 'records[1]' },
  { name: 'produce: oversize header', method: 'POST', path: '/v1/topics/small/records', body: { records: [{ value: 'ok', headers: [{ key: 'h', value: big }] }] }, status: 413, code: 'MESSAGE_TOO_LARGE' },
  { name: 'produce: unknown topic', method: 'POST', path: '/v1/topics/nope/records', body: ok, status: 404, code: 'UNKNOWN_TOPIC_OR_PARTITION' },
  { name: 'produce: illegal topic name', method: 'POST', path: '/v1/topics/bad%21name/records', body: ok, status: 400, code: 'INVALID_TOPIC_EXCEPTION' },
  { name: 'idempotent: producerId without sequences', method: 'POST', path: records, body: { producerId: 1, producerEpoch: 0, records: [{ partition: 0, value: 'v' }] }, status: 400, code: 'INVALID_REQUEST', mentions: 'sequences' },
  { name: 'idempotent: record without partition', method: 'POST', path: records, body: { producerId: 1, producerEpoch: 0, sequences: [{ partition: 0, baseSequence: 0 }], records: [{ partition: 0, value: 'v' }, { value: 'w' }] }, status: 400, code: 'INVALID_REQUEST', mentions: 'records[1].partition' },
  { name: 'idempotent: partition without sequence', method: 'POST', path: records, body: { producerId: 1, producerEpoch: 0, sequences: [{ partition: 0, baseSequence: 0 }], records: [{ partition: 1, value: 'v' }] }, status: 400, code: 'INVALID_REQUEST', mentions: 'partition 1' },
  { name: 'idempotent: epoch out of range', method: 'POST', path: records, body: { producerId: 1, producerEpoch: 40000, sequences: [{ partition: 0, baseSequence: 0 }], records: [{ partition: 0, value: 'v' }] }, status: 400, code: 'INVALID_REQUEST', mentions: 'producerEpoch' },
  { name: 'idempotent: negative sequence', method: 'POST', path: records, body: { producerId: 1, producerEpoch: 0, sequences: [{ partition: 0, baseSequence: -1 }], records: [{ partition: 0, value: 'v' }] }, status: 400, code: 'INVALID_REQUEST', mentions: 'sequences[0].baseSequence' },
  { name: 'producers: unexpected field', method: 'POST', path: '/v1/producers', body: { transactionalId: 'x' }, status: 400, code: 'INVALID_REQUEST', mentions: 'transactionalId' },

  // Fetch and ListOffsets
  { name: 'fetch: missing offset', method: 'GET', path: fetchPath, status: 400, code: 'INVALID_REQUEST', mentions: "'offset' is required" },
  { name: 'fetch: negative offset', method: 'GET', path: fetchPath, query: { offset: '-1' }, status: 400, code: 'INVALID_REQUEST', mentions: 'offset' },
  { name: 'fetch: offset not a number', method: 'GET', path: fetchPath, query: { offset: 'abc' }, status: 400, code: 'INVALID_REQUEST', mentions: 'offset' },
  { name: 'fetch: offset beyond 2^53', method: 'GET', path: fetchPath, query: { offset: '99999999999999999999' }, status: 400, code: 'INVALID_REQUEST', mentions: 'offset' },
  { name: 'fetch: maxBytes 0', method: 'GET', path: fetchPath, query: { offset: '0', maxBytes: '0' }, status: 400, code: 'INVALID_REQUEST', mentions: 'maxBytes' },
  { name: 'fetch: maxBytes 100 MB', method: 'GET', path: fetchPath, query: { offset: '0', maxBytes: '100000000' }, status: 400, code: 'INVALID_REQUEST', mentions: 'maxBytes' },
  { name: 'fetch: negative maxWaitMs', method: 'GET', path: fetchPath, query: { offset: '0', maxWaitMs: '-5' }, status: 400, code: 'INVALID_REQUEST', mentions: 'maxWaitMs' },
  { name: 'fetch: unknown encoding', method: 'GET', path: fetchPath, query: { offset: '0', encoding: 'hex' }, status: 400, code: 'INVALID_REQUEST', mentions: 'encoding' },
  { name: 'fetch: unknown parameter', method: 'GET', path: fetchPath, query: { offset: '0', max_bytes: '10' }, status: 400, code: 'INVALID_REQUEST', mentions: 'max_bytes' },
  { name: 'fetch: partition not a number', method: 'GET', path: '/v1/topics/t/partitions/x/records', query: { offset: '0' }, status: 400, code: 'INVALID_REQUEST', mentions: 'partition' },
  { name: 'fetch: partition beyond the count', method: 'GET', path: '/v1/topics/t/partitions/2/records', query: { offset: '0' }, status: 404, code: 'UNKNOWN_TOPIC_OR_PARTITION' },
  { name: 'fetch: unknown topic', method: 'GET', path: '/v1/topics/nope/partitions/0/records', query: { offset: '0' }, status: 404, code: 'UNKNOWN_TOPIC_OR_PARTITION' },
  { name: 'fetch: offset past the high watermark', method: 'GET', path: fetchPath, query: { offset: '1000' }, status: 416, code: 'OFFSET_OUT_OF_RANGE' },
  { name: 'offsets: missing at', method: 'GET', path: offsetsPath, status: 400, code: 'INVALID_REQUEST', mentions: 'at' },
  { name: 'offsets: at is a word', method: 'GET', path: offsetsPath, query: { at: 'yesterday' }, status: 400, code: 'INVALID_REQUEST', mentions: 'at' },
  { name: 'offsets: negative timestamp', method: 'GET', path: offsetsPath, query: { at: '-3' }, status: 400, code: 'INVALID_REQUEST', mentions: 'at' },
  { name: 'offsets: unknown partition', method: 'GET', path: '/v1/topics/t/partitions/9/offsets', query: { at: 'latest' }, status: 404, code: 'UNKNOWN_TOPIC_OR_PARTITION' },
];

async function snapshot(ctx: SluiceContext) {
  const listed = (await call(ctx, 'GET', '/v1/topics')).body.topics as { name: string; partitions: number }[];
  const state: Record<string, unknown> = { listed };
  for (const t of listed) {
    state[t.name] = (await call(ctx, 'GET', `/v1/topics/${t.name}`)).body;
    for (let p = 0; p < t.partitions; p++) {
      state[`${t.name}/${p}`] = (await call(ctx, 'GET', `/v1/topics/${t.name}/partitions/${p}/records`, undefined, { offset: '0' })).body;
    }
  }
  state.producerIds = (await ctx.ddb.send(new GetCommand({ TableName: ctx.table, Key: { pk: 'PRODUCER', sk: 'NEXT' }, ConsistentRead: true }))).Item;
  return state;
}

describe('invalid requests', () => {
  let ctx: SluiceContext;
  let before: unknown;

  beforeAll(async () => {
    ctx = await createTestContext();
    await call(ctx, 'POST', topics, { name: 't', partitions: 2 });
    await call(ctx, 'POST', topics, { name: 'small', partitions: 1, config: { 'max.message.bytes': 1000 } });
    await call(ctx, 'POST', '/v1/producers');
    await call(ctx, 'POST', records, { records: [{ partition: 0, value: 'a' }, { partition: 1, value: 'b' }, { partition: 0, value: 'c' }] });
    await call(ctx, 'POST', '/v1/topics/small/records', { records: [{ value: 'ok' }] });
    before = await snapshot(ctx);
  });

  it.each(cases)('$name → $status $code, nothing changes', async (c) => {
    const res = await call(ctx, c.method, c.path, c.body, c.query);
    expect(res.status).toBe(c.status);
    expect(res.body.error.code).toBe(c.code);
    expect(typeof res.body.error.message).toBe('string');
    expect(res.body.error.retriable).toBe(false);
    if (c.mentions) expect(res.body.error.message).toContain(c.mentions);
    expect(await snapshot(ctx)).toEqual(before);
  });

  it('reports the log bounds with OFFSET_OUT_OF_RANGE', async () => {
    const res = await call(ctx, 'GET', fetchPath, undefined, { offset: '1000' });
    expect(res.body.error).toMatchObject({ code: 'OFFSET_OUT_OF_RANGE', logStartOffset: 0, highWatermark: 2 });
  });

  it('answers an unexpected failure with a generic 500, hiding the cause', async () => {
    const broken = { ...ctx, table: 'no-such-table' };
    const res = await handleHttp(broken, { method: 'GET', path: '/v1/topics/t' });
    expect(res.status).toBe(500);
    const body = JSON.parse(res.body);
    expect(body.error).toMatchObject({ code: 'UNKNOWN_SERVER_ERROR', retriable: true });
    expect(body.error.message).not.toContain('no-such-table');
    expect(res.headers['retry-after']).toBe('1');
  });
});
