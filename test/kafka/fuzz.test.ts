// The protocol fuzz test (issue 14, point 5): for every API key and version in KAFKA_APIS (the
// registry, so handlers added later are fuzzed too) the gateway gets random bodies, truncated
// valid requests and valid requests with trailing bytes, plus frames of random bytes with random
// headers. Every frame is answered or closes the connection; the process never crashes (an
// uncaught error fails the run); no answer carries UNKNOWN_SERVER_ERROR (-1) anywhere; every
// answer decodes as the response of its API and version; and nothing is written (every table
// item and every object is the same before and after). Then, on storage of its own, structurally
// valid requests with random field values: those may write (a random CreateTopics may be a good
// one), but none may be answered UNKNOWN_SERVER_ERROR, so every handler maps bad input to Kafka's
// codes (INVALID_REQUEST, CORRUPT_MESSAGE, INVALID_TOPIC_EXCEPTION, ...).
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { KAFKA_APIS } from '../../lib/kafka/apis/index.js';
import { ByteReader } from '../../lib/kafka/protocol/byte-reader.js';
import { decodeExactly, decodeMessage, encodeToBuffer } from '../../lib/kafka/protocol/codec.js';
import { encodeRequestHeader, responseHeaderVersion } from '../../lib/kafka/protocol/headers.js';
import { API_SCHEMAS, ApiKey, ResponseHeaderSchema } from '../../lib/kafka/protocol/messages.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { errorCodesOf } from './error-fields.js';
import { structArb } from './message-arbitrary.js';
import { RawClient, requestFrame, sizedFrame } from './raw-client.js';
import { startTestGateway, type TestGateway } from './support.js';
import { createTestContext } from '../support/storage.js';

const SEED = 20261130;
/** Frames per API version and kind; the total stays near a few thousand however many APIs there are. */
const combos = KAFKA_APIS.reduce((n, api) => n + api.maxVersion - api.minVersion + 1, 0);
const PER_KIND = Math.max(3, Math.min(12, Math.floor(1500 / combos / 3)));
const PING = 0x7ffffff0;

let kafka: TestGateway;
let before: string;

beforeAll(async () => {
  kafka = await startTestGateway({ socketRequestMaxBytes: 1 << 20 });
  await createTopic(kafka.ctx, 'orders', 3, {});
  await createTopic(kafka.ctx, 'payments', 1, {});
  before = await snapshot(kafka.ctx);
});
afterAll(() => kafka.close());

async function snapshot(ctx: SluiceContext): Promise<string> {
  const items: unknown[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await ctx.ddb.send(new ScanCommand({ TableName: ctx.table, ExclusiveStartKey: startKey, ConsistentRead: true }));
    // A random body can be a valid InitProducerId (a few bytes), which allocates a producer id:
    // the PRODUCER counter and signing key are a valid request's writes, not bad input's.
    items.push(...(page.Items ?? []).filter((item) => item.pk !== 'PRODUCER'));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  const objects: string[] = [];
  let token: string | undefined;
  do {
    const page = await ctx.s3.send(new ListObjectsV2Command({ Bucket: ctx.bucket, ContinuationToken: token }));
    for (const o of page.Contents ?? []) objects.push(`${o.Key} ${o.Size} ${o.ETag}`);
    token = page.NextContinuationToken;
  } while (token);
  const stable = (x: unknown) =>
    JSON.stringify(x, (_k, v) => (v instanceof Set ? [...v].sort() : v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort()) : v));
  return [...items.map(stable).sort(), ...objects.sort()].join('\n');
}

class Fuzzer {
  private client?: RawClient;
  constructor(private readonly target: TestGateway = kafka) {}
  answered = 0;
  closed = 0;
  unanswered = 0;

  /**
   * Sends `frame` and an ApiVersions ping behind it. Responses come in request order, so what
   * arrives before the ping's answer is the frame's; returns it, or undefined when the gateway
   * sent none (Produce acks=0) or closed the connection.
   */
  async exchange(frame: Buffer): Promise<Buffer | undefined> {
    this.client ??= await RawClient.connect(this.target.gateway.port);
    const c = this.client;
    c.write(frame);
    c.write(requestFrame(ApiKey.ApiVersions, 0, PING, {}));
    let answer: Buffer | undefined;
    for (;;) {
      const got = await c.readFrame(30_000);
      if (!got) {
        this.closed++;
        this.client = undefined;
        return answer;
      }
      if (got.readInt32BE(0) === PING) break;
      if (answer !== undefined) throw new Error('two answers to one request');
      answer = got;
    }
    if (answer) this.answered++;
    else this.unanswered++;
    return answer;
  }

  close(): void {
    this.client?.close();
  }
}

