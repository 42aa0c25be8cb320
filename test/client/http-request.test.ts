// lib/client/http-request.ts against a local node:http server: the body read whole, content-length
// sent, timeouts, aborts, answers over the size limit dropped, connection errors with their code.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgents, exchange } from '../../lib/client/http-request.js';

let base: URL;
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    if (req.url === '/echo') {
      res.writeHead(201, { 'x-length': req.headers['content-length'] ?? 'none', 'content-type': 'application/octet-stream' });
      res.end(body);
    } else if (req.url === '/slow') {
      setTimeout(() => res.end('late'), 2000);
    } else if (req.url === '/big') {
      res.writeHead(200, { 'content-length': String(10_000) });
      res.end(Buffer.alloc(10_000));
    } else if (req.url === '/chunked') {
      res.writeHead(200);
      for (let i = 0; i < 10; i++) res.write(Buffer.alloc(1000));
      res.end();
    } else {
      res.writeHead(404);
      res.end();
    }
  });
});
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
const agents = createAgents();

describe('exchange', () => {
  it('sends the body with its content-length and reads the whole answer as bytes', async () => {
    const body = Buffer.from([0, 1, 2, 255]);
    const out = await exchange(agents, { method: 'POST', url: new URL('/echo', base), headers: {}, body, timeoutMs: 5000 });
    expect(out.status).toBe(201);
    expect(out.body).toEqual(body);
    expect(out.headers['x-length']).toBe('4');
    const text = await exchange(agents, { method: 'POST', url: new URL('/echo', base), headers: {}, body: 'é', timeoutMs: 5000 });
    expect(text.headers['x-length']).toBe('2');
  });
  it('TimeoutError when no answer comes in time; AbortError when aborted (before or during)', async () => {
    await expect(exchange(agents, { method: 'GET', url: new URL('/slow', base), headers: {}, timeoutMs: 100 })).rejects.toMatchObject({ name: 'TimeoutError' });
    const controller = new AbortController();
    const pending = exchange(agents, { method: 'GET', url: new URL('/slow', base), headers: {}, timeoutMs: 5000, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await expect(exchange(agents, { method: 'GET', url: new URL('/slow', base), headers: {}, timeoutMs: 5000, signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
  });
  it('ResponseTooLargeError from the declared length or from the bytes received', async () => {
    await expect(exchange(agents, { method: 'GET', url: new URL('/big', base), headers: {}, timeoutMs: 5000, maxResponseBytes: 5000 })).rejects.toMatchObject({ name: 'ResponseTooLargeError' });
    await expect(exchange(agents, { method: 'GET', url: new URL('/chunked', base), headers: {}, timeoutMs: 5000, maxResponseBytes: 5000 })).rejects.toMatchObject({ name: 'ResponseTooLargeError' });
    expect((await exchange(agents, { method: 'GET', url: new URL('/chunked', base), headers: {}, timeoutMs: 5000, maxResponseBytes: 10_000 })).body.length).toBe(10_000);
  });
  it('a refused connection rejects with its code', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await expect(exchange(agents, { method: 'GET', url: new URL(`http://127.0.0.1:${port}/`), headers: {}, timeoutMs: 2000 })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
