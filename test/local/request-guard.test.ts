// The local server against a web page: a CSRF-style form or text/plain POST, a cross-site Origin
// and a DNS-rebinding Host are refused with the contract's error body and change nothing, while
// the requests the client, the CLI and curl send still go through.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type LocalServer } from '../../lib/local/server.js';
import { createTestContext } from '../support/storage.js';

interface Reply {
  status: number;
  body: { error?: { code: string; message: string } } & Record<string, unknown>;
}

describe('local server request guard', () => {
  let server: LocalServer;
  let port: number;
  beforeAll(async () => {
    server = await startServer({ context: await createTestContext() });
    port = Number(new URL(server.url).port);
  });
  afterAll(async () => {
    await server?.close();
  });

  /** node:http rather than fetch: fetch will not send a Host header of our choosing. */
  const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    new Promise<Reply>((resolve, reject) => {
      const req = httpRequest(`${server.url}${path}`, { method, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} });
        });
      });
      req.on('error', reject);
      req.end(body);
    });

  const topicNames = async () => ((await send('GET', '/v1/topics', {})).body.topics as { name: string }[]).map((t) => t.name);
  const createTopic = (name: string) => JSON.stringify({ name, partitions: 1 });

  it('refuses a CSRF-style text/plain POST that would create a topic, and creates nothing', async () => {
    const res = await send('POST', '/v1/topics', { 'content-type': 'text/plain;charset=UTF-8' }, createTopic('csrf'));
    expect(res.status).toBe(415);
    expect(res.body.error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', retriable: false });
    const form = await send('POST', '/v1/topics', { 'content-type': 'application/x-www-form-urlencoded' }, `${createTopic('csrf')}=`);
    expect(form.status).toBe(415);
    const bare = await send('POST', '/v1/topics', {}, createTopic('csrf'));
    expect(bare.status).toBe(415);
    expect(await topicNames()).not.toContain('csrf');
  });

  it('refuses a DNS-rebinding request whose Host is not loopback', async () => {
    const res = await send('GET', '/v1/topics', { host: `evil.example:${port}` });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'CLUSTER_AUTHORIZATION_FAILED' });
    expect(res.body.error!.message).toContain('evil.example');
    const write = await send('POST', '/v1/topics', { host: 'evil.example', 'content-type': 'application/json' }, createTopic('rebound'));
    expect(write.status).toBe(403);
    // Loopback, but another port: not this server's name.
    expect((await send('GET', '/v1/topics', { host: `localhost:${port + 1}` })).status).toBe(403);
    expect(await topicNames()).not.toContain('rebound');
  });

  it('refuses a cross-site Origin, even with a JSON body', async () => {
    const res = await send('POST', '/v1/topics', { origin: 'https://evil.example', 'content-type': 'application/json' }, createTopic('xsite'));
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'CLUSTER_AUTHORIZATION_FAILED' });
    expect((await send('DELETE', '/v1/topics/anything', { origin: 'null' })).status).toBe(403);
    expect(await topicNames()).not.toContain('xsite');
  });

  it('serves loopback names, loopback origins and JSON bodies', async () => {
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      expect((await send('GET', '/v1/topics', { host })).status, host).toBe(200);
    }
    const created = await send(
      'POST',
      '/v1/topics',
      { origin: `http://localhost:${port}`, 'content-type': 'application/json; charset=utf-8' },
      createTopic('fine'),
    );
    expect(created.status).toBe(201);
    // A POST without a body needs no Content-Type (curl -X POST, the client's initProducerId).
    expect((await send('POST', '/v1/producers', {})).status).toBe(200);
    expect(await topicNames()).toContain('fine');
  });
});
