// The HTTP transport's safety rails: it will not send (and so not sign) over plain http:// to a
// host that is not loopback, failing at construction with a clear error; and it reads at most
// maxResponseBytes of an answer, failing with RESPONSE_TOO_LARGE rather than buffering it all.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_RESPONSE_BYTES, HttpTransport } from '../../lib/client/transport-http.js';
import { Sluice } from '../../lib/client/sluice.js';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

describe('plain HTTP only to loopback', () => {
  it('refuses http:// to a non-loopback host at construction, signed or not', () => {
    for (const endpoint of ['http://sluice.example.com', 'http://10.0.0.5:8080', 'http://127.0.0.1.nip.io:8080']) {
      expect(() => new HttpTransport({ endpoint, credentials, signRequests: true }), endpoint).toThrow(
        expect.objectContaining({ code: 'INVALID_CONFIG', message: expect.stringContaining('plain http://') }),
      );
    }
    expect(() => new Sluice({ endpoint: 'http://abc123.execute-api.eu-west-1.amazonaws.com' })).toThrow(/plain http:\/\//);
    expect(() => new HttpTransport({ endpoint: 'ftp://127.0.0.1' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG' }));
  });

  it('accepts loopback http://, any https://, and http:// when explicitly allowed', () => {
    for (const endpoint of ['http://localhost:8080', 'http://127.0.0.1:8080', 'http://[::1]:8080', 'http://app.localhost']) {
      expect(new HttpTransport({ endpoint }).endpoint.protocol, endpoint).toBe('http:');
    }
    expect(new HttpTransport({ endpoint: 'https://abc123.execute-api.eu-west-1.amazonaws.com', credentials }).signed).toBe(true);
    expect(new HttpTransport({ endpoint: 'http://sluice.internal:8080', allowInsecureHttp: true }).endpoint.hostname).toBe('sluice.internal');
  });
});

describe('response size cap', () => {
  let url: string;
  let sent = 0;
  // /declared answers with a Content-Length; /chunked streams without one, so only counting stops it.
  const server = createServer((req, res) => {
    const size = Number(new URL(req.url!, 'http://x').searchParams.get('size'));
    const body = Buffer.alloc(size, 0x20);
    if (req.url!.startsWith('/declared')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(size) });
      res.end(body);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = 64 * 1024;
    const write = (at: number): void => {
      if (at >= size || res.destroyed) return void res.end();
      sent = at + chunk;
      if (res.write(body.subarray(at, at + chunk))) setImmediate(() => write(at + chunk));
      else res.once('drain', () => write(at + chunk));
    };
    write(0);
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));

  const get = (transport: HttpTransport, path: string) => transport.request({ op: 'x', method: 'GET', path });

  it('fails an answer over the default 8 MiB with RESPONSE_TOO_LARGE, declared or streamed', async () => {
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(8 * 1024 * 1024);
    const transport = new HttpTransport({ endpoint: url });
    const size = DEFAULT_MAX_RESPONSE_BYTES + 1;
    await expect(get(transport, `/declared?size=${size}`)).rejects.toMatchObject({ code: 'RESPONSE_TOO_LARGE', retriable: false });
    await expect(get(transport, `/chunked?size=${64 * 1024 * 1024}`)).rejects.toMatchObject({ code: 'RESPONSE_TOO_LARGE' });
    // The connection was dropped soon after the limit, not read to the end.
    expect(sent).toBeLessThan(32 * 1024 * 1024);
  });

  it('takes a configured limit and reads answers within it', async () => {
    const transport = new HttpTransport({ endpoint: url, maxResponseBytes: 1000 });
    await expect(get(transport, '/declared?size=1001')).rejects.toMatchObject({ code: 'RESPONSE_TOO_LARGE' });
    await expect(get(transport, '/chunked?size=200000')).rejects.toMatchObject({ code: 'RESPONSE_TOO_LARGE' });
    // 1000 spaces are not JSON; the transport hands such text back as a string.
    expect(await get(transport, '/declared?size=1000')).toBe(' '.repeat(1000));
  });
});
