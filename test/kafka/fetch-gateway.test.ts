// Fetch through the gateway (raw requests, decoded with the codec, so every field is checked):
// RecordBatches stamped with their offsets, high watermark = last stable offset, log start
// offset; partition and response max bytes as Kafka (whole batches, the first even when larger);
// OFFSET_OUT_OF_RANGE, unknown topics and partitions; v0-3 refused; sessions not kept; and the
// long-poll: an empty fetch returns as soon as records arrive, and waits max_wait_ms when none do.
import { Partitioners } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendToPartitions } from '../../lib/log/append.js';
import { type TopicMetadata, createTopic } from '../../lib/metadata/topics.js';
import { ApiKey, type FetchResponse } from '../../lib/kafka/protocol/messages.js';
import { decodeRecordBatches } from '../support/record-batches.js';
import { rawCall } from './raw-call.js';
import { startTestGateway, type TestGateway } from './support.js';

let kafka: TestGateway;
let t: TopicMetadata;

const value = (s: string) => [{ timestamp: 1_700_000_000_000, key: Buffer.from('k'), value: Buffer.from(s) }];

function fetchRequest(topic: string, partitions: { partition: number; fetchOffset: bigint; partitionMaxBytes?: number }[], options: { maxWaitMs?: number; minBytes?: number; maxBytes?: number; sessionId?: number; sessionEpoch?: number } = {}) {
  return {
    replicaId: -1,
    maxWaitMs: options.maxWaitMs ?? 0,
    minBytes: options.minBytes ?? 1,
    maxBytes: options.maxBytes ?? 52_428_800,
    isolationLevel: 1,
    sessionId: options.sessionId ?? 0,
    sessionEpoch: options.sessionEpoch ?? -1,
    topics: [{ topic, partitions: partitions.map((p) => ({ partition: p.partition, currentLeaderEpoch: -1, fetchOffset: p.fetchOffset, logStartOffset: -1n, partitionMaxBytes: p.partitionMaxBytes ?? 1_048_576 })) }],
    forgottenTopicsData: [],
    rackId: '',
  };
}

const fetch = (request: object, version = 11) => rawCall<FetchResponse>(kafka.gateway.port, ApiKey.Fetch, version, request);
const offsetsOf = (records: Buffer | null | undefined) => decodeRecordBatches(records ?? Buffer.alloc(0)).flatMap((b) => b.records.map((r) => r.offset));

beforeAll(async () => {
  kafka = await startTestGateway();
  t = await createTopic(kafka.ctx, 'events', 2);
  for (const s of ['a', 'b', 'c']) await appendToPartitions(kafka.ctx, t, [{ partition: 0, records: value(s) }]);
});
afterAll(() => kafka.close());

describe('Fetch through the gateway', () => {
  it('answers stored batches with their offsets, the high watermark as last stable offset, and the log start', async () => {
    const res = await fetch(fetchRequest('events', [{ partition: 0, fetchOffset: 1n }, { partition: 1, fetchOffset: 0n }]));
    expect(res).toMatchObject({ errorCode: 0, sessionId: 0 });
    const [p0, p1] = res.responses![0].partitions!;
    expect(p0).toMatchObject({ partitionIndex: 0, errorCode: 0, highWatermark: 3n, lastStableOffset: 3n, logStartOffset: 0n, abortedTransactions: [], preferredReadReplica: -1 });
    // Each append is its own batch; the tail holds them; a fetch reads the one holding the offset and the next.
    expect(offsetsOf(p0.records)).toEqual([1, 2]);
    expect(decodeRecordBatches(p0.records!).map((b) => b.records[0].value!.toString())).toEqual(['b', 'c']);
    expect(p1).toMatchObject({ partitionIndex: 1, errorCode: 0, highWatermark: 0n });
    expect(p1.records!.length).toBe(0);
  });

  it('keeps whole batches within partition_max_bytes, and the first batch even when larger', async () => {
    const one = (await fetch(fetchRequest('events', [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 }]))).responses![0].partitions![0];
    expect(offsetsOf(one.records)).toEqual([0]);
    const both = (await fetch(fetchRequest('events', [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1_000_000 }]))).responses![0].partitions![0];
    expect(offsetsOf(both.records)).toEqual([0, 1]);
    // The response's max_bytes too (v3+): one batch, never none.
    const capped = (await fetch(fetchRequest('events', [{ partition: 0, fetchOffset: 0n }], { maxBytes: 10 }))).responses![0].partitions![0];
    expect(offsetsOf(capped.records)).toEqual([0]);
  });

  it("answers Kafka's errors per partition: out of range (with the bounds), unknown partition and topic", async () => {
    const res = await fetch(fetchRequest('events', [{ partition: 0, fetchOffset: 99n }, { partition: 7, fetchOffset: 0n }]));
    expect(res.responses![0].partitions).toEqual([
      expect.objectContaining({ partitionIndex: 0, errorCode: 1, highWatermark: 3n, logStartOffset: 0n }),
      expect.objectContaining({ partitionIndex: 7, errorCode: 3 }),
    ]);
    const unknown = await fetch(fetchRequest('nope', [{ partition: 0, fetchOffset: 0n }]));
    expect(unknown.responses![0].partitions![0].errorCode).toBe(3);
  });

  it('refuses v0-3 (MessageSet answers) per partition, and fetch sessions it does not keep', async () => {
    const old = await fetch(fetchRequest('events', [{ partition: 0, fetchOffset: 0n }]), 3);
    expect(old.responses![0].partitions![0].errorCode).toBe(35);
    expect((await fetch(fetchRequest('events', [{ partition: 0, fetchOffset: 0n }], { sessionId: 12 }))).errorCode).toBe(70);
    expect((await fetch(fetchRequest('events', [{ partition: 0, fetchOffset: 0n }], { sessionEpoch: 3 }))).errorCode).toBe(71);
  });

  it('long-polls: an empty fetch returns as soon as a kafkajs producer appends, not after max_wait_ms', async () => {
    const producer = kafka.client().producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const started = Date.now();
    const polling = fetch(fetchRequest('events', [{ partition: 1, fetchOffset: 0n }], { maxWaitMs: 20_000 }));
    await new Promise((r) => setTimeout(r, 300));
    await producer.send({ topic: 'events', messages: [{ partition: 1, value: 'woke' }] });
    const res = await polling;
    const elapsed = Date.now() - started;
    await producer.disconnect();
    const p1 = res.responses![0].partitions![0];
    expect(decodeRecordBatches(p1.records!).flatMap((b) => b.records.map((r) => r.value!.toString()))).toEqual(['woke']);
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(5000);
  });

  it("long-polls: wakes on another process's append (polling STATE), and waits max_wait_ms when nothing arrives", async () => {
    const started = Date.now();
    const polling = fetch(fetchRequest('events', [{ partition: 0, fetchOffset: 3n }], { maxWaitMs: 20_000 }));
    await new Promise((r) => setTimeout(r, 300));
    await appendToPartitions(kafka.ctx, t, [{ partition: 0, records: value('elsewhere') }]);
    const res = await polling;
    expect(offsetsOf(res.responses![0].partitions![0].records)).toEqual([3]);
    expect(Date.now() - started).toBeLessThan(5000);

    const idle = Date.now();
    const empty = await fetch(fetchRequest('events', [{ partition: 0, fetchOffset: 4n }], { maxWaitMs: 800 }));
    expect(Date.now() - idle).toBeGreaterThanOrEqual(750);
    expect(empty.responses![0].partitions![0]).toMatchObject({ errorCode: 0, highWatermark: 4n });
    expect(empty.responses![0].partitions![0].records!.length).toBe(0);
  });
});
