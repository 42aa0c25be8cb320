// `npm start` (lib/local/main.ts) serves Kafka's protocol on KAFKA_PORT beside the HTTP API,
// prints how to connect, and a kafkajs client sees the topics created over HTTP.
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { describe, expect, it, vi } from 'vitest';
import { request, startMain } from '../local/main-process.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('npm start with KAFKA_PORT', () => {
  it('listens for Kafka clients and prints a kafkajs and a kcat example', async () => {
    const port = await freePort();
    const main = await startMain({ SLUICE_DATA_DIR: mkdtempSync(join(tmpdir(), 'sluice-kafka-main-')), KAFKA_PORT: String(port) });
    try {
      await vi.waitFor(() => expect(main.output()).toContain(`bootstrap server 127.0.0.1:${port}`), { timeout: 10_000 });
      expect(main.output()).toContain(`brokers: ['127.0.0.1:${port}']`);
      expect(main.output()).toMatch(new RegExp(`kcat -P -b 127\\.0\\.0\\.1:${port} -t orders`));
      expect((await request(main.url, 'POST', '/v1/topics', { name: 'orders', partitions: 3 })).status).toBe(201);
      const admin = new Kafka({ clientId: 'npm-start-test', brokers: [`127.0.0.1:${port}`], logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      try {
        expect(await admin.listTopics()).toEqual(['orders']);
        const { topics } = await admin.fetchTopicMetadata({ topics: ['orders'] });
        expect(topics[0]!.partitions).toHaveLength(3);
      } finally {
        await admin.disconnect();
      }
    } finally {
      main.child.kill('SIGTERM');
    }
    expect(await main.exited).toBe(0);
  });

  it('KAFKA_PORT=0 starts no gateway', async () => {
    const main = await startMain({ SLUICE_DATA_DIR: mkdtempSync(join(tmpdir(), 'sluice-kafka-main-')), KAFKA_PORT: '0' });
    try {
      expect(main.output()).not.toContain('Kafka clients');
    } finally {
      main.child.kill('SIGTERM');
    }
    expect(await main.exited).toBe(0);
  });
});
