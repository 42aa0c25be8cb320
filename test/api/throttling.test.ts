// AWS throttling reaches every caller as the contract's THROTTLING (429, retriable, Retry-After),
// whichever operation hit it: not only the log's append and read paths, which classify it
// themselves, but topic and group operations too.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { observeSdk, throttlingError } from '../log/sdk-faults.js';
import { createTestContext } from '../support/storage.js';
import { call } from './call.js';

describe('throttled storage', () => {
  let ctx: SluiceContext;
  beforeAll(async () => {
    ctx = await createTestContext();
    expect((await call(ctx, 'POST', '/v1/topics', { name: 't', partitions: 1 })).status).toBe(201);
    observeSdk(ctx).fault = (c) => (c.client === 'ddb' ? { when: 'before', error: throttlingError() } : undefined);
  });

  it.each([
    ['GET', '/v1/topics/t'],
    ['GET', '/v1/groups'],
    ['POST', '/v1/topics'],
  ])('answers %s %s with 429 THROTTLING and Retry-After', async (method, path) => {
    const res = await call(ctx, method, path, method === 'POST' ? { name: 'u', partitions: 1 } : undefined);
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({ code: 'THROTTLING', retriable: true });
    expect(res.headers['retry-after']).toBe('1');
  });
});
