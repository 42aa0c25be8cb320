// lib/client/batch-sender.ts with a scripted transport: requests of one topic in order, a retry
// re-sends the same bytes, failed partitions are retriable only for an idempotent producer, a
// fresh producer id once after UNKNOWN_PRODUCER_ID, the metadata forgotten after an unknown topic.
import { describe, expect, it } from 'vitest';
import { BatchSender, type PendingRecord } from '../../lib/client/batch-sender.js';
import { SluiceClientError } from '../../lib/client/errors.js';
import { ProducerIdentity } from '../../lib/client/producer-identity.js';
import { TopicMetadataCache } from '../../lib/client/topic-metadata.js';
import type { SluiceRequest, Transport } from '../../lib/client/transport.js';
import { SluiceApi } from '../../lib/client/wire.js';
import { decodeBatchFrames } from '../../lib/records/batch-frames.js';
import { readBatchHeader } from '../../lib/records/index.js';

type Handler = (r: SluiceRequest) => Promise<unknown>;
function setup(produce: Handler, options: { idempotent?: boolean; wireFormat?: 'json' | 'batches' } = {}) {
  const sent: SluiceRequest[] = [];
  let producerIds = 0;
  const transport: Transport = {
    request: async <T>(r: SluiceRequest) => {
      sent.push(r);
      if (r.op === 'describeTopic') return { partitions: [{}, {}], config: {} } as T;
      if (r.op === 'initProducerId') return { producerId: ++producerIds, producerEpoch: 0 } as T;
      return (await produce(r)) as T;
    },
  };
  const api = new SluiceApi(transport);
  const metadata = new TopicMetadataCache(api);
  const sender = new BatchSender(api, { metadata, identity: options.idempotent ? new ProducerIdentity(api) : undefined, wireFormat: options.wireFormat, retry: { retries: 2, initialRetryTime: 1, maxRetryTime: 1 } });
  return { sender, sent, produces: () => sent.filter((r) => r.op === 'produce') };
}
const rec = (value: string, partition = 0): PendingRecord => ({ message: { value }, partition, size: 10 });
const ok = (r: SluiceRequest) => {
  const frames = r.batches ? [...decodeBatchFrames(r.batches)] : [];
  return { offsets: frames.map((f) => ({ partition: f.partition, baseOffset: 0, count: readBatchHeader(f.bytes).recordCount })) };
};

describe('BatchSender', () => {
  it('record batches by default; answers as RecordMetadata per partition', async () => {
    const { sender, produces } = setup(async (r) => ok(r));
    expect(await sender.send('t', [rec('a', 1), rec('b', 0), rec('c', 1)])).toEqual([
      { topicName: 't', partition: 1, baseOffset: 0, count: 2 },
      { topicName: 't', partition: 0, baseOffset: 0, count: 1 },
    ]);
    expect(produces()[0].batches).toBeInstanceOf(Buffer);
  });

  it('a topic\'s requests go one after another, in order', async () => {
    const order: string[] = [];
    const { sender } = setup(async (r) => {
      const value = [...decodeBatchFrames(r.batches!)].length;
      order.push(`start${value}`);
      await new Promise((res) => setTimeout(res, 20));
      order.push(`end${value}`);
      return ok(r);
    });
    await Promise.all([sender.send('t', [rec('a')]), sender.send('t', [rec('b', 0), rec('c', 1)])]);
    expect(order).toEqual(['start1', 'end1', 'start2', 'end2']);
  });

  it('a retriable failure re-sends the identical bytes (same sequences for an idempotent producer)', async () => {
    let calls = 0;
    const { sender, produces } = setup(async (r) => {
      if (calls++ === 0) throw new SluiceClientError('REQUEST_TIMED_OUT', 'lost', { retriable: true });
      return ok(r);
    }, { idempotent: true });
    await sender.send('t', [rec('a')]);
    const [first, second] = produces();
    expect(second.batches).toEqual(first.batches);
    const header = readBatchHeader([...decodeBatchFrames(first.batches!)][0].bytes);
    expect(header).toMatchObject({ producerId: 1, producerEpoch: 0, baseSequence: 0 });
  });

  it('a failed partition: not retried without idempotence (a re-send could duplicate), retried with it', async () => {
    const failing = (r: SluiceRequest) => ({ offsets: [{ partition: 0, error: { code: 'REQUEST_TIMED_OUT', message: 'x', retriable: true } }, ...ok(r).offsets.slice(1)] });
    const plain = setup(async (r) => failing(r));
    await expect(plain.sender.send('t', [rec('a', 0), rec('b', 1)])).rejects.toMatchObject({ code: 'REQUEST_TIMED_OUT', retriable: false, details: { failedPartitions: [expect.objectContaining({ partition: 0 })] } });
    expect(plain.produces()).toHaveLength(1);
    const idem = setup(async (r) => failing(r), { idempotent: true });
    await expect(idem.sender.send('t', [rec('a', 0), rec('b', 1)])).rejects.toMatchObject({ code: 'REQUEST_TIMED_OUT' });
    expect(idem.produces()).toHaveLength(3); // first try + 2 retries
  });

  it('UNKNOWN_PRODUCER_ID: one fresh producer id, sequences from 0 again', async () => {
    let calls = 0;
    const { sender, produces } = setup(async (r) => {
      if (calls++ === 0) throw new SluiceClientError('UNKNOWN_PRODUCER_ID', 'expired');
      return ok(r);
    }, { idempotent: true });
    await sender.send('t', [rec('a')]);
    const headers = produces().map((r) => readBatchHeader([...decodeBatchFrames(r.batches!)][0].bytes));
    expect(headers.map((h) => [h.producerId, h.baseSequence])).toEqual([[1, 0], [2, 0]]);
  });

  it('UNKNOWN_TOPIC_OR_PARTITION: the cached metadata is forgotten (the next send describes again)', async () => {
    const { sender, sent } = setup(async () => {
      throw new SluiceClientError('UNKNOWN_TOPIC_OR_PARTITION', 'gone');
    });
    await expect(sender.send('t', [rec('a')])).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
    await expect(sender.send('t', [rec('a')])).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
    expect(sent.filter((r) => r.op === 'describeTopic')).toHaveLength(2);
  });

  it("wireFormat 'json': records with partitions, base64 when needed, idempotence fields", async () => {
    const { sender, produces } = setup(async () => ({ offsets: [{ partition: 0, baseOffset: 4, count: 2 }] }), { wireFormat: 'json', idempotent: true });
    expect(await sender.send('t', [{ message: { value: Buffer.from([0xff]) }, partition: 0, size: 1 }, rec('x')])).toEqual([{ topicName: 't', partition: 0, baseOffset: 4, count: 2 }]);
    expect(produces()[0].body).toEqual({ records: [{ value: '/w==', partition: 0 }, { value: Buffer.from('x').toString('base64'), partition: 0 }], encoding: 'base64', producerId: 1, producerEpoch: 0, sequences: [{ partition: 0, baseSequence: 0 }] });
  });
});
