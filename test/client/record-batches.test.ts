// The client's default wire format, Kafka RecordBatches, against a real local Sluice: what a
// batches producer writes, a JSON consumer reads identically and the other way round; a batch
// over the topic's max.message.bytes is split; a corrupt fetched batch is never handed out.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Sluice } from '../../lib/client/sluice.js';
import { decodeFetchedBatches, type ConsumedMessage } from '../../lib/client/consumed-message.js';
import type { WireFormat } from '../../lib/client/wire.js';
import { encodeRecordBatch } from '../../lib/records/index.js';
import { RecordingTransport, startHarness, topicName, type Harness } from './harness.js';

let harness: Harness;
let sluice: Sluice;

beforeAll(async () => {
  harness = await startHarness();
  sluice = new Sluice({ endpoint: harness.url });
});
afterAll(async () => {
  await harness.close();
});

const messages = Array.from({ length: 9 }, (_, i) => ({
  key: i % 3 === 0 ? null : `k${i}`,
  value: i === 4 ? null : Buffer.from([0xff, 0x00, i, 0xc3]),
  headers: { trace: `t${i}`, bin: [Buffer.from([0x80 + i]), Buffer.from('second')] },
  partition: i % 2,
  timestamp: 1_700_000_000_000 + i,
}));

async function consumeAll(topic: string, wireFormat: WireFormat, count: number): Promise<ConsumedMessage[]> {
  const got: ConsumedMessage[] = [];
  const consumer = sluice.consumer({ maxWaitMs: 100, wireFormat });
  consumer.assign([{ topic, partitions: [0, 1] }], { fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void got.push(message) });
  await vi.waitFor(() => expect(got.length).toBe(count));
  await consumer.disconnect();
  return got.sort((a, b) => a.timestamp - b.timestamp);
}

describe('record batches on the wire', () => {
  it.each([
    ['batches', 'json'],
    ['json', 'batches'],
    ['batches', 'batches'],
  ] as [WireFormat, WireFormat][])('what a %s producer writes, a %s consumer reads as sent', async (produceFormat, consumeFormat) => {
    const topic = topicName();
    await sluice.admin().createTopics({ topics: [{ topic, numPartitions: 2 }] });
    const transport = new RecordingTransport(harness.url);
    const producer = new Sluice({ transport }).producer({ wireFormat: produceFormat });
    const metadata = await producer.send({ topic, messages });
    expect(metadata.map((m) => [m.partition, m.baseOffset, m.count])).toEqual([[0, 0, 5], [1, 0, 4]]);
    const produce = transport.requests.find((r) => r.op === 'produce')!;
    expect(produce.batches !== undefined).toBe(produceFormat === 'batches');

    const got = await consumeAll(topic, consumeFormat, messages.length);
    expect(got.map((m) => ({ timestamp: m.timestamp, key: m.key, value: m.value, headers: m.headers }))).toEqual(
      messages.map((m) => ({
        timestamp: m.timestamp,
        key: m.key === null ? null : Buffer.from(m.key),
        value: m.value,
        headers: { trace: Buffer.from(m.headers.trace), bin: m.headers.bin },
      })),
    );
  });

  it('splits a partition over max.message.bytes into batches sent in order', async () => {
    const topic = topicName();
    await sluice.admin().createTopics({ topics: [{ topic, numPartitions: 1, config: { 'max.message.bytes': 2000 } }] });
    const transport = new RecordingTransport(harness.url);
    const values = Array.from({ length: 10 }, (_, i) => `${i}`.repeat(400));
    const metadata = await new Sluice({ transport }).producer().send({ topic, messages: values.map((value) => ({ value, partition: 0 })) });
    expect(transport.produces(topic).length).toBeGreaterThan(1);
    expect(metadata.reduce((n, m) => n + m.count, 0)).toBe(10);
    const got = await consumeAll(topic, 'batches', 10);
    expect(got.map((m) => [m.offset, m.value!.toString()])).toEqual(values.map((v, i) => [i, v]));
  });

  it('skips records before the offset asked for, and refuses a batch whose CRC fails', () => {
    const batch = encodeRecordBatch(
      Array.from({ length: 5 }, (_, i) => ({ timestamp: i, key: null, value: Buffer.from(`v${i}`) })),
      { baseOffset: 10 },
    );
    expect(decodeFetchedBatches(batch, 12).map((m) => [m.offset, m.value!.toString()])).toEqual([[12, 'v2'], [13, 'v3'], [14, 'v4']]);
    const corrupt = Buffer.from(batch);
    corrupt[corrupt.length - 2] ^= 0x10;
    expect(() => decodeFetchedBatches(corrupt, 10)).toThrow(expect.objectContaining({ code: 'CORRUPT_MESSAGE' }));
  });
});
