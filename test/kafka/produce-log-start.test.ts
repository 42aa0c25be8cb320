// Produce v5+ answers each partition's log start offset, as a Kafka broker does: after retention
// moved it past 0 the answer is the moved start (read off the STATE the commit returns, so no
// request is added), a fresh partition's is 0, an idempotent producer's resent batch gets it too,
// and a partition answered with an error gets -1. kafkajs (Produce v7) reads the same answer.
import { Partitioners } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InitProducerIdResponse, type ProduceResponse, ApiKey } from '../../lib/kafka/protocol/messages.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import type { TopicRef } from '../../lib/metadata/types.js';
import { encodeRecordBatch } from '../../lib/records/index.js';
import { countStorageRequests } from '../../bench/request-counter.js';
import { appendSpilled, runOnce } from '../log/maintenance-support.js';
import { rawCall } from './raw-call.js';
import { startTestGateway, type TestGateway } from './support.js';

let kafka: TestGateway;
let retained: TopicRef;
let start: number;

const batch = (value: string, producer: { producerId: number; producerEpoch: number; baseSequence: number } | undefined = undefined) =>
  encodeRecordBatch([{ timestamp: Date.now(), key: null, value: Buffer.from(value) }], { baseOffset: 0, ...producer });

const produce = (topicData: { name: string; partitionData: { index: number; records: Buffer }[] }[]) =>
  rawCall<ProduceResponse>(kafka.gateway.port, ApiKey.Produce, 7, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData });

beforeAll(async () => {
  kafka = await startTestGateway({ produceLingerMs: 5 });
  retained = await createTopic(kafka.ctx, 'retained', 1, { 'retention.ms': 10_000 });
  const old = kafka.ctx.now() - 100_000;
  for (let i = 0; i < 2; i++) await appendSpilled(kafka.ctx, retained, [`old${i}a`, `old${i}b`], old);
  await appendSpilled(kafka.ctx, retained, ['kept']);
  const report = await runOnce(kafka.ctx);
  expect(report.errors).toEqual([]);
  start = (await getPartitionState(kafka.ctx, retained, 0)).logStartOffset;
  await createTopic(kafka.ctx, 'fresh', 1);
});
afterAll(() => kafka.close());

describe("Produce's logStartOffset", () => {
  it('is the start retention moved the partition to, with no storage request beyond the write, and -1 for a partition in error', async () => {
    expect(start).toBe(4);
    const counter = countStorageRequests(kafka.ctx);
    const response = await produce([
      { name: 'retained', partitionData: [{ index: 0, records: batch('new') }, { index: 7, records: batch('nowhere') }] },
      { name: 'fresh', partitionData: [{ index: 0, records: batch('first') }] },
    ]);
    const [r, f] = response.responses!;
    expect(r.partitionResponses).toEqual([
      expect.objectContaining({ index: 0, errorCode: 0, baseOffset: 5n, logStartOffset: 4n }),
      expect.objectContaining({ index: 7, errorCode: 3, baseOffset: -1n, logStartOffset: -1n }), // UNKNOWN_TOPIC_OR_PARTITION
    ]);
    expect(f.partitionResponses).toEqual([expect.objectContaining({ index: 0, errorCode: 0, baseOffset: 0n, logStartOffset: 0n })]);
    // The write: one intake object and one STATE update per partition; the answer costs nothing more.
    expect(counter.counts.get('s3:PutObject')).toBe(1);
    expect(counter.counts.get('ddb:UpdateItem')).toBe(2);
  });

  it("answers an idempotent producer's resent batch with its original offset and the log start offset", async () => {
    const init = await rawCall<InitProducerIdResponse>(kafka.gateway.port, ApiKey.InitProducerId, 1, { transactionalId: null, transactionTimeoutMs: 60_000 });
    expect(init.errorCode).toBe(0);
    const records = batch('once', { producerId: Number(init.producerId), producerEpoch: init.producerEpoch!, baseSequence: 0 });
    const first = await produce([{ name: 'retained', partitionData: [{ index: 0, records }] }]);
    const again = await produce([{ name: 'retained', partitionData: [{ index: 0, records }] }]);
    const answer = first.responses![0].partitionResponses![0];
    expect(answer).toMatchObject({ errorCode: 0, logStartOffset: 4n });
    expect(again.responses![0].partitionResponses![0]).toMatchObject({ errorCode: 0, baseOffset: answer.baseOffset, logStartOffset: 4n });
    expect((await getPartitionState(kafka.ctx, retained, 0)).logEndOffset).toBe(Number(answer.baseOffset) + 1);
  });

  it('kafkajs produces and consumes through it as before, and reads the log start offset from its Produce v7 answer', async () => {
    const producer = kafka.client().producer({ idempotent: true, createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const [ack] = await producer.send({ topic: 'retained', messages: [{ value: 'kafkajs' }] });
    await producer.disconnect();
    expect(ack).toMatchObject({ errorCode: 0, logStartOffset: '4' });
    const consumer = kafka.client().consumer({ groupId: 'log-start-readers' });
    await consumer.connect();
    await consumer.subscribe({ topic: 'retained', fromBeginning: true });
    const seen: string[] = [];
    await new Promise<void>((resolve, reject) => {
      consumer
        .run({
          eachMessage: async ({ message }) => {
            seen.push(message.value!.toString());
            if (seen.includes('kafkajs')) resolve();
          },
        })
        .catch(reject);
    });
    await consumer.disconnect();
    // From the start retention left: the records below offset 4 are gone.
    expect(seen[0]).toBe('kept');
    expect(seen).toEqual(['kept', 'new', 'once', 'kafkajs']);
  });
});
