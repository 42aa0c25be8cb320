// The async producer against a real local Sluice: linger and batch size decide when requests go,
// one request carries many partitions (one per topic per flush), a full buffer blocks or drops,
// and flush()/disconnect() deliver everything buffered.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Sluice } from '../../lib/client/sluice.js';
import { messageSize } from '../../lib/client/message.js';
import type { Message } from '../../lib/client/message.js';
import { RecordingTransport, produceGate, readTopic, startHarness, topicName, type Harness } from './harness.js';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
});

async function setup(partitions = 4) {
  const transport = new RecordingTransport(harness.url);
  const sluice = new Sluice({ transport });
  const topic = topicName();
  await sluice.admin().createTopics({ topics: [{ topic, numPartitions: partitions }] });
  return { transport, sluice, topic };
}

const keyed = (n: number, prefix = 'm'): Message[] => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `${prefix}${i}` }));

function allValues(log: Map<number, { value: string | null }[]>): string[] {
  return [...log.values()].flat().map((r) => r.value ?? '');
}

describe('async producer', () => {
  it('holds records for lingerMs and sends records of many partitions in one request on flush', async () => {
    const { transport, sluice, topic } = await setup(4);
    const producer = sluice.producer({ mode: 'async', lingerMs: 60_000 });
    for (const m of keyed(20)) await producer.send({ topic, messages: [m] });

    expect(transport.produces(topic)).toHaveLength(0);
    expect(producer.buffered.records).toBe(20);

    await producer.flush();
    const produces = transport.produces(topic);
    expect(produces).toHaveLength(1);
    expect(new Set(produces[0].records.map((r) => r.partition)).size).toBeGreaterThan(1);
    expect(allValues(await readTopic(transport, topic)).sort()).toEqual(keyed(20).map((m) => String(m.value)).sort());
    expect(producer.buffered.records).toBe(0);
  });

  it('sends by itself once the linger expires, still as one request', async () => {
    const { transport, sluice, topic } = await setup(3);
    const delivered: number[] = [];
    const producer = sluice.producer({ mode: 'async', lingerMs: 50, onDelivery: (m) => delivered.push(m.reduce((n, p) => n + p.count, 0)) });
    await producer.send({ topic, messages: keyed(9) });
    await vi.waitFor(() => expect(delivered).toEqual([9]), { timeout: 5000 });
    expect(transport.produces(topic)).toHaveLength(1);
  });

  it('never puts more than batchSize bytes in one request', async () => {
    const { transport, sluice, topic } = await setup(4);
    const messages = keyed(23).map((m) => ({ ...m, value: String(m.value).padEnd(50, '.') }));
    const perRecord = messageSize(messages[10]);
    const producer = sluice.producer({ mode: 'async', lingerMs: 60_000, batchSize: perRecord * 5 });
    await producer.send({ topic, messages });
    await producer.flush();

    const produces = transport.produces(topic);
    for (const p of produces) expect(p.records.length).toBeLessThanOrEqual(5);
    expect(produces.reduce((n, p) => n + p.records.length, 0)).toBe(23);
    expect(produces.length).toBe(5); // 4 full requests sent as they filled, 1 partial on flush
    expect(allValues(await readTopic(transport, topic))).toHaveLength(23);
  });

  it('makes one request per topic per flush', async () => {
    const { transport, sluice, topic } = await setup(2);
    const other = topicName();
    await sluice.admin().createTopics({ topics: [{ topic: other, numPartitions: 3 }] });
    const producer = sluice.producer({ mode: 'async', lingerMs: 60_000 });
    await producer.sendBatch({ topicMessages: [{ topic, messages: keyed(10, 'a') }, { topic: other, messages: keyed(10, 'b') }] });
    await producer.send({ topic, messages: keyed(5, 'c') });
    await producer.flush();

    expect(transport.produces(topic)).toHaveLength(1);
    expect(transport.produces(other)).toHaveLength(1);
    expect(transport.produces(topic)[0].records).toHaveLength(15);
  });

  it("blocks the caller while the buffer is full ('block')", async () => {
    const { transport, sluice, topic } = await setup(2);
    const gate = produceGate();
    transport.intercept = gate.interceptor;
    const producer = sluice.producer({ mode: 'async', lingerMs: 0, maxBufferedRecords: 5 });

    await producer.send({ topic, messages: keyed(5) }); // fills the buffer; its request is held at the gate
    await vi.waitFor(() => expect(gate.held()).toBe(1));
    let sixthAccepted = false;
    const sixth = producer.send({ topic, messages: [{ key: 'k5', value: 'm5' }] }).then(() => (sixthAccepted = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(sixthAccepted).toBe(false);
    expect(producer.buffered.records).toBe(5);

    gate.open();
    await sixth;
    await producer.disconnect();
    expect(allValues(await readTopic(transport, topic)).sort()).toEqual(keyed(6).map((m) => String(m.value)).sort());
  });

  it("drops the newest records and reports them when the buffer is full ('drop')", async () => {
    const { transport, sluice, topic } = await setup(2);
    const gate = produceGate();
    transport.intercept = gate.interceptor;
    const dropped: string[] = [];
    const producer = sluice.producer({
      mode: 'async',
      lingerMs: 60_000,
      maxBufferedRecords: 5,
      bufferFullPolicy: 'drop',
      onDrop: (_topic, messages) => dropped.push(...messages.map((m) => String(m.value))),
    });
    await producer.send({ topic, messages: keyed(8) });
    expect(dropped).toEqual(['m5', 'm6', 'm7']);
    gate.open();
    await producer.flush();
    expect(allValues(await readTopic(transport, topic)).sort()).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
  });

  it('drains everything on disconnect and refuses sends afterwards', async () => {
    const { transport, sluice, topic } = await setup(3);
    const producer = sluice.producer({ mode: 'async', lingerMs: 60_000, batchSize: 2000 });
    const messages = keyed(300);
    await Promise.all([0, 1, 2].map((i) => producer.send({ topic, messages: messages.slice(i * 100, i * 100 + 100) })));
    await producer.disconnect();
    expect(producer.buffered.records).toBe(0);
    const log = await readTopic(transport, topic);
    expect(allValues(log)).toHaveLength(300);
    // per partition, records keep the order they were sent in
    for (const records of log.values()) {
      const indexes = records.map((r) => Number(r.value!.slice(1)));
      expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
    }
    await expect(producer.send({ topic, messages: keyed(1) })).rejects.toMatchObject({ code: 'PRODUCER_CLOSED' });
  });
});