/** Checks one answer to a request of `apiKey` v`version` with correlation id `correlationId`. */
function checkAnswer(answer: Buffer, apiKey: number, version: number, correlationId: number, what: string): void {
  const reader = new ByteReader(answer);
  const header = decodeMessage<{ correlationId: number }>(ResponseHeaderSchema, responseHeaderVersion(apiKey, version), reader);
  expect(header.correlationId, what).toBe(correlationId);
  const schema = API_SCHEMAS.get(apiKey)!.response;
  const body = decodeExactly(schema, version, answer.subarray(reader.position));
  expect(errorCodesOf(schema, version, body), `${what}: an error code -1 in ${JSON.stringify(body, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`).not.toContain(-1);
}

describe('protocol fuzz', () => {
  it('every registered API and version: random, truncated and overlong bodies', async () => {
    const fuzzer = new Fuzzer();
    let correlationId = 1;
    try {
      for (const api of KAFKA_APIS) {
        const schema = API_SCHEMAS.get(api.apiKey)!.request;
        for (let version = api.minVersion; version <= api.maxVersion; version++) {
          const header = () => encodeRequestHeader({ requestApiKey: api.apiKey, requestApiVersion: version, correlationId: ++correlationId, clientId: 'fuzz' }).toBuffer();
          const seed = SEED + api.apiKey * 1000 + version;
          const randomBodies = fc.sample(fc.uint8Array({ maxLength: 96 }), { seed, numRuns: PER_KIND });
          const valid = fc.sample(structArb(schema, version), { seed: seed + 1, numRuns: PER_KIND }).map((v) => encodeToBuffer(schema, version, v));
          const cuts = fc.sample(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), { seed: seed + 2, numRuns: PER_KIND });
          const tails = fc.sample(fc.uint8Array({ minLength: 1, maxLength: 8 }), { seed: seed + 3, numRuns: PER_KIND });
          const bodies: [string, Buffer][] = [
            ...randomBodies.map((b, i): [string, Buffer] => [`random body ${i}`, Buffer.from(b)]),
            ...valid.filter((b) => b.length > 0).map((b, i): [string, Buffer] => [`truncated ${i}`, b.subarray(0, Math.floor(cuts[i]! * b.length))]),
            ...valid.map((b, i): [string, Buffer] => [`trailing bytes ${i}`, Buffer.concat([b, Buffer.from(tails[i]!)])]),
          ];
          for (const [kind, body] of bodies) {
            const h = header();
            const answer = await fuzzer.exchange(sizedFrame(Buffer.concat([h, body])));
            if (answer) checkAnswer(answer, api.apiKey, version, correlationId, `${api.name} v${version} ${kind}`);
          }
        }
      }
      expect(fuzzer.answered + fuzzer.closed + fuzzer.unanswered).toBeGreaterThan(0);
    } finally {
      fuzzer.close();
    }
    // Still serving.
    const admin = kafka.client().admin();
    await admin.connect();
    expect((await admin.listTopics()).sort()).toEqual(['orders', 'payments']);
    await admin.disconnect();
    expect(await snapshot(kafka.ctx)).toBe(before);
  });

  it('valid requests with random field values get no UNKNOWN_SERVER_ERROR', async () => {
    // Long polls and rebalance waits are capped short so the random timeouts stay cheap.
    const own = await startTestGateway({ ctx: await createTestContext({ maxWaitMsLimit: 100 }) });
    await createTopic(own.ctx, 'orders', 3, {});
    const fuzzer = new Fuzzer(own);
    let correlationId = 1;
    try {
      for (const api of KAFKA_APIS) {
        const schema = API_SCHEMAS.get(api.apiKey)!.request;
        for (let version = api.minVersion; version <= api.maxVersion; version++) {
          const requests = fc.sample(structArb(schema, version), { seed: SEED + 7 + api.apiKey * 1000 + version, numRuns: PER_KIND });
          for (const request of requests) {
            const id = ++correlationId;
            const answer = await fuzzer.exchange(requestFrame(api.apiKey, version, id, request, 'fuzz'));
            if (answer) checkAnswer(answer, api.apiKey, version, id, `${api.name} v${version} valid random`);
          }
        }
      }
    } finally {
      fuzzer.close();
      await own.close();
    }
  });

  it('frames of random bytes: random sizes, keys and versions', async () => {
    const fuzzer = new Fuzzer();
    try {
      const frames = fc.sample(fc.uint8Array({ minLength: 0, maxLength: 64 }), { seed: SEED, numRuns: 300 });
      for (const payload of frames) {
        if (payload.length >= 8 && Buffer.from(payload).readInt32BE(4) === PING) continue;
        const answer = await fuzzer.exchange(sizedFrame(Buffer.from(payload)));
        if (!answer || payload.length < 8) continue;
        const apiKey = Buffer.from(payload).readInt16BE(0);
        const version = Buffer.from(payload).readInt16BE(2);
        const api = KAFKA_APIS.find((a) => a.apiKey === apiKey);
        if (api && version >= api.minVersion && version <= api.maxVersion) checkAnswer(answer, apiKey, version, Buffer.from(payload).readInt32BE(4), 'random frame');
        else expect(answer.readInt32BE(0)).toBe(Buffer.from(payload).readInt32BE(4));
      }
    } finally {
      fuzzer.close();
    }
    expect(await snapshot(kafka.ctx)).toBe(before);
  });
});
