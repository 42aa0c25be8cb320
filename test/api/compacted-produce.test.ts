// Compacted topics over HTTP, before the cleaner: cleanup.policy's Kafka values and the cleaner's
// configs are accepted, described and validated, and a record without a key is refused with
// INVALID_RECORD (Kafka's error) on both produce bodies, with nothing written.
import { describe, expect, it } from 'vitest';
import { handleHttp } from '../../lib/api/router.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { getTopic } from '../../lib/metadata/topics.js';
import { RECORD_BATCHES_MEDIA_TYPE, encodeBatchFrames } from '../../lib/records/batch-frames.js';
import { encodeRecordBatch } from '../../lib/records/index.js';
import { createTestContext } from '../support/storage.js';
import { call } from './call.js';

const keyed = (key: string | null, value = 'v') => encodeRecordBatch([{ timestamp: 1, key: Buffer.from('k'), value: Buffer.from(value) }, { timestamp: 2, key: key === null ? null : Buffer.from(key), value: null }], { baseOffset: 0 });

describe('compacted topics: configs and produce', () => {
  it("creates compact and compact,delete topics with Kafka's defaults for the cleaner's configs; refuses bad values", async () => {
    const ctx = await createTestContext();
    const created = await call(ctx, 'POST', '/v1/topics', { name: 'c', partitions: 1, config: { 'cleanup.policy': 'compact', 'min.cleanable.dirty.ratio': '0.1' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const described = await call(ctx, 'GET', '/v1/topics/c');
    expect(described.body.config).toMatchObject({
      'cleanup.policy': 'compact',
      'min.cleanable.dirty.ratio': 0.1,
      'min.compaction.lag.ms': 0,
      'max.compaction.lag.ms': Number.MAX_SAFE_INTEGER,
      'delete.retention.ms': 86_400_000,
    });
    const both = await call(ctx, 'POST', '/v1/topics', { name: 'cd', partitions: 1, config: { 'cleanup.policy': 'delete,compact', 'delete.retention.ms': 0 } });
    expect(both.body.config['cleanup.policy']).toBe('compact,delete');
    expect((await getTopic(ctx, 'cd'))!.config['delete.retention.ms']).toBe(0);
    for (const config of [{ 'cleanup.policy': 'compact,' }, { 'min.cleanable.dirty.ratio': 2 }, { 'max.compaction.lag.ms': 0 }, { 'delete.retention.ms': -1 }]) {
      const refused = await call(ctx, 'POST', '/v1/topics', { name: 'bad', partitions: 1, config });
      expect(refused.status, JSON.stringify(config)).toBe(400);
      expect(refused.body.error.code).toBe('INVALID_CONFIG');
    }
    expect(await getTopic(ctx, 'bad')).toBeUndefined();
  });

  it('refuses keyless records with INVALID_RECORD on the JSON body and writes nothing', async () => {
    const ctx = await createTestContext();
    await call(ctx, 'POST', '/v1/topics', { name: 'c', partitions: 2, config: { 'cleanup.policy': 'compact' } });
    const topic = (await getTopic(ctx, 'c'))!;
    const refused = await call(ctx, 'POST', '/v1/topics/c/records', { records: [{ partition: 0, key: 'a', value: '1' }, { partition: 0, value: '2' }] });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'INVALID_RECORD', retriable: false });
    expect(refused.body.error.message).toMatch(/without a key/);
    // Kafka's per-partition answer: the keyed partition is written, the keyless one is not.
    const mixed = await call(ctx, 'POST', '/v1/topics/c/records', { records: [{ partition: 0, value: 'x' }, { partition: 1, key: 'b', value: 'y' }] });
    expect(mixed.status).toBe(200);
    expect(mixed.body.offsets).toEqual([{ partition: 0, error: expect.objectContaining({ code: 'INVALID_RECORD' }) }, { partition: 1, baseOffset: 0, count: 1 }]);
    expect((await getPartitionState(ctx, topic, 0)).logEndOffset).toBe(0);
    expect((await getPartitionState(ctx, topic, 1)).logEndOffset).toBe(1);
    // A key of "" is a key; a null value (a tombstone) is allowed.
    const ok = await call(ctx, 'POST', '/v1/topics/c/records', { records: [{ partition: 0, key: '', value: null }] });
    expect(ok.status).toBe(200);
    // Not compacted: keyless records are fine.
    await call(ctx, 'POST', '/v1/topics', { name: 'd', partitions: 1 });
    expect((await call(ctx, 'POST', '/v1/topics/d/records', { records: [{ value: 'x' }] })).status).toBe(200);
  });

  it('refuses a record batch holding a keyless record with INVALID_RECORD and writes nothing', async () => {
    const ctx = await createTestContext();
    await call(ctx, 'POST', '/v1/topics', { name: 'c', partitions: 2, config: { 'cleanup.policy': 'compact,delete' } });
    const topic = (await getTopic(ctx, 'c'))!;
    const produce = (frames: { partition: number; batch: Buffer }[]) =>
      handleHttp(ctx, { method: 'POST', path: '/v1/topics/c/records', headers: { 'content-type': RECORD_BATCHES_MEDIA_TYPE }, body: encodeBatchFrames(frames) });
    const refused = await produce([{ partition: 0, batch: keyed(null) }]);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).error.code).toBe('INVALID_RECORD');
    const gzipped = encodeRecordBatch([{ timestamp: 1, key: null, value: Buffer.from('z') }], { baseOffset: 0, compression: 'gzip' });
    expect((await produce([{ partition: 1, batch: gzipped }])).status).toBe(400);
    for (const p of [0, 1]) expect((await getPartitionState(ctx, topic, p)).logEndOffset).toBe(0);
    const ok = await produce([{ partition: 0, batch: keyed('k2') }]);
    expect(ok.status, ok.body).toBe(200);
    expect((await getPartitionState(ctx, topic, 0)).logEndOffset).toBe(2);
  });
});
