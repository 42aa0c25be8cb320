// lib/client/transport-http.ts: which endpoints are signed and for what, plain http only to
// loopback, and a request's round trip against a local server: headers, JSON, errors with
// Retry-After, record-batch answers, transport failures as client errors.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTransport, awsSigningTarget, isLoopbackHost } from '../../lib/client/transport-http.js';

const requests: { method?: string; url?: string; headers: IncomingMessage['headers']; body: Buffer }[] = [];
let endpoint = '';
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    requests.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks) });
    if (req.url?.startsWith('/base/v1/ok')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ fine: true }));
    } else if (req.url === '/base/v1/empty') {
      res.writeHead(204);
      res.end();
    } else if (req.url === '/base/v1/throttled') {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '2' });
      res.end(JSON.stringify({ error: { code: 'THROTTLING', message: 'slow', retriable: true } }));
    } else if (req.url === '/base/v1/batches') {
      res.writeHead(200, { 'content-type': 'application/vnd.sluice.record-batches', 'sluice-next-offset': '5', 'sluice-high-watermark': '9', 'sluice-log-start-offset': '0' });
      res.end(Buffer.from([1, 2, 3]));
    } else if (req.url === '/base/v1/bad-batches') {
      res.writeHead(200, { 'content-type': 'application/vnd.sluice.record-batches' });
      res.end(Buffer.from([1]));
    } else if (req.url === '/base/v1/slow') {
      setTimeout(() => res.end('{}'), 2000);
    } else {
      res.writeHead(502);
      res.end('bad gateway');
    }
  });
});
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/base/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('endpoint rules', () => {
  it('API Gateway and function URL hosts are signed for their region and service; others not', () => {
    expect(awsSigningTarget('https://abc123.execute-api.eu-west-1.amazonaws.com/prod')).toEqual({ region: 'eu-west-1', service: 'execute-api' });
    expect(awsSigningTarget('https://xyz.lambda-url.us-east-2.on.aws/')).toEqual({ region: 'us-east-2', service: 'lambda' });
    expect(awsSigningTarget('http://127.0.0.1:8080')).toBeUndefined();
    expect(awsSigningTarget('https://evil.com/abc123.execute-api.eu-west-1.amazonaws.com')).toBeUndefined();
  });
  it('loopback hosts', () => {
    for (const h of ['localhost', 'LOCALHOST', 'app.localhost', '127.0.0.1', '127.1.2.3', '[::1]']) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['10.0.0.1', 'localhost.evil.com', '128.0.0.1', 'example.com']) expect(isLoopbackHost(h), h).toBe(false);
  });
  it('plain http only to loopback unless allowed; only http(s)', () => {
    expect(() => new HttpTransport({ endpoint: 'http://10.0.0.1:8080' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG' }));
    expect(new HttpTransport({ endpoint: 'http://10.0.0.1:8080', allowInsecureHttp: true }).signed).toBe(false);
    expect(() => new HttpTransport({ endpoint: 'ftp://127.0.0.1/' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG' }));
    expect(new HttpTransport({ endpoint: 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } }).signed).toBe(true);
    expect(new HttpTransport({ endpoint: 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod', signRequests: false }).signed).toBe(false);
  });
});

describe('requests (local server)', () => {
  it('path under the endpoint\'s base, query, JSON body with content-type and accept; JSON answer; 204 undefined', async () => {
    const t = new HttpTransport({ endpoint });
    requests.length = 0;
    expect(await t.request({ op: 'x', method: 'POST', path: '/v1/ok/{id}', params: { id: 'a b' }, query: { n: 1, skip: undefined }, body: { k: 'v' } })).toEqual({ fine: true });
    const [r] = requests;
    expect(r.url).toBe('/base/v1/ok/a%20b?n=1');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers.accept).toBe('application/json');
    expect(r.headers.authorization).toBeUndefined();
    expect(JSON.parse(r.body.toString())).toEqual({ k: 'v' });
    expect(await t.request({ op: 'x', method: 'DELETE', path: '/v1/empty' })).toBeUndefined();
  });
  it('signRequests on a local endpoint adds a SigV4 authorization header', async () => {
    const t = new HttpTransport({ endpoint, signRequests: true, region: 'eu-west-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 's' } });
    requests.length = 0;
    await t.request({ op: 'x', method: 'GET', path: '/v1/ok' });
    expect(requests[0].headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/execute-api\/aws4_request/);
  });
  it('errors: the server\'s error with Retry-After in ms; a non-JSON 5xx; a batches body and its numbers', async () => {
    const t = new HttpTransport({ endpoint });
    await expect(t.request({ op: 'x', method: 'GET', path: '/v1/throttled' })).rejects.toMatchObject({ code: 'THROTTLING', retriable: true, status: 429, retryAfterMs: 2000 });
    await expect(t.request({ op: 'x', method: 'GET', path: '/v1/nowhere' })).rejects.toMatchObject({ code: 'UNKNOWN_SERVER_ERROR', status: 502, message: 'bad gateway' });
    requests.length = 0;
    expect(await t.request({ op: 'x', method: 'GET', path: '/v1/batches', acceptBatches: true })).toEqual({ batches: Buffer.from([1, 2, 3]), nextOffset: 5, highWatermark: 9, logStartOffset: 0 });
    expect(requests[0].headers.accept).toBe('application/vnd.sluice.record-batches');
    await expect(t.request({ op: 'x', method: 'GET', path: '/v1/bad-batches', acceptBatches: true })).rejects.toMatchObject({ code: 'UNKNOWN_SERVER_ERROR' });
    requests.length = 0;
    await t.request({ op: 'x', method: 'POST', path: '/v1/ok', batches: Buffer.from([7]) });
    expect(requests[0].headers['content-type']).toBe('application/vnd.sluice.record-batches');
    expect(requests[0].body).toEqual(Buffer.from([7]));
  });
  it('transport failures: timeouts retriable REQUEST_TIMED_OUT, cancellation ABORTED, too large RESPONSE_TOO_LARGE', async () => {
    const t = new HttpTransport({ endpoint, requestTimeoutMs: 100 });
    await expect(t.request({ op: 'x', method: 'GET', path: '/v1/slow' })).rejects.toMatchObject({ code: 'REQUEST_TIMED_OUT', retriable: true });
    const c = new AbortController();
    const pending = t.request({ op: 'x', method: 'GET', path: '/v1/slow', timeoutMs: 5000, signal: c.signal });
    setTimeout(() => c.abort(), 30);
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
    const small = new HttpTransport({ endpoint, maxResponseBytes: 2 });
    await expect(small.request({ op: 'x', method: 'GET', path: '/v1/ok' })).rejects.toMatchObject({ code: 'RESPONSE_TOO_LARGE', retriable: false });
  });
});
