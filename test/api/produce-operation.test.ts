// lib/api/produce-operation.ts: JSON produce run directly. Kafka's partitioning (explicit, murmur2
// for keys, one sticky partition per request for keyless records), per-record offsets, the size
// limit and the idempotence fields checked before any write.
import { describe, expect, it } from 'vitest';
import { produce, produceOperation } from '../../lib/api/produce-operation.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { partitionForKey } from '../../lib/partitioners/index.js';
import { createTestContext } from '../support/storage.js';

describe('produce (JSON)', () => {
  it('route and answer schema', async () => {
    expect([produceOperation.name, produceOperation.method, produceOperation.path, produceOperation.acceptsBatchBody]).toEqual(['produce', 'POST', '/v1/topics/{topic}/records', true]);
    const ctx = await createTestContext();
    await createTopic(ctx, 't', 1);
    const out = await produceOperation.run(ctx, { topic: 't', records: [{ value: 'a' }] });
    expect(out.status).toBe(200);
    expect(produceOperation.response.body!.parse(out.body)).toEqual(out.body);
  });

  it('explicit partitions as given; keys by murmur2; keyless records of one request share one partition; per-record offsets', async () => {
    const ctx = await createTestContext();
    await createTopic(ctx, 't', 4);
    const keyed = partitionForKey(Buffer.from('user-7'), 4);
    const out = await produce(ctx, {
      topic: 't',
      records: [{ value: 'x', partition: 3 }, { key: 'user-7', value: 'k1' }, { value: 'free-1' }, { key: 'user-7', value: 'k2' }, { value: 'free-2' }, { value: 'y', partition: 3 }],
    });
    const parts = out.records.map((r) => r.partition);
    expect(parts[0]).toBe(3);
    expect(parts[1]).toBe(keyed);
    expect(parts[3]).toBe(keyed);
    expect(parts[2]).toBe(parts[4]);
    expect(out.records[5]).toEqual({ partition: 3, offset: 1 });
    expect(out.records[0]).toEqual({ partition: 3, offset: 0 });
    // one batch per partition, in order of first appearance
    expect(out.offsets.map((o) => o.partition)).toEqual([...new Set(parts)]);
    for (const o of out.offsets) expect('count' in o && o.count).toBe(parts.filter((p) => p === o.partition).length);
  });

  it('keyless records of successive requests rotate over the partitions', async () => {
    const ctx = await createTestContext();
    await createTopic(ctx, 't', 3);
    const seen = new Set<number>();
    for (let i = 0; i < 3; i++) seen.add((await produce(ctx, { topic: 't', records: [{ value: 'a' }, { value: 'b' }] })).records[0].partition);
    expect(seen).toEqual(new Set([0, 1, 2]));
  });

  it('refused before any write: too large, bad base64, partition beyond the topic, inconsistent idempotence fields', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 2, { 'max.message.bytes': 1000 });
    await expect(produce(ctx, { topic: 't', records: [{ value: 'ok' }, { value: 'x'.repeat(2000) }] })).rejects.toMatchObject({ code: 'MESSAGE_TOO_LARGE', details: { index: 1 } });
    await expect(produce(ctx, { topic: 't', encoding: 'base64', records: [{ value: '%%%' }] })).rejects.toMatchObject({ code: 'INVALID_REQUEST', details: { fields: ['records[0].value'] } });
    await expect(produce(ctx, { topic: 't', records: [{ value: 'a', partition: 2 }] })).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
    await expect(produce(ctx, { topic: 't', records: [] })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(produce(ctx, { topic: 't', producerId: 1, records: [{ value: 'a', partition: 0 }] })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(produce(ctx, { topic: 't', producerId: 1, producerEpoch: 0, sequences: [{ partition: 0, baseSequence: 0 }], records: [{ value: 'a' }] })).rejects.toThrow(/partition' is required/);
    await expect(produce(ctx, { topic: 't', producerId: 1, producerEpoch: 0, sequences: [{ partition: 0, baseSequence: 0 }, { partition: 0, baseSequence: 1 }], records: [{ value: 'a', partition: 0 }] })).rejects.toThrow(/appears twice/);
    await expect(produce(ctx, { topic: 't', producerId: 1, producerEpoch: 0, sequences: [{ partition: 0, baseSequence: 0 }, { partition: 1, baseSequence: 0 }], records: [{ value: 'a', partition: 0 }] })).rejects.toThrow(/no record goes to it/);
    await expect(produce(ctx, { topic: 't', producerId: 12345, producerEpoch: 0, sequences: [{ partition: 0, baseSequence: 0 }], records: [{ value: 'a', partition: 0 }] })).rejects.toMatchObject({ code: 'UNKNOWN_PRODUCER_ID' });
    for (const p of [0, 1]) expect((await getPartitionState(ctx, topic, p)).logEndOffset).toBe(0);
  });

  it('a record without timestamp gets the append time from the context clock', async () => {
    const ctx = { ...(await createTestContext()), now: () => 1_234_567 };
    await createTopic(ctx, 't', 1);
    await produce(ctx, { topic: 't', records: [{ value: 'a' }, { value: 'b', timestamp: 5 }] });
    const { fetchOperations } = await import('../../lib/api/fetch-operations.js');
    const body = (await fetchOperations[0].run(ctx, { topic: 't', partition: 0, offset: 0 })).body as { records: { timestamp: number }[] };
    expect(body.records.map((r) => r.timestamp)).toEqual([1_234_567, 5]);
  });
});
