// Idempotent producing end to end: the reply of a produce is lost after the server committed it,
// the producer retries the identical batch (same producer id, partitions and sequences), and the
// server acknowledges it with the original offsets instead of appending it twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sluice } from '../../lib/client/sluice.js';
import { SluiceClientError } from '../../lib/client/errors.js';
import type { ProduceReply } from '../../lib/client/wire.js';
import { readBatchHeader } from '../../lib/records/index.js';
import { RecordingTransport, readTopic, startHarness, topicName, type Harness } from './harness.js';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
});

/** Lets the produce reach the server and commit, then throws as if the connection dropped. */
function loseNextProduceReplies(transport: RecordingTransport, count: number, lost: ProduceReply[]) {
  transport.intercept = async (request, forward) => {
    const reply = await forward();
    if (request.op === 'produce' && lost.length < count) {
      lost.push(reply as ProduceReply);
      throw new SluiceClientError('NETWORK_ERROR', 'socket hang up (injected after the server replied)', { retriable: true });
    }
    return reply;
  };
}

describe('idempotent producer', () => {
  it('writes a batch whose reply was lost exactly once, at its original offsets', async () => {
    const transport = new RecordingTransport(harness.url);
    const sluice = new Sluice({ transport });
    const topic = topicName();
    await sluice.admin().createTopics({ topics: [{ topic, numPartitions: 3 }] });
    const producer = sluice.producer({ idempotent: true, retry: { initialRetryTime: 1 } });
    await producer.connect();
    await producer.send({ topic, messages: [{ key: 'a', value: 'before' }] });

    const lost: ProduceReply[] = [];
    loseNextProduceReplies(transport, 1, lost);
    const messages = Array.from({ length: 12 }, (_, i) => ({ key: `key-${i}`, value: `v${i}` }));
    const result = await producer.send({ topic, messages });

    const produces = transport.requests.filter((r) => r.op === 'produce');
    const [lostAttempt, retry] = produces.slice(-2);
    // Identical record batches: same producer id, epoch and sequences in each batch header.
    expect(lostAttempt.batches).toBeInstanceOf(Buffer);
    expect(retry.batches).toEqual(lostAttempt.batches);
    expect(result.map((m) => ({ partition: m.partition, baseOffset: m.baseOffset, count: m.count }))).toEqual(lost[0].offsets);

    const log = await readTopic(transport, topic);
    const values = [...log.values()].flat().map((r) => r.value);
    expect(values.sort()).toEqual(['before', ...messages.map((m) => m.value)].sort());
    for (const o of lost[0].offsets) {
      if (!('baseOffset' in o)) throw new Error(`partition ${o.partition} failed: ${o.error?.code}`);
      const atOriginal = log.get(o.partition)!.filter((r) => r.offset >= o.baseOffset && r.offset < o.baseOffset + o.count);
      expect(atOriginal).toHaveLength(o.count);
    }

    // the sequence continues: a later batch is accepted, not refused as a duplicate or a gap
    transport.intercept = undefined;
    await producer.send({ topic, messages: [{ key: 'a', value: 'after' }] });
    expect([...(await readTopic(transport, topic)).values()].flat()).toHaveLength(14);
  });

  it('keeps async batches exactly-once across lost replies', async () => {
    const transport = new RecordingTransport(harness.url);
    const sluice = new Sluice({ transport });
    const topic = topicName();
    await sluice.admin().createTopics({ topics: [{ topic, numPartitions: 4 }] });
    const producer = sluice.producer({ mode: 'async', idempotent: true, lingerMs: 5, batchSize: 600, retry: { initialRetryTime: 1 } });
    const lost: ProduceReply[] = [];
    loseNextProduceReplies(transport, 3, lost);
    const messages = Array.from({ length: 60 }, (_, i) => ({ key: `k${i % 7}`, value: `v${i}` }));
    for (let i = 0; i < 60; i += 6) await producer.send({ topic, messages: messages.slice(i, i + 6) });
    await producer.disconnect();

    expect(lost).toHaveLength(3);
    const log = await readTopic(transport, topic);
    expect([...log.values()].flat().map((r) => r.value).sort()).toEqual(messages.map((m) => m.value).sort());
    // per key (one partition each), the send order survives the retries
    for (const records of log.values()) {
      const byKey = new Map<string, number[]>();
      for (const r of records) byKey.set(r.key!, [...(byKey.get(r.key!) ?? []), Number(r.value!.slice(1))]);
      for (const seq of byKey.values()) expect(seq).toEqual([...seq].sort((a, b) => a - b));
    }
  });

  it('is idempotent by default, as Kafka producers are since 3.0; idempotent: false opts out', async () => {
    const transport = new RecordingTransport(harness.url);
    const sluice = new Sluice({ transport });
    const topic = topicName();
    await sluice.admin().createTopics({ topics: [{ topic, numPartitions: 1 }] });
    const producerIdOf = () => {
      const produce = transport.requests.filter((r) => r.op === 'produce').at(-1)!;
      // frame = [int32 partition][RecordBatch]: the batch header's producerId follows 43 bytes in
      return readBatchHeader((produce.batches as Buffer).subarray(4)).producerId;
    };
    const byDefault = sluice.producer();
    await byDefault.connect();
    await byDefault.send({ topic, messages: [{ value: 'a' }] });
    expect(producerIdOf()).toBeGreaterThan(0);
    expect(transport.requests.some((r) => r.op === 'initProducerId')).toBe(true);

    const plain = sluice.producer({ idempotent: false });
    await plain.connect();
    await plain.send({ topic, messages: [{ value: 'b' }] });
    expect(producerIdOf()).toBe(-1);
  });

  it('starts again under a fresh producer id when the server dropped its idle entry (UNKNOWN_PRODUCER_ID)', async () => {
    const transport = new RecordingTransport(harness.url);
    const sluice = new Sluice({ transport });
    const topic = topicName();
    await sluice.admin().createTopics({ topics: [{ topic, numPartitions: 1 }] });
    const producer = sluice.producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ value: 'first' }] });
    let refused = 0;
    transport.intercept = async (request, forward) => {
      if (request.op === 'produce' && refused === 0) {
        refused++;
        throw new SluiceClientError('UNKNOWN_PRODUCER_ID', 'no state for this producer', { retriable: false, status: 409 });
      }
      return forward();
    };
    const [sent] = await producer.send({ topic, messages: [{ value: 'second' }] });
    expect(refused).toBe(1);
    expect(sent).toMatchObject({ partition: 0, baseOffset: 1, count: 1 });
    const ids = transport.requests.filter((r) => r.op === 'initProducerId');
    expect(ids).toHaveLength(2);
    expect([...(await readTopic(transport, topic)).values()].flat().map((r) => r.value)).toEqual(['first', 'second']);
  });
});
