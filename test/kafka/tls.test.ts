// The gateway terminating TLS itself (Kafka's SSL and SASL_SSL listeners, no load balancer):
// kafkajs trusting the test certificate produces and consumes through it; a client trusting other
// CAs is refused in the handshake and writes nothing; SASL/OAUTHBEARER with IAM tokens works over
// TLS; TLS 1.1 is refused; plain-TCP Kafka requests, random bytes and clients that never finish a
// handshake are disconnected (those after the handshake timeout, however slowly they keep
// sending) and counted, and the gateway keeps serving TLS clients.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { connect as connectTls, rootCertificates, type ConnectionOptions } from 'node:tls';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { Kafka, logLevel, type KafkaConfig } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { iamOAuthBearerProvider } from '../../lib/client/iam-oauthbearer.js';
import { IamOAuthBearerAuthenticator } from '../../lib/kafka/auth/iam-authenticator.js';
import { encodeMessage } from '../../lib/kafka/protocol/codec.js';
import { encodeRequestHeader } from '../../lib/kafka/protocol/headers.js';
import { API_SCHEMAS, ApiKey } from '../../lib/kafka/protocol/messages.js';
import { createTopic, type TopicMetadata } from '../../lib/metadata/topics.js';
import { readAll } from '../log/read-all.js';
import { type EmulatedPrincipal, type StsEmulator, startStsEmulator } from './sasl-sts-emulator.js';
import { startTestGateway, type TestGateway } from './support.js';

const CERT = readFileSync(new URL('../fixtures/tls/localhost.crt', import.meta.url), 'utf8');
const KEY = readFileSync(new URL('../fixtures/tls/localhost.key', import.meta.url), 'utf8');
const HANDSHAKE_TIMEOUT_MS = 400;

let kafka: TestGateway;
let orders: TopicMetadata;

/** A kafkajs client of a TLS gateway by the name its certificate covers. */
function tlsClient(gateway: TestGateway, config: Partial<KafkaConfig> = {}): Kafka {
  return new Kafka({ clientId: 'tls-test', brokers: [`localhost:${gateway.gateway.port}`], ssl: { ca: [CERT] }, logLevel: logLevel.NOTHING, retry: { retries: 2 }, ...config });
}

async function storedState(gateway: TestGateway): Promise<{ items: number; objects: number }> {
  const items = await gateway.ctx.ddb.send(new ScanCommand({ TableName: gateway.ctx.table, Select: 'COUNT' }));
  const objects = await gateway.ctx.s3.send(new ListObjectsV2Command({ Bucket: gateway.ctx.bucket }));
  return { items: items.Count ?? 0, objects: objects.KeyCount ?? 0 };
}

beforeAll(async () => {
  kafka = await startTestGateway({ advertisedHost: 'localhost', tls: { cert: CERT, key: KEY, handshakeTimeoutMs: HANDSHAKE_TIMEOUT_MS } });
  orders = await createTopic(kafka.ctx, 'orders', 2, {});
});
afterAll(() => kafka?.close());

