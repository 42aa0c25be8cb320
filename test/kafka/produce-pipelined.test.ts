// The batcher writes a window's intake object while the window before it commits, but commits
// windows one after another. Three idempotent producers, each with 5 requests in flight on its
// connection as librdkafka and the Java client pipeline them (max.in.flight 5; kafkajs sends an
// idempotent producer's requests one at a time), each request its own window (linger 0): every
// request is acknowledged (no OUT_OF_ORDER_SEQUENCE), each record is stored once, each producer's
// records in each partition in the order sent (its entry at its last sequence); and the storage
// timeline shows the overlap happened (an intake PUT while an earlier window's STATE update ran).
// STATE updates are slowed at random, so that commits outlast PUTs: windows committed at once
// would then land a producer's batches out of turn.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { ByteReader } from '../../lib/kafka/protocol/byte-reader.js';
import { decodeMessage } from '../../lib/kafka/protocol/codec.js';
import { ApiKey, API_SCHEMAS, type InitProducerIdResponse, type ProduceResponse } from '../../lib/kafka/protocol/messages.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { createTopic } from '../../lib/metadata/topics.js';
import type { TopicRef } from '../../lib/metadata/types.js';
import { encodeRecordBatch } from '../../lib/records/index.js';
import { readAll } from '../log/read-all.js';
import { rawCall } from './raw-call.js';
import { RawClient, requestFrame } from './raw-client.js';
import { startTestGateway, type TestGateway } from './support.js';

interface Call {
  readonly kind: string;
  readonly start: number;
  end?: number;
}

/**
 * Every storage request's kind and time span, from now on; each STATE update (UpdateItem) is held
 * back a random 0 to `slowUpdatesMs` first, so that a window's commits often outlast the next
 * window's PUT, as a slow or throttled table makes them.
 */
function timeline(ctx: SluiceContext, slowUpdatesMs: number): Call[] {
  const calls: Call[] = [];
  const install = (service: string, stack: { add: (m: unknown, o: unknown) => void }) =>
    stack.add(
      (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
        const kind = `${service}:${(context.commandName ?? '').replace(/Command$/, '')}`;
        if (kind === 'ddb:UpdateItem') await new Promise((resolve) => setTimeout(resolve, Math.random() * slowUpdatesMs));
        const call: Call = { kind, start: performance.now() };
        calls.push(call);
        try {
          return await next(args);
        } finally {
          call.end = performance.now();
        }
      },
      { step: 'deserialize', name: `timeline-${service}` },
    );
  install('s3', ctx.s3.middlewareStack as never);
  install('ddb', ctx.ddb.middlewareStack as never);
  return calls;
}

const IN_FLIGHT = 5;
const REQUESTS = 60;
/** One partition: a producer's consecutive requests are often in consecutive windows. */
const PARTITIONS = 1;

let kafka: TestGateway;
let topic: TopicRef;

beforeAll(async () => {
  kafka = await startTestGateway({ produceLingerMs: 0 });
  topic = await createTopic(kafka.ctx, 'in-flight', PARTITIONS);
});
afterAll(() => kafka.close());


interface Producer {
  readonly tag: string;
  readonly producerId: number;
  readonly producerEpoch: number;
}

async function initProducer(tag: string): Promise<Producer> {
  const init = await rawCall<InitProducerIdResponse>(kafka.gateway.port, ApiKey.InitProducerId, 1, { transactionalId: null, transactionTimeoutMs: 60_000 });
  expect(init.errorCode).toBe(0);
  return { tag, producerId: Number(init.producerId), producerEpoch: init.producerEpoch! };
}

/** REQUESTS requests of an idempotent producer, request i to partition i % PARTITIONS, IN_FLIGHT at a time on one connection. */
async function pipelined({ tag, producerId, producerEpoch }: Producer): Promise<ProduceResponse[]> {
  const client = await RawClient.connect(kafka.gateway.port);
  const frame = (i: number) => {
    const records = encodeRecordBatch([{ timestamp: Date.now(), key: null, value: Buffer.from(`${tag}:${i}`) }], {
      baseOffset: 0,
      producerId,
      producerEpoch,
      baseSequence: Math.floor(i / PARTITIONS),
    });
    return requestFrame(ApiKey.Produce, 7, i, { transactionalId: null, acks: -1, timeoutMs: 30_000, topicData: [{ name: 'in-flight', partitionData: [{ index: i % PARTITIONS, records }] }] });
  };
  const responses: ProduceResponse[] = [];
  try {
    let sent = 0;
    for (; sent < IN_FLIGHT; sent++) client.write(frame(sent));
    while (responses.length < REQUESTS) {
      const answer = await client.readFrame(30_000);
      if (!answer) throw new Error('the gateway closed the connection');
      const reader = new ByteReader(answer);
      expect(reader.int32()).toBe(responses.length); // answered in the order sent
      responses.push(decodeMessage<ProduceResponse>(API_SCHEMAS.get(ApiKey.Produce)!.response, 7, reader));
      if (sent < REQUESTS) client.write(frame(sent++));
    }
  } finally {
    client.close();
  }
  return responses;
}

describe('pipelined produce windows', () => {
  it('keep idempotent producers with 5 requests in flight in order, while PUTs overlap earlier commits', async () => {
    const tags = ['a', 'b', 'c'];
    const producers = await Promise.all(tags.map(initProducer));
    const calls = timeline(kafka.ctx, 40);
    const answers = await Promise.all(producers.map(pipelined));
    for (const responses of answers) for (const r of responses) expect(r.responses![0].partitionResponses![0].errorCode).toBe(0);

    for (let p = 0; p < PARTITIONS; p++) {
      const { records } = await readAll(kafka.ctx, topic, p);
      expect(records).toHaveLength((tags.length * REQUESTS) / PARTITIONS);
      for (const tag of tags) {
        // Each record once, in the order its producer sent it.
        const mine = records.map((r) => r.value!.toString()).filter((v) => v.startsWith(`${tag}:`));
        expect(mine).toEqual(Array.from({ length: REQUESTS / PARTITIONS }, (_, k) => `${tag}:${k * PARTITIONS + p}`));
      }
      // Every producer's entry took its sequences in turn, up to the last one sent.
      const entries = Object.values((await getPartitionState(kafka.ctx, topic, p)).producers);
      expect(entries.map((e) => e.lastSequence)).toEqual(tags.map(() => REQUESTS / PARTITIONS - 1));
    }

    const puts = calls.filter((c) => c.kind === 's3:PutObject');
    const updates = calls.filter((c) => c.kind === 'ddb:UpdateItem');
    expect(puts.length).toBeGreaterThan(10);
    const overlapped = puts.filter((put) => updates.some((u) => u.start < put.end! && put.start < u.end!));
    expect(overlapped.length).toBeGreaterThan(0);
  });
});
