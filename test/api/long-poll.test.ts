import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { createTestContext } from '../support/storage.js';
import { call } from './call.js';

describe('fetch long-poll', () => {
  let ctx: SluiceContext;
  beforeAll(async () => {
    ctx = await createTestContext();
    await call(ctx, 'POST', '/v1/topics', { name: 'wait', partitions: 1 });
    await call(ctx, 'POST', '/v1/topics/wait/records', { records: [{ value: 'first' }] });
  });

  it('returns the records that arrive while it waits at the high watermark', async () => {
    const polling = call(ctx, 'GET', '/v1/topics/wait/partitions/0/records', undefined, { offset: '1', maxWaitMs: '15000' });
    await sleep(300);
    const produced = await call(ctx, 'POST', '/v1/topics/wait/records', { records: [{ value: 'second' }, { value: 'third' }] });
    expect(produced.status).toBe(200);
    const res = await polling;
    expect(res.status).toBe(200);
    expect(res.body.records.map((r: { offset: number; value: string }) => [r.offset, r.value])).toEqual([
      [1, 'second'],
      [2, 'third'],
    ]);
    expect(res.body).toMatchObject({ nextOffset: 3, highWatermark: 3 });
  });

  it('returns empty at the high watermark when nothing arrives in time', async () => {
    const res = await call(ctx, 'GET', '/v1/topics/wait/partitions/0/records', undefined, { offset: '3', maxWaitMs: '200' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ records: [], nextOffset: 3, highWatermark: 3, logStartOffset: 0 });
  });

  it('does not wait when records are already there', async () => {
    // One fetch answers from one segment (constant cost, see lib/log/read.ts): offset 1 starts the
    // batch that holds 'second' and 'third'.
    const res = await call(ctx, 'GET', '/v1/topics/wait/partitions/0/records', undefined, { offset: '1', maxWaitMs: '15000' });
    expect(res.body.records.map((r: { value: string }) => r.value)).toEqual(['second', 'third']);
  });
});