describe('kafkajs over TLS', () => {
  it('produces and consumes through the TLS gateway', async () => {
    expect(kafka.gateway.tls).toBe(true);
    const client = tlsClient(kafka);
    const producer = client.producer();
    await producer.connect();
    try {
      const acks = await producer.send({
        topic: 'orders',
        messages: [
          { key: 'order-1', value: 'paid', partition: 0, headers: { origin: 'tls' } },
          { key: 'order-2', value: 'shipped', partition: 0 },
          { key: 'order-3', value: 'paid', partition: 1 },
        ],
      });
      expect(acks.map((a) => [a.partition, a.errorCode, a.baseOffset]).sort()).toEqual([
        [0, 0, '0'],
        [1, 0, '0'],
      ]);
    } finally {
      await producer.disconnect();
    }
    // In Sluice's log, as produced.
    const { records } = await readAll(kafka.ctx, orders, 0);
    expect(records.map((r) => `${r.key!.toString()}=${r.value!.toString()}`)).toEqual(['order-1=paid', 'order-2=shipped']);
    expect(records[0]!.headers).toEqual([{ key: 'origin', value: Buffer.from('tls') }]);

    const consumer = client.consumer({ groupId: 'tls-readers', maxWaitTimeInMs: 100 });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: 'orders', fromBeginning: true });
      const seen: string[] = [];
      await new Promise<void>((resolve, reject) => {
        consumer
          .run({
            eachMessage: async ({ partition, message }) => {
              seen.push(`${partition}:${message.offset} ${message.key!.toString()}=${message.value!.toString()}`);
              if (seen.length === 3) resolve();
            },
          })
          .catch(reject);
      });
      expect(seen.sort()).toEqual(['0:0 order-1=paid', '0:1 order-2=shipped', '1:0 order-3=paid']);
    } finally {
      await consumer.disconnect();
    }
    expect(kafka.gateway.stats().tlsHandshakeErrors).toBe(0);
    for (const api of ['Produce', 'Fetch', 'SyncGroup', 'OffsetCommit']) expect(kafka.gateway.stats().apis[api]?.errors, api).toBe(0);
  });

  it('keeps an established connection past the handshake timeout', async () => {
    const admin = tlsClient(kafka).admin();
    await admin.connect();
    try {
      expect(await admin.listTopics()).toEqual(['orders']);
      const opened = kafka.gateway.stats().connectionsOpened;
      await new Promise((resolve) => setTimeout(resolve, HANDSHAKE_TIMEOUT_MS * 2));
      expect(await admin.listTopics()).toEqual(['orders']);
      expect(kafka.gateway.stats().connectionsOpened).toBe(opened);
    } finally {
      await admin.disconnect();
    }
  });

  it('refuses a client that trusts other CAs in the handshake, and nothing is written', async () => {
    const before = await storedState(kafka);
    const errors = kafka.gateway.stats().tlsHandshakeErrors;
    for (const ssl of [{ ca: [...rootCertificates] }, true]) {
      const producer = tlsClient(kafka, { ssl, retry: { retries: 0 }, connectionTimeout: 2000 }).producer();
      await expect(producer.connect()).rejects.toThrow(/self[- ]signed certificate/);
      await expect(producer.send({ topic: 'orders', messages: [{ value: 'never' }] })).rejects.toThrow();
      await producer.disconnect();
    }
    // The gateway saw each client abandon its handshake.
    await vi.waitFor(() => expect(kafka.gateway.stats().tlsHandshakeErrors).toBeGreaterThanOrEqual(errors + 2), { timeout: 5000 });
    expect(await storedState(kafka)).toEqual(before);
    expect((await readAll(kafka.ctx, orders, 0)).records).toHaveLength(2);
  });

  it('refuses a plain-TCP kafkajs client', async () => {
    const admin = new Kafka({ clientId: 'tls-test', brokers: [`localhost:${kafka.gateway.port}`], logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 2000, requestTimeout: 2000 }).admin();
    await expect(admin.connect()).rejects.toThrow();
    await admin.disconnect();
  });
});

/** A raw TCP client of the TLS port: what it received, and when the gateway closed it. */
function rawClient(port: number, send?: Buffer): { socket: Socket; received: () => Buffer; closed: Promise<number> } {
  const started = Date.now();
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', () => undefined);
  if (send) socket.once('connect', () => socket.write(send));
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - started)));
  return { socket, received: () => Buffer.concat(chunks), closed };
}

function apiVersionsFrame(): Buffer {
  const schemas = API_SCHEMAS.get(ApiKey.ApiVersions)!;
  const payload = encodeMessage(schemas.request, 2, {}, encodeRequestHeader({ requestApiKey: ApiKey.ApiVersions, requestApiVersion: 2, correlationId: 7, clientId: 'plain' })).toBuffer();
  const size = Buffer.alloc(4);
  size.writeInt32BE(payload.length);
  return Buffer.concat([size, payload]);
}

/** Resolves with the milliseconds until `closed`, or rejects when it takes longer than `ms`. */
const within = (closed: Promise<number>, ms: number) =>
  Promise.race([closed, new Promise<number>((_, reject) => setTimeout(() => reject(new Error(`still open after ${ms} ms`)), ms))]);

