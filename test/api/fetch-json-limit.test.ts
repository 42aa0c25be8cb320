// A fetch answer never exceeds what a Lambda response carries (6 MB). JSON with utf8 encoding can
// turn a record of max.message.bytes into far more (a control byte becomes `\u0000`, 6 characters):
// such a record is answered MESSAGE_TOO_LARGE with the way to read it (base64, or record batches),
// both of which fit.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { MAX_JSON_RECORD_BYTES } from '../../lib/api/fetch-operations.js';
import { MAX_MESSAGE_BYTES_LIMIT } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';
import { call } from './call.js';

describe('a JSON fetch of a record that escapes past the response limit', () => {
  let ctx: SluiceContext;
  const value = '\u0001'.repeat(MAX_MESSAGE_BYTES_LIMIT - 4096);
  beforeAll(async () => {
    ctx = await createTestContext();
    expect((await call(ctx, 'POST', '/v1/topics', { name: 'big', partitions: 1, config: { 'max.message.bytes': MAX_MESSAGE_BYTES_LIMIT } })).status).toBe(201);
    const produced = await call(ctx, 'POST', '/v1/topics/big/records', { encoding: 'base64', records: [{ partition: 0, value: Buffer.from(value).toString('base64') }] });
    expect(produced.status, JSON.stringify(produced.body).slice(0, 300)).toBe(200);
  });

  it('is MESSAGE_TOO_LARGE in utf8, naming base64 and record batches', async () => {
    const res = await call(ctx, 'GET', '/v1/topics/big/partitions/0/records', undefined, { offset: '0' });
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ code: 'MESSAGE_TOO_LARGE', offset: 0 });
    expect(res.body.error.message).toContain('encoding=base64');
  });

  it('fits in base64', async () => {
    const res = await call(ctx, 'GET', '/v1/topics/big/partitions/0/records', undefined, { offset: '0', encoding: 'base64' });
    expect(res.status).toBe(200);
    expect(Buffer.byteLength(JSON.stringify(res.body))).toBeLessThan(MAX_JSON_RECORD_BYTES);
    expect(Buffer.from(res.body.records[0].value, 'base64').toString()).toBe(value);
  });
});
