// Issue #7's acceptance over HTTP, plus route fuzzing:
//   1. 16 writer processes (16 local servers on one table and bucket, each its own writer), each
//      with its own client, append to ONE partition at once: every request is acknowledged on its
//      first try (appends are leaderless: DynamoDB sequences them), and 2,000 records end up dense
//      and intact, each client's batches whole at the offsets they were acknowledged at;
//   2. then 1,500 malformed requests over every route — hand-listed nasties (malformed JSON, wrong
//      types, huge and negative numbers, unicode, `..`, encoded slashes, very long names, an
//      oversize body, wrong methods) and fast-check generated ones — get zero 5xx, the server
//      stays up, and nothing stored changes (a snapshot of every table item and every object is
//      identical before and after).
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { allOperations } from '../../lib/api/operations.js';
import { type LocalServer, startServer } from '../../lib/local/server.js';
import { createTestContext } from '../support/storage.js';
import { startProcess } from './processes.js';

const WRITERS = 16;
const RECORDS = 2000;
const PER_REQUEST = 25;

let shared: SluiceContext;
const servers: LocalServer[] = [];

beforeAll(async () => {
  shared = await createTestContext();
  for (let i = 0; i < WRITERS; i++) {
    servers.push(await startServer({ context: startProcess(shared) }));
  }
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function snapshot(ctx: SluiceContext): Promise<string> {
  const items: unknown[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await ctx.ddb.send(new ScanCommand({ TableName: ctx.table, ExclusiveStartKey: startKey, ConsistentRead: true }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  const objects: string[] = [];
  let token: string | undefined;
  do {
    const page = await ctx.s3.send(new ListObjectsV2Command({ Bucket: ctx.bucket, ContinuationToken: token }));
    for (const o of page.Contents ?? []) objects.push(`${o.Key} ${o.Size} ${o.ETag}`);
    token = page.NextContinuationToken;
  } while (token);
  const stable = (x: unknown) => JSON.stringify(x, (_k, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort()) : v));
  return [...items.map(stable).sort(), ...objects.sort()].join('\n');
}

interface Reply {
  status: number;
  body: string;
}

async function send(url: string, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(`${url}${path}`, { method, body, headers: { 'content-type': 'application/json', ...headers } });
  return { status: res.status, body: await res.text() };
}

describe('16 writers appending to one partition at once, then 1,500 malformed requests', () => {
  it('2,000 records dense and intact; zero 5xx and nothing stored from malformed input', async () => {
    const url = servers[0].url;
    expect((await send(url, 'POST', '/v1/topics', JSON.stringify({ name: 'acc', partitions: 2 }))).status).toBe(201);

    // 1. Concurrency: each writer sends its share in batches of 25 to its own server, at once.
    const perWriter = RECORDS / WRITERS;
    const acks = await Promise.all(
      servers.map(async (server, w) => {
        const mine: { baseOffset: number; values: string[] }[] = [];
        for (let sent = 0; sent < perWriter; sent += PER_REQUEST) {
          const values = Array.from({ length: Math.min(PER_REQUEST, perWriter - sent) }, (_, i) => `w${w}-${sent + i}`);
          const reply = await send(server.url, 'POST', '/v1/topics/acc/records', JSON.stringify({ records: values.map((value) => ({ value, partition: 0 })) }));
          // No writer waits for another: every request succeeds the first time.
          expect(reply.status, reply.body).toBe(200);
          mine.push({ baseOffset: JSON.parse(reply.body).offsets[0].baseOffset, values });
        }
        return mine;
      }),
    );
    const log: string[] = [];
    for (;;) {
      const reply = await send(url, 'GET', `/v1/topics/acc/partitions/0/records?offset=${log.length}&maxBytes=1000000`);
      const body = JSON.parse(reply.body);
      body.records.forEach((r: { offset: number }, i: number) => expect(r.offset).toBe(log.length + i));
      log.push(...body.records.map((r: { value: string }) => r.value));
      if (body.nextOffset >= body.highWatermark) break;
    }
    expect(log).toHaveLength(RECORDS);
    expect(new Set(log).size).toBe(RECORDS);
    for (const batch of acks.flat()) expect(log.slice(batch.baseOffset, batch.baseOffset + batch.values.length)).toEqual(batch.values);
    console.log(JSON.stringify({ writers: WRITERS, records: log.length, requests: acks.flat().length }));

    // 2. Malformed requests.
    const before = await snapshot(shared);
    const replies: { method: string; path: string; status: number }[] = [];
    const fire = async (method: string, path: string, body?: string) => {
      const reply = await send(servers[replies.length % WRITERS].url, method, path, body);
      replies.push({ method, path, status: reply.status });
      expect(reply.status, `${method} ${path.slice(0, 200)} ${body?.slice(0, 200)} -> ${reply.body.slice(0, 300)}`).toBeLessThan(500);
      if (method !== 'GET') expect(reply.status, `${method} ${path.slice(0, 200)} ${body?.slice(0, 200)} -> ${reply.body.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
      // 431: Node's own HTTP parser refuses a request line over 16 KB before Sluice sees it.
      if (reply.status >= 400 && reply.status !== 431) expect(JSON.parse(reply.body).error).toMatchObject({ code: expect.any(String), retriable: expect.any(Boolean) });
    };
    for (const [method, path, body] of handListed()) await fire(method, path, body);
    const generatedCount = 1500 - replies.length;
    await fc.assert(
      fc.asyncProperty(malformedRequest, async ([method, path, body]) => fire(method, path, body)),
      { numRuns: generatedCount, seed: 1500 },
    );
    expect(replies).toHaveLength(1500);
    expect(replies.filter((r) => r.status >= 500)).toEqual([]);
    expect(await snapshot(shared)).toBe(before);
    console.log(JSON.stringify({ malformed: replies.length, statuses: Object.fromEntries([...new Set(replies.map((r) => r.status))].map((s) => [s, replies.filter((r) => r.status === s).length])) }));
  }, 120_000);
});

type Request = [method: string, path: string, body?: string];

const LONG = 'a'.repeat(10_000);
const BAD_NAMES = ['..', '.', '%2e%2e', '%2E', 'a%2Fb', '..%2F..%2Fetc', 'x/../y', '%00', 'caf%C3%A9', '%F0%9F%92%A5', '%E0%A4', `${'b'.repeat(250)}`, LONG, 'a%20b', 'a%25', '*', '%3Cscript%3E', 'null', '__proto__'];
const BAD_NUMBERS = ['-1', '1e309', '99999999999999999999', '0x10', '1.5', 'NaN', '', '%20', '-0', '2147483648', 'Infinity'];

/** Hand-listed nasties: every route with malformed bodies, bad names and numbers, wrong methods, one oversize body. */
function handListed(): Request[] {
  const out: Request[] = [];
  const badBodies = ['{', '[]', 'null', '"x"', '1e999', '{"a":', '\u0000', '{"records":[{"value":', '[[[[[[[[[[[[[[[[[[[[', '{}garbage', '\ud800'];
  for (const op of allOperations) {
    // A DELETE never names the real topic: the body might not be read before deleting.
    const path = op.path.replace('{topic}', op.method === 'DELETE' ? 'no-such-topic' : 'acc').replace('{partition}', '0').replace('{group}', 'g').replace('{memberId}', 'm');
    if (op.method !== 'GET') for (const body of badBodies) out.push([op.method, path, body]);
    for (const method of ['PUT', 'PATCH']) out.push([method, path, '{}']);
    for (const name of BAD_NAMES) {
      if (op.path.includes('{topic}')) out.push([op.method, op.path.replace('{topic}', name).replace('{partition}', '0'), op.method === 'GET' ? undefined : '{"x":']);
    }
  }
  const wrongTypes = [
    { name: 5, partitions: 1 },
    { name: 'ok-name', partitions: -1 },
    { name: 'ok-name', partitions: 1e12 },
    { name: 'ok-name', partitions: '3' },
    { name: '..', partitions: 1 },
    { name: LONG, partitions: 1 },
    { name: 'ok-name', partitions: 1, config: { 'retention.ms': 'soon' } },
    { name: 'ok-name', partitions: 1, config: { 'cleanup.policy': 'eat' } },
    { name: 'ok-name', partitions: 1, config: [] },
    { name: 'ok-name', partitions: 1.5 },
    { name: 'ok-name', partitions: 1, extra: true },
  ];
  for (const body of wrongTypes) out.push(['POST', '/v1/topics', JSON.stringify(body)]);
  const badRecords = [
    { records: [] },
    { records: [{ value: 5 }] },
    { records: [{ value: 'x', partition: -1 }] },
    { records: [{ value: 'x', partition: 99 }] },
    { records: [{ value: 'x', partition: 1e20 }] },
    { records: [{ value: 'x', timestamp: -5 }] },
    { records: [{ value: 'x', headers: [{ key: 1 }] }] },
    { records: [{ value: '%%%', }], encoding: 'base64x' },
    { records: [{ value: 'x' }], producerId: -1, producerEpoch: 0, sequences: [{ partition: 0, baseSequence: 0 }] },
    { records: [{ value: 'x' }], producerId: 1, producerEpoch: 1e9, sequences: [] },
    { records: 'x' },
  ];
  for (const body of badRecords) out.push(['POST', '/v1/topics/acc/records', JSON.stringify(body)]);
  for (const n of BAD_NUMBERS) {
    out.push(['GET', `/v1/topics/acc/partitions/${n}/records?offset=0`]);
    out.push(['GET', `/v1/topics/acc/partitions/0/records?offset=${n}`]);
    out.push(['GET', `/v1/topics/acc/partitions/0/records?offset=0&maxBytes=${n}`]);
    out.push(['GET', `/v1/topics/acc/partitions/0/records?offset=0&maxWaitMs=${n === '' ? 'x' : n.startsWith('-') ? n : `-${n}`}`]);
    out.push(['GET', `/v1/topics/acc/partitions/0/offsets?at=${n}`]);
    out.push(['POST', '/v1/topics/acc/partitions', JSON.stringify({ count: n })]);
    out.push(['POST', '/v1/groups/g/offsets', JSON.stringify({ offsets: [{ topic: 'acc', partition: 0, offset: n }] })]);
    out.push(['POST', `/v1/groups/g/members/m/heartbeat`, JSON.stringify({ generation: n })]);
  }
  out.push(['POST', '/v1/groups/g/members', JSON.stringify({ topics: 'acc' })]);
  out.push(['POST', '/v1/groups/g/members', JSON.stringify({ topics: ['acc'], assignor: 'random' })]);
  out.push(['POST', '/v1/groups/g/members', JSON.stringify({ topics: ['acc'], sessionTimeoutMs: -1 })]);
  out.push(['POST', '/v1/groups/g/offsets/reset', JSON.stringify({ to: 'yesterday' })]);
  out.push(['DELETE', '/v1/topics', undefined]);
  out.push(['POST', '/v1/topics/acc/records', JSON.stringify({ records: [{ value: 'x'.repeat(7 * 1024 * 1024), partition: 0 }] })]);
  out.push(['GET', `/v1/${LONG}`]);
  out.push(['GET', '/v1/topics/acc/partitions/0/records/../../../../etc/passwd']);
  return out;
}

const nastyString = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom(...BAD_NAMES, ...BAD_NUMBERS),
);
const segment = nastyString.map((s) => encodeURIComponent(s) || '%20');
const invalidTopic = fc.oneof(fc.constantFrom('..', '.', LONG, 'a%2Fb', '%2e%2e'), fc.string({ minLength: 1, maxLength: 12 }).map((s) => encodeURIComponent(`${s}!`)));
const malformedJson = fc.oneof(
  fc.json().filter((j) => j.length > 1).map((j) => j.slice(0, -1)), // truncated
  fc.json().map((j) => `${j}}`),
  fc.string({ maxLength: 40 }).filter((s) => {
    // A blank body is no body (router.ts), which POST /v1/producers, say, takes: not malformed.
    if (s.trim() === '') return false;
    try {
      const parsed: unknown = JSON.parse(s);
      return parsed === null || typeof parsed !== 'object' || Array.isArray(parsed);
    } catch {
      return true;
    }
  }),
  fc.jsonValue().filter((v) => v === null || typeof v !== 'object' || Array.isArray(v)).map((v) => JSON.stringify(v)),
);
/** An object body whose every field has a wrong type (for routes that take an object). */
const wrongTypedObject = fc
  .dictionary(fc.constantFrom('name', 'partitions', 'records', 'topics', 'offsets', 'generation', 'count', 'memberId', 'assignor', 'config'), fc.oneof(fc.double(), fc.boolean(), fc.constant(null), fc.object()), { minKeys: 1 })
  .map((o) => JSON.stringify(o));

/**
 * A request that can never be valid: a wrong method, a malformed body, or an invalid topic name in
 * the path (GETs may be valid: they cannot store anything).
 */
const malformedRequest: fc.Arbitrary<Request> = fc
  .tuple(fc.constantFrom(...allOperations), fc.integer({ min: 0, max: 3 }), fc.array(segment, { minLength: 3, maxLength: 3 }), malformedJson, wrongTypedObject, invalidTopic)
  .map(([op, how, [s1, s2, s3], badJson, wrongTyped, badTopic]): Request => {
    const fill = (topic: string) => op.path.replace('{topic}', topic).replace('{partition}', s2).replace('{group}', s1).replace('{memberId}', s3);
    const real = op.method === 'DELETE' ? badTopic : 'acc';
    if (op.method === 'GET') return ['GET', `${fill(s1)}?offset=${s2}&maxBytes=${s3}&at=${s1}&maxWaitMs=-${s3}`];
    switch (how) {
      case 0:
        return [op.method === 'DELETE' ? 'PATCH' : 'PUT', fill(s1), wrongTyped];
      case 1:
        return [op.method, fill(real), badJson];
      case 2:
        return op.path.includes('{topic}') ? [op.method, fill(badTopic), wrongTyped] : [op.method, fill(real), badJson];
      default:
        return [op.method, `${fill(real)}/${s3}`, wrongTyped];
    }
  });
