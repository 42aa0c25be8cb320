// Each input of an operation comes from exactly one place: path parameters, the query string
// (GET, DELETE), the body (POST), `format` from Accept. A name given in two places is refused,
// never silently overridden — `?batches=x` on a JSON produce used to send it down the
// record-batches path, and a query `topic` could shadow nothing but a body field could.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { handleHttp } from '../../lib/api/router.js';
import { createTestContext } from '../support/storage.js';
import { call } from './call.js';

let ctx: SluiceContext;
beforeAll(async () => {
  ctx = await createTestContext();
  expect((await call(ctx, 'POST', '/v1/topics', { name: 't', partitions: 1 })).status).toBe(201);
});

const records = '/v1/topics/t/records';
const fetchPath = '/v1/topics/t/partitions/0/records';

describe('input sources', () => {
  it('refuses ?batches= on a JSON produce, and stores nothing', async () => {
    const res = await call(ctx, 'POST', records, { records: [{ value: 'a' }] }, { batches: 'AAAA' });
    expect(res).toMatchObject({ status: 400, body: { error: { code: 'INVALID_REQUEST' } } });
    expect(res.body.error.message).toContain('batches');
    const fetched = await call(ctx, 'GET', fetchPath, undefined, { offset: '0' });
    expect(fetched.body.records).toEqual([]);
  });

  it('refuses any query parameter on a POST', async () => {
    const res = await call(ctx, 'POST', records, { records: [{ value: 'a' }] }, { acks: 'all' });
    expect(res).toMatchObject({ status: 400, body: { error: { code: 'INVALID_REQUEST' } } });
  });

  it('refuses a body field that is also a path parameter', async () => {
    const res = await call(ctx, 'POST', records, { topic: 'other', records: [{ value: 'a' }] });
    expect(res).toMatchObject({ status: 400, body: { error: { code: 'INVALID_REQUEST' } } });
    expect(res.body.error.message).toMatch(/'topic' is given both in the path and in the body/);
  });

  it('refuses a query parameter that is also a path parameter', async () => {
    const res = await call(ctx, 'GET', fetchPath, undefined, { offset: '0', partition: '3' });
    expect(res).toMatchObject({ status: 400, body: { error: { code: 'INVALID_REQUEST' } } });
    expect(res.body.error.message).toMatch(/'partition' is given both in the path and in the query string/);
  });

  it('refuses ?format= together with an Accept header that also chooses it', async () => {
    const res = await handleHttp(ctx, {
      method: 'GET',
      path: fetchPath,
      query: { offset: '0', format: 'records' },
      headers: { accept: 'application/vnd.sluice.record-batches' },
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body as string).error.message).toMatch(/'format' is given both in the query string and in the Accept header/);
  });

  it('refuses a JSON body on a GET and a JSON `batches` field on a POST', async () => {
    expect((await call(ctx, 'GET', fetchPath, { offset: 0 })).status).toBe(400);
    expect((await call(ctx, 'POST', records, { batches: 'AAAA' })).status).toBe(400);
  });

  it('still serves a request whose inputs each come from one place', async () => {
    expect((await call(ctx, 'POST', records, { records: [{ value: 'a' }] })).status).toBe(200);
    const fetched = await call(ctx, 'GET', fetchPath, undefined, { offset: '0' });
    expect(fetched.body.records.map((r: { value: string }) => r.value)).toEqual(['a']);
  });
});