describe('clients that do not speak TLS', () => {
  it('disconnects a plain Kafka request, random bytes, a silent and a trickling client, counts them, and keeps serving', async () => {
    const errors = kafka.gateway.stats().tlsHandshakeErrors;
    const opened = kafka.gateway.stats().connectionsOpened;
    const plain = rawClient(kafka.gateway.port, apiVersionsFrame());
    const noise = rawClient(kafka.gateway.port, randomBytes(4096));
    const silent = rawClient(kafka.gateway.port);
    // A TLS record header announcing a ClientHello, then a byte every 50 ms: the deadline holds.
    const trickle = rawClient(kafka.gateway.port, Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00]));
    const drip = setInterval(() => trickle.socket.write(Buffer.from([0x01])), 50);
    void trickle.closed.then(() => clearInterval(drip));
    await within(plain.closed, 2000);
    await within(noise.closed, 2000);
    // Not a Kafka answer: nothing, or a TLS alert record (content type 21).
    for (const c of [plain, noise]) expect(c.received().length === 0 || c.received()[0] === 21).toBe(true);
    const silentFor = await within(silent.closed, HANDSHAKE_TIMEOUT_MS + 3000);
    expect(silentFor).toBeGreaterThanOrEqual(HANDSHAKE_TIMEOUT_MS - 50);
    expect(silent.received().length).toBe(0);
    const trickledFor = await within(trickle.closed, HANDSHAKE_TIMEOUT_MS + 3000);
    expect(trickledFor).toBeGreaterThanOrEqual(HANDSHAKE_TIMEOUT_MS - 50);
    await vi.waitFor(() => expect(kafka.gateway.stats().tlsHandshakeErrors).toBe(errors + 4));
    // None of them became a Kafka connection.
    expect(kafka.gateway.stats().connectionsOpened).toBe(opened);
    expect(kafka.gateway.stats().connections).toBe(0);

    // Many at once, then a TLS client is served as before.
    const crowd = Array.from({ length: 20 }, (_, i) => rawClient(kafka.gateway.port, i % 2 ? apiVersionsFrame() : randomBytes(64)));
    await Promise.all(crowd.map((c) => within(c.closed, 5000)));
    const admin = tlsClient(kafka).admin();
    await admin.connect();
    try {
      expect(await admin.listTopics()).toEqual(['orders']);
    } finally {
      await admin.disconnect();
    }
    await vi.waitFor(() => expect(kafka.gateway.stats().connections).toBe(0));
  });

  it('refuses TLS 1.0 and 1.1, serves 1.2 and 1.3', async () => {
    const handshake = (options: ConnectionOptions) =>
      new Promise<string>((resolve, reject) => {
        const socket = connectTls({ port: kafka.gateway.port, host: 'localhost', ca: [CERT], ...options }, () => {
          resolve(socket.getProtocol()!);
          socket.end();
        });
        socket.once('error', reject);
      });
    await expect(handshake({ minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' })).rejects.toThrow(/alert protocol version/);
    expect(await handshake({ maxVersion: 'TLSv1.2' })).toBe('TLSv1.2');
    expect(await handshake({})).toBe('TLSv1.3');
  });

  it('closing the gateway ends clients still in their handshake at once', async () => {
    const gateway = await startTestGateway({ ctx: kafka.ctx, advertisedHost: 'localhost', tls: { cert: CERT, key: KEY } }); // 10 s handshake timeout
    const silent = rawClient(gateway.gateway.port);
    await new Promise((resolve) => silent.socket.once('connect', resolve));
    const started = Date.now();
    await gateway.close();
    expect(Date.now() - started).toBeLessThan(2000);
    await within(silent.closed, 2000);
  });
});

describe('SASL_SSL: IAM tokens over TLS', () => {
  const WRITER: EmulatedPrincipal = {
    accessKeyId: 'AKIATESTWRITER000001',
    secretAccessKey: 'writer-secret-key-for-tests-only-0000000',
    arn: 'arn:aws:iam::111122223333:user/writer',
    userId: 'AIDATESTWRITER',
  };
  let sts: StsEmulator;
  let secured: TestGateway;
  beforeAll(async () => {
    sts = await startStsEmulator([WRITER]);
    secured = await startTestGateway({
      ctx: kafka.ctx,
      advertisedHost: 'localhost',
      tls: { cert: CERT, key: KEY },
      saslMechanisms: [new IamOAuthBearerAuthenticator({ gatewayId: 'localhost', stsEndpoint: sts.endpoint, allowedPrincipals: ['111122223333'] })],
    });
  });
  afterAll(async () => {
    await secured?.close();
    await sts?.close();
  });

  it('authenticates kafkajs with an IAM token over TLS, which then produces; nothing without SASL', async () => {
    const sasl = iamOAuthBearerProvider({
      gatewayId: 'localhost',
      region: 'eu-west-1',
      stsEndpoint: sts.endpoint,
      credentials: { accessKeyId: WRITER.accessKeyId, secretAccessKey: WRITER.secretAccessKey },
    });
    const producer = tlsClient(secured, { sasl }).producer();
    await producer.connect();
    try {
      const [ack] = await producer.send({ topic: 'orders', messages: [{ key: 'order-9', value: 'over SASL_SSL', partition: 1 }] });
      expect(ack).toMatchObject({ errorCode: 0, baseOffset: '1' });
    } finally {
      await producer.disconnect();
    }
    expect(sts.requests.length).toBeGreaterThan(0);
    expect(sts.requests.every((r) => r.headers['x-sluice-gateway-id'] === 'localhost')).toBe(true);
    expect(secured.gateway.stats().apis.SaslAuthenticate).toMatchObject({ errors: 0 });
    expect((await readAll(kafka.ctx, orders, 1)).records.map((r) => r.value!.toString())).toEqual(['paid', 'over SASL_SSL']);

    const anonymous = tlsClient(secured, { retry: { retries: 0 }, requestTimeout: 2000 }).admin();
    try {
      await anonymous.connect(); // TLS and ApiVersions, which need no authentication
      await expect(anonymous.listTopics()).rejects.toThrow();
    } finally {
      await anonymous.disconnect();
    }
  });
});
