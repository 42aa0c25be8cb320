// lib/client/producer.ts against a local Sluice: sync sends answer per partition, idempotent by
// default, a partitioner that picks a partition out of range is refused, failures reach onError,
// async mode buffers and reports deliveries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sluice } from '../../lib/client/sluice.js';
import type { RecordMetadata, SendFailure } from '../../lib/client/producer.js';
import { RecordingTransport, startHarness, topicName, type Harness } from './harness.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness.close());

describe('Producer', () => {
  it('sync: one RecordMetadata per partition; idempotent by default (a producer id is obtained)', async () => {
    const transport = new RecordingTransport(harness.url);
    const sluice = new Sluice({ transport });
    const topic = topicName();
    await sluice.admin().createTopics({ topics: [{ topic, numPartitions: 2 }] });
    const producer = sluice.producer();
    await producer.connect();
    expect(transport.requests.filter((r) => r.op === 'initProducerId')).toHaveLength(1);
    const out = await producer.send({ topic, messages: [{ value: 'a', partition: 1 }, { value: 'b', partition: 0 }, { value: 'c', partition: 1 }] });
    expect(out).toEqual([{ topicName: topic, partition: 1, baseOffset: 0, count: 2 }, { topicName: topic, partition: 0, baseOffset: 0, count: 1 }]);
    expect(await producer.send({ topic, messages: [] })).toEqual([]);
    const plain = sluice.producer({ idempotent: false });
    await plain.connect();
    expect(transport.requests.filter((r) => r.op === 'initProducerId')).toHaveLength(1);
  });

  it('a partitioner choosing a partition out of range is INVALID_PARTITIONS; send failures reach onError and are thrown', async () => {
    const sluice = new Sluice({ endpoint: harness.url });
    const topic = topicName();
    await sluice.admin().createTopics({ topics: [{ topic, numPartitions: 2 }] });
    await expect(sluice.producer({ partitioner: () => 5 }).send({ topic, messages: [{ value: 'x' }] })).rejects.toMatchObject({ code: 'INVALID_PARTITIONS' });
    const failures: SendFailure[] = [];
    const producer = sluice.producer({ onError: (f) => void failures.push(f), retry: { retries: 0 } });
    await expect(producer.send({ topic, messages: [{ value: 'y', partition: 7 }] })).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ topic, error: { code: 'UNKNOWN_TOPIC_OR_PARTITION' } });
    expect(failures[0].messages.map((m) => m.value)).toEqual(['y']);
  });

  it('async: send resolves once buffered, flush delivers (onDelivery), sendBatch covers several topics', async () => {
    const sluice = new Sluice({ endpoint: harness.url });
    const [t, u] = [topicName('t'), topicName('u')];
    await sluice.admin().createTopics({ topics: [{ topic: t }, { topic: u }] });
    const delivered: RecordMetadata[] = [];
    const producer = sluice.producer({ mode: 'async', lingerMs: 10_000, onDelivery: (m) => void delivered.push(...m) });
    expect(await producer.sendBatch({ topicMessages: [{ topic: t, messages: [{ value: '1' }, { value: '2' }] }, { topic: u, messages: [{ value: '3' }] }] })).toEqual([]);
    expect(producer.buffered.records).toBe(3);
    await producer.flush();
    expect(producer.buffered.records).toBe(0);
    expect(delivered.map((d) => [d.topicName, d.count]).sort()).toEqual([[t, 2], [u, 1]].sort());
    await producer.disconnect();
    await expect(producer.send({ topic: t, messages: [{ value: '4' }] })).rejects.toMatchObject({ code: 'PRODUCER_CLOSED' });
  });
});
