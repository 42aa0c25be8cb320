// The gateway container's health check (infra/sluice-kafka-gateway.ts gatewayHealthCheckScript),
// run as ECS runs it, `node -e <script>`, against real gateways: healthy when a plain or a TLS
// gateway answers ApiVersions, and the TLS one counts no failed handshake for it (a bare TCP
// connect would be one every 15 s); unhealthy when nothing listens or the listener never answers.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayHealthCheckScript } from '../../infra/sluice-kafka-gateway.js';
import { startKafkaGateway, type KafkaGateway } from '../../lib/kafka/server.js';
import { createTestContext } from '../support/storage.js';

const CERT = readFileSync(new URL('../fixtures/tls/localhost.crt', import.meta.url), 'utf8');
const KEY = readFileSync(new URL('../fixtures/tls/localhost.key', import.meta.url), 'utf8');

async function healthCheck(port: number, tls: boolean): Promise<number> {
  try {
    await promisify(execFile)(process.execPath, ['-e', gatewayHealthCheckScript(port, tls)], { timeout: 10_000 });
    return 0;
  } catch (e) {
    return (e as { code?: number }).code ?? -1;
  }
}

describe('the Kafka gateway container health check', () => {
  let plain: KafkaGateway;
  let tls: KafkaGateway;
  beforeAll(async () => {
    const ctx = await createTestContext();
    plain = await startKafkaGateway(ctx, { port: 0 });
    tls = await startKafkaGateway(ctx, { port: 0, tls: { cert: CERT, key: KEY } });
  });
  afterAll(async () => {
    await plain?.close();
    await tls?.close();
  });

  it('is healthy when a plain-TCP gateway answers ApiVersions', async () => {
    expect(await healthCheck(plain.port, false)).toBe(0);
    expect(plain.stats().apis.ApiVersions?.requests).toBe(1);
  });

  it('is healthy over TLS, and the gateway counts no failed handshake for it', async () => {
    expect(await healthCheck(tls.port, true)).toBe(0);
    expect(tls.stats().apis.ApiVersions?.requests).toBe(1);
    expect(tls.stats().tlsHandshakeErrors).toBe(0);
  });

  it('is unhealthy when the TLS gateway is checked without TLS, or nothing listens', async () => {
    expect(await healthCheck(tls.port, false)).toBe(1);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(await healthCheck(port, false)).toBe(1);
  });

  it('is unhealthy when the listener accepts but never answers', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      expect(await healthCheck((silent.address() as AddressInfo).port, false)).toBe(1);
    } finally {
      silent.close();
      // execFile's child is gone; close() only stops listening, the accepted socket ends with it.
    }
  }, 15_000);
});
