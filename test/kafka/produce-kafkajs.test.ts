// Produce through the gateway with kafkajs (an unchanged Kafka client): an idempotent producer's
// keyed messages land exactly once, each at the partition Kafka's default partitioner (murmur2)
// picks; acks 0, 1 and all; Kafka's per-partition errors; and the gateway's batching window turns
// 8 producers' concurrent small requests into far fewer intake objects than requests.
import { CompressionTypes, Partitioners } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intakeFolder } from '../../lib/log/segment-name.js';
import { type TopicMetadata, createTopic, getTopic } from '../../lib/metadata/topics.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { partitionForKey } from '../../lib/partitioners/index.js';
import { bucketKeys } from '../log/maintenance-support.js';
import { readAll } from '../log/read-all.js';
import { startTestGateway, type TestGateway } from './support.js';

let kafka: TestGateway;
let keyed: TopicMetadata;

beforeAll(async () => {
  kafka = await startTestGateway({ produceLingerMs: 20 });
  keyed = await createTopic(kafka.ctx, 'keyed', 6);
  await createTopic(kafka.ctx, 'acks', 1);
  await createTopic(kafka.ctx, 'small', 1, { 'max.message.bytes': 1000 });
  await createTopic(kafka.ctx, 'windows', 4);
});
afterAll(() => kafka.close());

describe('produce through the gateway with kafkajs', () => {
  it('an idempotent producer lands every keyed message once, at the partition murmur2 picks, in order', async () => {
    const producer = kafka.client().producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const sent: { key: string; value: string }[] = [];
    for (let round = 0; round < 5; round++) {
      const messages = Array.from({ length: 40 }, (_, i) => ({ key: `user-${(round * 7 + i) % 23}`, value: `event ${round}.${i}` }));
      sent.push(...messages);
      const acks = await producer.send({ topic: 'keyed', messages });
      for (const a of acks) expect(a.errorCode).toBe(0);
    }
    await producer.disconnect();

    const expected = new Map<number, string[]>();
    for (const m of sent) {
      const p = partitionForKey(Buffer.from(m.key), 6);
      expected.set(p, [...(expected.get(p) ?? []), `${m.key}=${m.value}`]);
    }
    let total = 0;
    for (let p = 0; p < 6; p++) {
      const { records } = await readAll(kafka.ctx, keyed, p);
      expect(records.map((r) => `${r.key!.toString()}=${r.value!.toString()}`)).toEqual(expected.get(p) ?? []);
      total += records.length;
      // One producer entry per partition it wrote to: the batches carried its id and sequences.
      if (records.length > 0) expect(Object.keys((await getPartitionState(kafka.ctx, keyed, p)).producers)).toHaveLength(1);
    }
    expect(total).toBe(sent.length);
  });

  it('acks 0, 1 and all (-1) all store the records; acks 0 gets no response', async () => {
    const producer = kafka.client().producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const one = await producer.send({ topic: 'acks', acks: 1, messages: [{ value: 'acks=1' }] });
    const all = await producer.send({ topic: 'acks', acks: -1, messages: [{ value: 'acks=all' }] });
    expect(one[0]).toMatchObject({ topicName: 'acks', partition: 0, errorCode: 0, baseOffset: '0' });
    expect(all[0]).toMatchObject({ errorCode: 0, baseOffset: '1' });
    // kafkajs resolves an acks=0 send at once with no answer (it expects none).
    expect(await producer.send({ topic: 'acks', acks: 0, messages: [{ value: 'acks=0' }] })).toEqual([]);
    await producer.disconnect();
    const deadline = Date.now() + 5000;
    while ((await getPartitionState(kafka.ctx, await topic('acks'), 0)).logEndOffset < 3 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const { records } = await readAll(kafka.ctx, await topic('acks'), 0);
    expect(records.map((r) => r.value!.toString())).toEqual(['acks=1', 'acks=all', 'acks=0']);
  });

  it("answers Kafka's errors: unknown topic, a batch over max.message.bytes, and compression it cannot read", async () => {
    const producer = kafka.client({ retry: { retries: 0 } }).producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    await expect(producer.send({ topic: 'no-such-topic', messages: [{ value: 'x' }] })).rejects.toThrow(/does not host this topic-partition|not exist|UNKNOWN_TOPIC/i);
    await expect(producer.send({ topic: 'small', messages: [{ value: 'x'.repeat(2000) }] })).rejects.toMatchObject({ type: 'MESSAGE_TOO_LARGE' });
    // gzip is read (and stored as sent); an unknown codec would be UNSUPPORTED_COMPRESSION_TYPE.
    const gz = await producer.send({ topic: 'small', compression: CompressionTypes.GZIP, messages: [{ value: 'zipped' }] });
    expect(gz[0]).toMatchObject({ errorCode: 0, baseOffset: '0' });
    await producer.disconnect();
    expect((await readAll(kafka.ctx, await topic('small'), 0)).records.map((r) => r.value!.toString())).toEqual(['zipped']);
  });

  it('8 producers sending small batches at once write far fewer intake objects than requests', async () => {
    const before = (await bucketKeys(kafka.ctx, intakeFolder(kafka.ctx.prefix))).length;
    const producers = Array.from({ length: 8 }, () => kafka.client().producer({ createPartitioner: Partitioners.DefaultPartitioner }));
    await Promise.all(producers.map((p) => p.connect()));
    const requestsBefore = kafka.gateway.stats().apis.Produce?.requests ?? 0;
    const rounds = 5;
    for (let round = 0; round < rounds; round++) {
      await Promise.all(producers.map((p, i) => p.send({ topic: 'windows', messages: [{ key: `k${i}`, value: `r${round} p${i}` }] })));
    }
    await Promise.all(producers.map((p) => p.disconnect()));
    const requests = (kafka.gateway.stats().apis.Produce?.requests ?? 0) - requestsBefore;
    const objects = (await bucketKeys(kafka.ctx, intakeFolder(kafka.ctx.prefix))).length - before;
    expect(requests).toBe(8 * rounds);
    expect(objects).toBeLessThanOrEqual(requests / 4);
    let stored = 0;
    for (let p = 0; p < 4; p++) stored += (await readAll(kafka.ctx, await topic('windows'), p)).records.length;
    expect(stored).toBe(8 * rounds);
  });
});

async function topic(name: string): Promise<TopicMetadata> {
  return (await getTopic(kafka.ctx, name))!;
}
