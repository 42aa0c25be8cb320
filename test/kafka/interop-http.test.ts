// Issue 14 point 3: records produced through Kafka are fetched unchanged over HTTP, and the other
// way round — keys, headers (repeated names, null values), timestamps and null keys and values.
// Kafka side: a kafkajs producer, and Fetch requests through the gateway decoded as Kafka's
// RecordBatches; HTTP side: the JSON produce and fetch of the HTTP API (base64, byte exact).
import { Partitioners } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTopic } from '../../lib/metadata/topics.js';
import { ApiKey, type FetchResponse } from '../../lib/kafka/protocol/messages.js';
import { call } from '../api/call.js';
import { decodeRecordBatches } from '../support/record-batches.js';
import { rawCall } from './raw-call.js';
import { startTestGateway, type TestGateway } from './support.js';

let kafka: TestGateway;

interface Plain {
  timestamp: number;
  key: string | null;
  value: string | null;
  headers: { key: string; value: string | null }[];
}

const b64 = (b: Buffer | null | undefined) => (b === null || b === undefined ? null : b.toString('base64'));
const bytes = (s: string) => Buffer.from(s, 'utf8');
const T0 = 1_600_000_000_000;

beforeAll(async () => {
  kafka = await startTestGateway();
  await createTopic(kafka.ctx, 'from-kafka', 1);
  await createTopic(kafka.ctx, 'from-http', 1);
});
afterAll(() => kafka.close());

/** Every record of partition 0 over HTTP (JSON, base64), as plain values. */
async function readOverHttp(topic: string): Promise<Plain[]> {
  const out: Plain[] = [];
  for (let offset = 0; ; ) {
    const res = await call(kafka.ctx, 'GET', `/v1/topics/${topic}/partitions/0/records`, undefined, { offset: String(offset), encoding: 'base64' });
    expect(res.status).toBe(200);
    out.push(...(res.body.records as (Plain & { offset: number })[]).map(({ timestamp, key, value, headers }) => ({ timestamp, key, value, headers })));
    if (res.body.nextOffset >= res.body.highWatermark) return out;
    offset = res.body.nextOffset;
  }
}

/** Every record of partition 0 through the gateway's Fetch, decoded from Kafka's RecordBatches. */
async function readOverKafka(topic: string): Promise<Plain[]> {
  const out: Plain[] = [];
  for (let offset = 0n; ; ) {
    const res = await rawCall<FetchResponse>(kafka.gateway.port, ApiKey.Fetch, 11, {
      replicaId: -1, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: [{ topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: offset, logStartOffset: -1n, partitionMaxBytes: 1 << 20 }] }],
      forgottenTopicsData: [], rackId: '',
    });
    const p = res.responses![0].partitions![0];
    expect(p.errorCode).toBe(0);
    for (const batch of decodeRecordBatches(p.records!)) {
      for (const r of batch.records) {
        if (BigInt(r.offset) < offset) continue;
        out.push({ timestamp: r.timestamp, key: b64(r.key), value: b64(r.value), headers: r.headers.map((h) => ({ key: h.key, value: b64(h.value) })) });
        offset = BigInt(r.offset) + 1n;
      }
    }
    if (offset >= p.highWatermark!) return out;
  }
}

describe('Kafka and HTTP read each other unchanged', () => {
  it('a kafkajs producer\'s keys, headers, timestamps and null values come back over HTTP byte for byte', async () => {
    const producer = kafka.client().producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    await producer.send({
      topic: 'from-kafka',
      messages: [
        { key: 'user-1', value: 'hello ü', timestamp: String(T0), headers: { trace: 'abc', bin: Buffer.from([0, 255, 7]) } },
        { key: null, value: null, timestamp: String(T0 + 1) },
        { key: Buffer.from([1, 2, 3]), value: '', timestamp: String(T0 + 2), headers: { dup: ['one', 'two'] } },
        { key: 'tombstone', value: null, timestamp: String(T0 - 5000) },
      ],
    });
    await producer.disconnect();
    const expected: Plain[] = [
      { timestamp: T0, key: b64(bytes('user-1')), value: b64(bytes('hello ü')), headers: [{ key: 'trace', value: b64(bytes('abc')) }, { key: 'bin', value: b64(Buffer.from([0, 255, 7])) }] },
      { timestamp: T0 + 1, key: null, value: null, headers: [] },
      { timestamp: T0 + 2, key: b64(Buffer.from([1, 2, 3])), value: '', headers: [{ key: 'dup', value: b64(bytes('one')) }, { key: 'dup', value: b64(bytes('two')) }] },
      { timestamp: T0 - 5000, key: b64(bytes('tombstone')), value: null, headers: [] },
    ];
    expect(await readOverHttp('from-kafka')).toEqual(expected);
    expect(await readOverKafka('from-kafka')).toEqual(expected);
  });

  it('records produced over HTTP come back through the gateway\'s Fetch unchanged, null header values included', async () => {
    const sent: Plain[] = [
      { timestamp: T0, key: b64(bytes('k1')), value: b64(bytes('v1')), headers: [{ key: 'h', value: b64(Buffer.from([0, 1])) }, { key: 'h', value: null }] },
      { timestamp: T0 + 10, key: null, value: b64(bytes('no key')), headers: [] },
      { timestamp: T0 + 20, key: b64(bytes('gone')), value: null, headers: [{ key: 'reason', value: b64(bytes('deleted')) }] },
    ];
    const res = await call(kafka.ctx, 'POST', '/v1/topics/from-http/records', { encoding: 'base64', records: sent.map((r) => ({ partition: 0, ...r })) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await readOverKafka('from-http')).toEqual(sent);
    expect(await readOverHttp('from-http')).toEqual(sent);
  });
});
