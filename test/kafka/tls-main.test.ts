// The container entry (lib/kafka/main.ts) as its own process, configured by the environment ECS
// sets in the no-load-balancer mode: with KAFKA_TLS_CERT and KAFKA_TLS_KEY (PEM contents, from
// the test certificate) it serves kafkajs over TLS and logs `tls: true`; with only one of them it
// exits 1 at start, saying which is missing.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EMULATOR_CREDENTIALS } from '../../lib/local/emulators.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';
import type { SluiceContext } from '../../lib/context.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const CERT = readFileSync(new URL('../fixtures/tls/localhost.crt', import.meta.url), 'utf8');
const KEY = readFileSync(new URL('../fixtures/tls/localhost.key', import.meta.url), 'utf8');

interface GatewayProcess {
  readonly child: ChildProcess;
  output(): string;
  /** The 'kafka gateway started' log line, once there is one. */
  readonly started: Promise<Record<string, unknown>>;
  readonly exited: Promise<number | NodeJS.Signals | null>;
}

function startGatewayProcess(env: Record<string, string>): GatewayProcess {
  const base = { ...process.env };
  for (const k of Object.keys(base)) if (k.startsWith('AWS_') || k.startsWith('SLUICE_') || k.startsWith('KAFKA_')) delete base[k];
  const child = spawn(process.execPath, ['--import', 'tsx', 'lib/kafka/main.ts'], { cwd: repo, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const started = new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the gateway did not start:\n${out}`)), 45_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const line = out
        .split('\n')
        .map((l) => (l.startsWith('{') ? (JSON.parse(l) as Record<string, unknown>) : {}))
        .find((l) => l.message === 'kafka gateway started');
      if (line) {
        clearTimeout(timer);
        resolve(line);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the gateway exited (${code}) before listening:\n${out}`));
    });
  });
  started.catch(() => undefined);
  return { child, output: () => out, started, exited };
}

let ctx: SluiceContext;
let environment: Record<string, string>;

beforeAll(async () => {
  ctx = await createTestContext();
  await createTopic(ctx, 'orders', 1, {});
  environment = {
    SLUICE_BUCKET: ctx.bucket,
    SLUICE_TABLE: ctx.table,
    AWS_ENDPOINT_URL_S3: inject('s3Endpoint'),
    AWS_ENDPOINT_URL_DYNAMODB: inject('dynamodbEndpoint'),
    AWS_ACCESS_KEY_ID: EMULATOR_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: EMULATOR_CREDENTIALS.secretAccessKey,
    AWS_REGION: 'eu-west-1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    KAFKA_HOST: '127.0.0.1',
    KAFKA_PORT: '0',
    KAFKA_ADVERTISED_HOST: 'localhost',
    SLUICE_KAFKA_AUTH: 'none',
    SLUICE_KAFKA_SHUTDOWN_GRACE_MS: '2000',
    POWERTOOLS_LOG_LEVEL: 'INFO',
  };
});

describe('lib/kafka/main.ts with KAFKA_TLS_CERT and KAFKA_TLS_KEY', () => {
  let gateway: GatewayProcess;
  afterAll(() => {
    gateway?.child.kill('SIGKILL');
  });

  it('serves kafkajs over TLS, logs tls: true, and stops on SIGTERM', async () => {
    gateway = startGatewayProcess({ ...environment, KAFKA_TLS_CERT: CERT, KAFKA_TLS_KEY: KEY });
    const started = await gateway.started;
    expect(started).toMatchObject({ tls: true, certificateSubject: 'CN=localhost', advertisedHost: 'localhost' });
    // The certificate covers the advertised host: no warning about it.
    expect(gateway.output()).not.toContain('does not cover KAFKA_ADVERTISED_HOST');

    const kafka = new Kafka({ clientId: 'tls-main-test', brokers: [`localhost:${started.port}`], ssl: { ca: [CERT] }, logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    try {
      const [ack] = await producer.send({ topic: 'orders', messages: [{ key: 'order-1', value: 'paid' }] });
      expect(ack).toMatchObject({ topicName: 'orders', errorCode: 0, baseOffset: '0' });
    } finally {
      await producer.disconnect();
    }
    // The same port without TLS is no Kafka broker.
    const plain = new Kafka({ clientId: 'tls-main-test', brokers: [`localhost:${started.port}`], logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 2000, requestTimeout: 2000 }).admin();
    await expect(plain.connect()).rejects.toThrow();
    await plain.disconnect();

    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    expect(gateway.output()).toContain('"message":"kafka TLS handshake failed"');
  });

  it('warns at start when the certificate does not cover the advertised host', async () => {
    const other = startGatewayProcess({ ...environment, KAFKA_ADVERTISED_HOST: 'kafka.internal.example', KAFKA_TLS_CERT: CERT, KAFKA_TLS_KEY: KEY });
    try {
      expect(await other.started).toMatchObject({ tls: true });
      expect(other.output()).toContain('the TLS certificate does not cover KAFKA_ADVERTISED_HOST');
    } finally {
      other.child.kill('SIGTERM');
    }
    expect(await other.exited, other.output()).toBe(0);
  });
});

describe('lib/kafka/main.ts with half of the TLS pair', () => {
  it('exits 1 at start with a message naming the missing variable', async () => {
    const gateway = startGatewayProcess({ ...environment, KAFKA_TLS_CERT: CERT });
    expect(await gateway.exited).toBe(1);
    expect(gateway.output()).toContain('"message":"kafka gateway failed to start"');
    expect(gateway.output()).toContain('KAFKA_TLS_CERT is set but KAFKA_TLS_KEY is not');
    expect(gateway.output()).not.toContain('kafka gateway listening');
  });
});
