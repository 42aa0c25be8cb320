// Transports: requests to API Gateway hosts are SigV4-signed with the SDK signer (checked on a
// real HTTP listener that captures what arrives); local endpoints are not; direct Lambda invoke
// carries `{op, ...params, ...query, ...body}` to the real handler and maps its error replies.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { createLambdaHandler } from '../../lib/api/lambda-adapter.js';
import { allOperations } from '../../lib/api/operations.js';
import { HttpTransport, awsSigningTarget } from '../../lib/client/transport-http.js';
import { LambdaTransport } from '../../lib/client/transport-lambda.js';
import { Sluice } from '../../lib/client/sluice.js';
import { backoffDelay } from '../../lib/client/retry.js';
import { decodeRecordBatch } from '../../lib/records/index.js';
import { createTestContext } from '../support/storage.js';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

describe('HTTP transport signing', () => {
  let url: string;
  const seen: { headers: IncomingHttpHeaders; url: string }[] = [];
  const server = createServer((req, res) => {
    seen.push({ headers: req.headers, url: req.url ?? '' });
    req.resume().on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end('{"topics":[]}');
    });
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prod`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('recognises API Gateway and Lambda function URL hosts', () => {
    expect(awsSigningTarget('https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/prod')).toEqual({ region: 'eu-west-1', service: 'execute-api' });
    expect(awsSigningTarget('https://abcdefghij.lambda-url.us-east-2.on.aws/')).toEqual({ region: 'us-east-2', service: 'lambda' });
    expect(awsSigningTarget('http://127.0.0.1:8080')).toBeUndefined();
    expect(new HttpTransport({ endpoint: 'https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com', credentials }).signed).toBe(true);
    expect(new HttpTransport({ endpoint: 'http://127.0.0.1:8080' }).signed).toBe(false);
  });

  it('signs with SigV4 for execute-api when asked, including the base path and query', async () => {
    const transport = new HttpTransport({ endpoint: url, signRequests: true, region: 'eu-west-1', credentials });
    await transport.request({ op: 'listTopics', method: 'GET', path: '/v1/topics', query: { a: 'b c' } });
    const { headers, url: path } = seen.at(-1)!;
    expect(path).toBe('/prod/v1/topics?a=b+c');
    expect(headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/execute-api\/aws4_request, SignedHeaders=[^,]*host[^,]*, Signature=[0-9a-f]{64}$/);
    expect(headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
  });

  it('sends local requests unsigned', async () => {
    await new HttpTransport({ endpoint: url }).request({ op: 'listTopics', method: 'GET', path: '/v1/topics' });
    expect(seen.at(-1)!.headers.authorization).toBeUndefined();
  });
});

describe('HTTP transport exchanges', () => {
  let url: string;
  const sockets = new Set<unknown>();
  const bodies: { contentType?: string; length?: string; body: Buffer }[] = [];
  const server = createServer((req, res) => {
    sockets.add(req.socket);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push({ contentType: req.headers['content-type'], length: req.headers['content-length'], body: Buffer.concat(chunks) });
      if (req.url?.startsWith('/slow')) return; // never answers
      if (req.url?.startsWith('/fail')) {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '2' });
        res.end(JSON.stringify({ error: { code: 'THROTTLING', message: 'slow down', retriable: true } }));
        return;
      }
      if (req.url?.startsWith('/cut')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"par');
        setTimeout(() => res.socket?.destroy(), 10);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ echoed: Buffer.concat(chunks).length }));
    });
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });

  it('sends a record-batches body byte for byte, with its length, and reuses one connection', async () => {
    const transport = new HttpTransport({ endpoint: url });
    const batches = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 31) & 0xff));
    sockets.clear();
    for (let i = 0; i < 3; i++) {
      const reply = await transport.request<{ echoed: number }>({ op: 'produce', method: 'POST', path: '/v1/topics/{topic}/records', params: { topic: 't' }, batches });
      expect(reply).toEqual({ echoed: batches.length });
    }
    expect(bodies.at(-1)).toEqual({ contentType: 'application/vnd.sluice.record-batches', length: String(batches.length), body: batches });
    expect(sockets.size).toBe(1);
  });

  it('maps an error answer with its Retry-After', async () => {
    await expect(new HttpTransport({ endpoint: url }).request({ op: 'x', method: 'GET', path: '/fail' })).rejects.toMatchObject({
      code: 'THROTTLING',
      retriable: true,
      retryAfterMs: 2000,
    });
  });

  it('times out, is cancelled, and reports a refused connection and a cut answer as retriable network errors', async () => {
    const transport = new HttpTransport({ endpoint: url, requestTimeoutMs: 100 });
    await expect(transport.request({ op: 'x', method: 'GET', path: '/slow' })).rejects.toMatchObject({ code: 'REQUEST_TIMED_OUT', retriable: true });
    const controller = new AbortController();
    const pending = transport.request({ op: 'x', method: 'GET', path: '/slow', timeoutMs: 5_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(transport.request({ op: 'x', method: 'GET', path: '/cut', timeoutMs: 5_000 })).rejects.toMatchObject({ code: 'NETWORK_ERROR', retriable: true });
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await expect(new HttpTransport({ endpoint: `http://127.0.0.1:${port}` }).request({ op: 'x', method: 'GET', path: '/' })).rejects.toMatchObject({
      code: 'NETWORK_ERROR',
      retriable: true,
      message: expect.stringContaining('ECONNREFUSED'),
    });
  });
});

describe('Lambda transport', () => {
  let endpoint: string;
  const invoked: string[] = [];
  const server = createServer();

  beforeAll(async () => {
    // The Lambda Invoke API in front of the real handler, so the SDK's own client does the call.
    const handler = createLambdaHandler(allOperations, { context: () => ctx });
    const ctx = await createTestContext();
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        invoked.push(decodeURIComponent(/functions\/([^/]+)\/invocations/.exec(req.url ?? '')![1]));
        const reply = await handler(JSON.parse(Buffer.concat(chunks).toString()));
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(reply));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('produces, fetches and maps errors through direct invoke', async () => {
    const client = new LambdaClient({ endpoint, region: 'us-east-1', credentials });
    const sluice = new Sluice({ lambda: { client, functionName: (op) => `sluice-${op}` } });
    await sluice.admin().createTopics({ topics: [{ topic: 'invoked', numPartitions: 2 }] });
    await sluice.producer().send({ topic: 'invoked', messages: [{ key: 'k', value: 'hello', partition: 1 }] });
    const reply = await sluice.api.fetch('invoked', 1, { offset: 0 });
    expect(reply.records.map((r) => r.value)).toEqual(['hello']);
    const batches = await sluice.api.fetchBatches('invoked', 1, { offset: 0 });
    expect(batches).toMatchObject({ nextOffset: 1, highWatermark: 1, logStartOffset: 0 });
    expect(decodeRecordBatch(batches.batches).records.map((r) => r.value!.toString())).toEqual(['hello']);
    expect(invoked).toContain('sluice-produce');
    await expect(sluice.api.describeTopic('missing')).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION', retriable: false });
  });
});

describe('backoff', () => {
  it('draws each wait uniformly below min(maxRetryTime, initialRetryTime * 2^attempt)', () => {
    const options = { initialRetryTime: 100, maxRetryTime: 1000 };
    expect([0, 1, 2, 3, 4, 10].map((n) => backoffDelay(n, options, () => 0.999999))).toEqual([99, 199, 399, 799, 999, 999]);
    expect(backoffDelay(3, options, () => 0)).toBe(0);
  });
});
