import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { createLambdaHandler } from '../../lib/api/lambda-adapter.js';
import { allOperations, functionOperations } from '../../lib/api/operations.js';
import { RECORD_BATCHES_MEDIA_TYPE, encodeBatchFrames } from '../../lib/records/batch-frames.js';
import { decodeRecordBatch, encodeRecordBatch } from '../../lib/records/index.js';
import { SLUICE_ROUTES } from '../../infra/routes.js';
import { createTestContext } from '../support/storage.js';

function httpEvent(method: string, rawPath: string, body?: unknown, rawQueryString = '', base64 = false): APIGatewayProxyEventV2 {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    headers: { 'content-type': 'application/json' },
    requestContext: { http: { method, path: rawPath } } as APIGatewayProxyEventV2['requestContext'],
    body: text === undefined ? undefined : base64 ? Buffer.from(text).toString('base64') : text,
    isBase64Encoded: base64,
  };
}

describe('Lambda adapter', () => {
  let ctx: SluiceContext;
  let handler: ReturnType<typeof createLambdaHandler>;
  beforeAll(async () => {
    ctx = await createTestContext();
    handler = createLambdaHandler(allOperations, { context: () => ctx });
  });

  it('serves API Gateway v2 events, including base64-encoded bodies and query strings', async () => {
    const created = await handler(httpEvent('POST', '/v1/topics', { name: 'lam', partitions: 1 }, '', true));
    expect(created).toMatchObject({ statusCode: 201, headers: { 'content-type': 'application/json' } });
    await handler(httpEvent('POST', '/v1/topics/lam/records', { records: [{ value: 'v' }] }));
    const fetched = await handler(httpEvent('GET', '/v1/topics/lam/partitions/0/records', undefined, 'offset=0&encoding=base64'));
    expect(fetched.statusCode).toBe(200);
    expect(JSON.parse(fetched.body as string).records[0].value).toBe(Buffer.from('v').toString('base64'));
  });

  it('serves direct invokes {op, ...input} with {status, body}', async () => {
    expect(await handler({ op: 'createTopic', name: 'inv', partitions: 2 })).toMatchObject({ status: 201, body: { name: 'inv', partitions: 2 } });
    const produced = await handler({ op: 'produce', topic: 'inv', records: [{ partition: 1, value: 'x' }] });
    expect(produced).toEqual({ status: 200, body: { offsets: [{ partition: 1, baseOffset: 0, count: 1 }], records: [{ partition: 1, offset: 0 }] } });
    const fetched = await handler({ op: 'fetch', topic: 'inv', partition: 1, offset: 0 });
    expect((fetched.body as { records: { value: string }[] }).records[0].value).toBe('x');
    expect(await handler({ op: 'deleteTopic', topic: 'inv' })).toEqual({ status: 204 });
  });

  it('serves an event whose body is null, even when flagged base64', async () => {
    const event = { ...httpEvent('GET', '/v1/topics'), body: null, isBase64Encoded: true } as unknown as APIGatewayProxyEventV2;
    expect(await handler(event)).toMatchObject({ statusCode: 200 });
  });

  it('refuses a body that is not UTF-8 instead of storing replacement characters', async () => {
    await handler(httpEvent('POST', '/v1/topics', { name: 'latin1', partitions: 1 }));
    const latin1 = Buffer.from('{"records":[{"value":"caf\u00e9"}]}', 'latin1');
    const event = { ...httpEvent('POST', '/v1/topics/latin1/records'), body: latin1.toString('base64'), isBase64Encoded: true };
    const res = await handler(event);
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body as string).error).toMatchObject({ code: 'INVALID_REQUEST' });
    const fetched = await handler(httpEvent('GET', '/v1/topics/latin1/partitions/0/records', undefined, 'offset=0'));
    expect(JSON.parse(fetched.body as string)).toMatchObject({ records: [], highWatermark: 0 });
  });

  it('takes a base64-flagged record-batches body and answers a batches fetch base64-flagged', async () => {
    await handler(httpEvent('POST', '/v1/topics', { name: 'bin', partitions: 1 }));
    const sent = encodeRecordBatch([{ timestamp: 1, key: Buffer.from([0xff, 0]), value: Buffer.from([0xc3, 0x28]) }], { baseOffset: 0 });
    const produced = await handler({
      ...httpEvent('POST', '/v1/topics/bin/records'),
      headers: { 'content-type': RECORD_BATCHES_MEDIA_TYPE },
      body: encodeBatchFrames([{ partition: 0, batch: sent }]).toString('base64'),
      isBase64Encoded: true,
    });
    expect(produced).toMatchObject({ statusCode: 200, isBase64Encoded: false });
    expect(JSON.parse(produced.body as string)).toEqual({ offsets: [{ partition: 0, baseOffset: 0, count: 1 }] });
    const fetched = await handler({
      ...httpEvent('GET', '/v1/topics/bin/partitions/0/records', undefined, 'offset=0'),
      headers: { accept: RECORD_BATCHES_MEDIA_TYPE },
    });
    expect(fetched).toMatchObject({
      statusCode: 200,
      isBase64Encoded: true,
      headers: { 'content-type': RECORD_BATCHES_MEDIA_TYPE, 'sluice-next-offset': '1', 'sluice-high-watermark': '1', 'sluice-log-start-offset': '0' },
    });
    const stored = Buffer.from(fetched.body as string, 'base64');
    expect(stored.subarray(16)).toEqual(sent.subarray(16));
    expect(decodeRecordBatch(stored).records[0].value).toEqual(Buffer.from([0xc3, 0x28]));
  });

  it('checks every query parameter, even one named like an Object.prototype member', async () => {
    const res = await handler(httpEvent('GET', '/v1/topics', undefined, 'constructor=1'));
    expect(res.statusCode).toBe(400);
    const { error } = JSON.parse(res.body as string);
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toContain("'constructor'");
  });

  it('answers unknown ops and unrecognised events with the error contract', async () => {
    const unknown = await handler({ op: 'compact' });
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    const produceOnly = createLambdaHandler(functionOperations.produce, { context: () => ctx });
    expect(await produceOnly({ op: 'createTopic', name: 'x', partitions: 1 })).toMatchObject({ status: 404 });
    expect(await handler({ hello: 'world' })).toMatchObject({ status: 400, body: { error: { code: 'INVALID_REQUEST' } } });
  });

  it('serves exactly the routes the CDK stack sends to each function', () => {
    for (const fn of ['produce', 'fetch', 'admin', 'groups'] as const) {
      const deployed = SLUICE_ROUTES.filter((r) => r.fn === fn).map((r) => `${r.method} ${r.path}`).sort();
      const served = functionOperations[fn].map((o) => `${o.method} ${o.path}`).sort();
      expect(served).toEqual(deployed);
    }
  });
});
