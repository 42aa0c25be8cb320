// The sync producer against a real local Sluice: retriable failures are retried with backoff and
// then succeed or, once retries are spent, go to onError; non-retriable ones fail at once;
// partitioners place records where Kafka's would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sluice } from '../../lib/client/sluice.js';
import { partitionForKey } from '../../lib/partitioners/index.js';
import type { SendFailure } from '../../lib/client/producer.js';
import { RecordingTransport, readTopic, retriableError, startHarness, topicName, type Harness } from './harness.js';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
});

async function setup(partitions = 3) {
  const transport = new RecordingTransport(harness.url);
  const sluice = new Sluice({ transport });
  const topic = topicName();
  await sluice.admin().createTopics({ topics: [{ topic, numPartitions: partitions }] });
  return { transport, sluice, topic };
}

describe('sync producer', () => {
  it('retries retriable errors with growing backoff, then succeeds', async () => {
    const { transport, sluice, topic } = await setup();
    let failuresLeft = 2;
    transport.intercept = async (request, forward) => {
      if (request.op === 'produce' && failuresLeft-- > 0) throw retriableError('REQUEST_TIMED_OUT');
      return forward();
    };
    const delays: number[] = [];
    const producer = sluice.producer({ retry: { retries: 3, initialRetryTime: 20, maxRetryTime: 1000, onRetry: (_e, _n, d) => delays.push(d) } });
    const result = await producer.send({ topic, messages: [{ key: 'a', value: 'one' }, { key: 'b', value: 'two' }] });

    expect(transport.produces(topic)).toHaveLength(3);
    expect(delays).toHaveLength(2);
    // full jitter: the n-th wait is within [0, initial * 2^n]
    expect(delays[0]).toBeLessThanOrEqual(20);
    expect(delays[1]).toBeLessThanOrEqual(40);
    expect(result.reduce((n, m) => n + m.count, 0)).toBe(2);
    expect([...(await readTopic(transport, topic)).values()].flat().map((r) => r.value).sort()).toEqual(['one', 'two']);
  });

  it('honours Retry-After as the least wait', async () => {
    const { transport, sluice, topic } = await setup();
    let failuresLeft = 1;
    transport.intercept = async (request, forward) => {
      if (request.op === 'produce' && failuresLeft-- > 0) {
        const e = retriableError();
        Object.assign(e, { retryAfterMs: 300 });
        throw e;
      }
      return forward();
    };
    const delays: number[] = [];
    const producer = sluice.producer({ retry: { initialRetryTime: 1, onRetry: (_e, _n, d) => delays.push(d) } });
    await producer.send({ topic, messages: [{ value: 'x' }] });
    expect(delays).toEqual([300]);
  });

  it('gives what still fails after the retries to onError and rejects', async () => {
    const { transport, sluice, topic } = await setup();
    transport.intercept = async (request, forward) => {
      if (request.op === 'produce') throw retriableError();
      return forward();
    };
    const failures: SendFailure[] = [];
    const producer = sluice.producer({ retry: { retries: 3, initialRetryTime: 1 }, onError: (f) => void failures.push(f) });
    const messages = [{ key: 'k', value: 'lost' }];
    await expect(producer.send({ topic, messages })).rejects.toMatchObject({ code: 'THROTTLING', retriable: true });
    expect(transport.produces(topic)).toHaveLength(4); // the first attempt and 3 retries
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ topic, messages, error: { code: 'THROTTLING' } });
  });

  it('does not retry a non-retriable error', async () => {
    const { transport, sluice, topic } = await setup(2);
    const failures: SendFailure[] = [];
    const producer = sluice.producer({ onError: (f) => void failures.push(f) });
    await expect(producer.send({ topic, messages: [{ value: 'v', partition: 7 }] })).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION', retriable: false });
    expect(transport.produces(topic)).toHaveLength(1);
    expect(failures).toHaveLength(1);
  });

  it('places keyed records by murmur2 like Kafka and spreads keyless ones round-robin', async () => {
    const { transport, sluice, topic } = await setup(5);
    const producer = sluice.producer();
    const keys = Array.from({ length: 20 }, (_, i) => `user-${i}`);
    await producer.send({ topic, messages: keys.map((key) => ({ key, value: key })) });
    await producer.send({ topic, messages: Array.from({ length: 10 }, (_, i) => ({ value: `nokey-${i}` })) });
    const log = await readTopic(transport, topic);
    for (const [partition, records] of log) {
      for (const r of records.filter((r) => r.key !== null)) expect(partitionForKey(Buffer.from(r.key!), 5)).toBe(partition);
      expect(records.filter((r) => r.key === null)).toHaveLength(2);
    }
  });

  it('takes a custom partitioner and explicit partitions', async () => {
    const { transport, sluice, topic } = await setup(4);
    const producer = sluice.producer({ partitioner: ({ message, partitionCount }) => Number(message.value!.toString()) % partitionCount });
    await producer.send({ topic, messages: [{ value: '5' }, { value: '6' }, { value: '9', partition: 3 }] });
    const log = await readTopic(transport, topic);
    expect(log.get(1)!.map((r) => r.value)).toEqual(['5']);
    expect(log.get(2)!.map((r) => r.value)).toEqual(['6']);
    expect(log.get(3)!.map((r) => r.value)).toEqual(['9']);
  });

  it('round-trips binary keys, values and headers (base64 on the wire)', async () => {
    const { sluice, topic } = await setup(1);
    const binary = Buffer.from([0xff, 0x00, 0xfe, 0x80]);
    await sluice.producer().send({ topic, messages: [{ key: binary, value: binary, headers: { h: binary, t: 'text' } }] });
    const consumer = sluice.consumer({ maxWaitMs: 200 });
    consumer.assign([{ topic, partitions: [0] }], { fromBeginning: true });
    const got = await new Promise<{ key: Buffer | null; value: Buffer | null; headers: Record<string, unknown> }>((resolve) => {
      void consumer.run({ eachMessage: async ({ message }) => resolve(message) });
    });
    await consumer.disconnect();
    expect(got.key).toEqual(binary);
    expect(got.value).toEqual(binary);
    expect(got.headers).toEqual({ h: binary, t: Buffer.from('text') });
  });
});
