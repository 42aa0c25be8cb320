// max.message.bytes bounds what a reader must hold, so it is checked against the DECOMPRESSED
// batch: a 65 KB gzip batch inflating to 64 MiB (the security review's finding) is refused with
// 413 MESSAGE_TOO_LARGE and nothing is stored, and so is a small bomb over a topic's own lower
// limit. Without this one request poisoned a partition: no fetch of that offset fits a Lambda response.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { MAX_DECOMPRESSED_BATCH_BYTES } from '../../lib/api/batch-body.js';
import { RECORD_BATCHES_MEDIA_TYPE, encodeBatchFrames } from '../../lib/records/batch-frames.js';
import { handleHttp } from '../../lib/api/router.js';
import { MAX_MESSAGE_BYTES_LIMIT } from '../../lib/metadata/topics.js';
import { encodeRecordBatch } from '../../lib/records/index.js';
import { createTestContext } from '../support/storage.js';
import { call } from './call.js';

const T0 = 1_700_000_000_000;

function gzipBatch(valueBytes: number): Buffer {
  return encodeRecordBatch([{ timestamp: T0, key: null, value: Buffer.alloc(valueBytes) }], { baseOffset: 0, compression: 'gzip' });
}

function produce(ctx: SluiceContext, topic: string, batch: Buffer) {
  return handleHttp(ctx, {
    method: 'POST',
    path: `/v1/topics/${topic}/records`,
    headers: { 'content-type': RECORD_BATCHES_MEDIA_TYPE },
    body: encodeBatchFrames([{ partition: 0, batch }]),
  });
}

async function assertNothingStored(ctx: SluiceContext, topic: string): Promise<void> {
  const latest = await call(ctx, 'GET', `/v1/topics/${topic}/partitions/0/offsets`, undefined, { at: 'latest' });
  expect(latest.body.offset).toBe(0);
  const described = await call(ctx, 'GET', `/v1/topics/${topic}`);
  expect(described.body.partitions[0].highWatermark).toBe(0);
}

describe('gzip bomb at produce', () => {
  let ctx: SluiceContext;
  beforeAll(async () => {
    ctx = await createTestContext();
    expect((await call(ctx, 'POST', '/v1/topics', { name: 'bomb', partitions: 1 })).status).toBe(201);
    expect((await call(ctx, 'POST', '/v1/topics', { name: 'small', partitions: 1, config: { 'max.message.bytes': 10_000 } })).status).toBe(201);
  });

  it('the decompression ceiling is the highest max.message.bytes a topic may have', () => {
    expect(MAX_DECOMPRESSED_BATCH_BYTES).toBe(MAX_MESSAGE_BYTES_LIMIT);
  });

  it('refuses 65 KB of gzip that inflate to 64 MiB with 413 MESSAGE_TOO_LARGE and stores nothing', async () => {
    const batch = gzipBatch(64 * 1024 * 1024);
    expect(batch.length).toBeLessThan(70 * 1024);
    const res = await produce(ctx, 'bomb', batch);
    expect(res.status, res.body).toBe(413);
    expect(JSON.parse(res.body).error.code).toBe('MESSAGE_TOO_LARGE');
    await assertNothingStored(ctx, 'bomb');
  });

  it("checks the topic's max.message.bytes against the decompressed size", async () => {
    const batch = gzipBatch(50_000);
    expect(batch.length).toBeLessThan(10_000); // under the limit as sent
    const res = await produce(ctx, 'small', batch);
    expect(res.status, res.body).toBe(413);
    expect(JSON.parse(res.body).error).toMatchObject({ code: 'MESSAGE_TOO_LARGE', maxMessageBytes: 10_000 });
    expect(JSON.parse(res.body).error.size).toBeGreaterThan(50_000);
    await assertNothingStored(ctx, 'small');
  });

  it('still takes a gzip batch whose decompressed size is within the limit', async () => {
    const res = await produce(ctx, 'small', gzipBatch(5_000));
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body).offsets[0]).toMatchObject({ partition: 0, baseOffset: 0, count: 1 });
  });
});
