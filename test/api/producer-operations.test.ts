// lib/api/producer-operations.ts: InitProducerId hands out distinct, verifiable ids at epoch 0.
import { describe, expect, it } from 'vitest';
import { producerOperations } from '../../lib/api/producer-operations.js';
import { isIssuedProducerId } from '../../lib/metadata/producer-ids.js';
import { createTestContext } from '../support/storage.js';

describe('initProducerId', () => {
  it('POST /v1/producers: a fresh issued id each call, epoch 0, in the declared schema', async () => {
    const ctx = await createTestContext();
    const [op] = producerOperations;
    expect([op.name, op.method, op.path]).toEqual(['initProducerId', 'POST', '/v1/producers']);
    const a = await op.run(ctx, {});
    const b = await op.run(ctx, {});
    expect(a.status).toBe(200);
    op.response.body!.parse(a.body);
    const [ida, idb] = [a.body as { producerId: number; producerEpoch: number }, b.body as { producerId: number }];
    expect(ida.producerEpoch).toBe(0);
    expect(ida.producerId).not.toBe(idb.producerId);
    expect(await isIssuedProducerId(ctx, ida.producerId)).toBe(true);
    await expect(op.run(ctx, { producerId: 1 })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });
});
