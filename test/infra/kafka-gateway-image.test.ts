// The gateway's container image, short of Docker: the staged build context (the Dockerfile and
// lib/kafka/main.ts bundled by the local esbuild) runs under plain `node gateway.mjs`, as the
// image's CMD does, configured by the environment the CDK construct sets; kafkajs authenticates
// with an IAM token (the test's STS emulator) and lists topics; SIGTERM stops it cleanly.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stageGatewayImage } from '../../infra/sluice-kafka-gateway.js';
import { iamOAuthBearerProvider } from '../../lib/client/iam-oauthbearer.js';
import { EMULATOR_CREDENTIALS } from '../../lib/local/emulators.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';
import { type EmulatedPrincipal, type StsEmulator, startStsEmulator } from '../kafka/sasl-sts-emulator.js';

const WRITER: EmulatedPrincipal = {
  accessKeyId: 'AKIATESTWRITER000001',
  secretAccessKey: 'writer-secret-key-for-tests-only-0000000',
  arn: 'arn:aws:iam::111122223333:user/writer',
  userId: 'AIDATESTWRITER',
};

interface GatewayProcess {
  readonly child: ChildProcess;
  readonly port: number;
  output(): string;
  readonly exited: Promise<number | NodeJS.Signals | null>;
}

async function runImage(dir: string, env: Record<string, string>): Promise<GatewayProcess> {
  const base = { ...process.env };
  for (const k of Object.keys(base)) if (k.startsWith('AWS_') || k.startsWith('SLUICE_') || k.startsWith('KAFKA_')) delete base[k];
  const child = spawn(process.execPath, ['gateway.mjs'], { cwd: dir, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the gateway did not start:\n${out}`)), 30_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const started = out.split('\n').map((l) => (l.startsWith('{') ? JSON.parse(l) : {})).find((l) => l.message === 'kafka gateway started');
      if (started) {
        clearTimeout(timer);
        resolve(started.port);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the gateway exited (${code}) before listening:\n${out}`));
    });
  });
  return { child, port, output: () => out, exited };
}

let dir: string;
let sts: StsEmulator;
let gateway: GatewayProcess;

beforeAll(async () => {
  dir = stageGatewayImage(true);
  sts = await startStsEmulator([WRITER]);
  const ctx = await createTestContext();
  await createTopic(ctx, 'orders', 2, {});
  gateway = await runImage(dir, {
    SLUICE_BUCKET: ctx.bucket,
    SLUICE_TABLE: ctx.table,
    AWS_ENDPOINT_URL_S3: inject('s3Endpoint'),
    AWS_ENDPOINT_URL_DYNAMODB: inject('dynamodbEndpoint'),
    AWS_ACCESS_KEY_ID: EMULATOR_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: EMULATOR_CREDENTIALS.secretAccessKey,
    AWS_REGION: 'eu-west-1',
    KAFKA_HOST: '127.0.0.1',
    KAFKA_PORT: '0',
    KAFKA_ADVERTISED_HOST: '127.0.0.1',
    SLUICE_KAFKA_AUTH: 'iam',
    SLUICE_KAFKA_ALLOWED_PRINCIPALS: '111122223333',
    SLUICE_KAFKA_STS_ENDPOINT: sts.endpoint,
    SLUICE_KAFKA_SHUTDOWN_GRACE_MS: '5000',
    SLUICE_KAFKA_LINGER_MS: '40',
    POWERTOOLS_LOG_LEVEL: 'INFO',
  });
}, 120_000);

afterAll(async () => {
  gateway?.child.kill('SIGKILL');
  await sts?.close();
});

describe('the gateway image', () => {
  it('is the Dockerfile and one bundle with everything in it (the AWS SDK too)', () => {
    const dockerfile = readFileSync(join(dir, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM node:22-slim$/m);
    expect(dockerfile).toMatch(/^COPY gateway\.mjs \.\/$/m);
    expect(dockerfile).toMatch(/^CMD \["node", "gateway\.mjs"\]$/m);
    const bundle = readFileSync(join(dir, 'gateway.mjs'), 'utf8');
    // No import of a package: the image has no node_modules.
    expect(bundle.match(/(?:^|[;\s])import\s*[^(]*?from\s*["'](?!node:)[^"']+["']/g) ?? []).toEqual([]);
  });

  it('serves kafkajs with an IAM token (topics, produce), and nothing without one', async () => {
    const brokers = [`127.0.0.1:${gateway.port}`];
    const sasl = iamOAuthBearerProvider({
      gatewayId: '127.0.0.1',
      region: 'eu-west-1',
      stsEndpoint: sts.endpoint,
      credentials: { accessKeyId: WRITER.accessKeyId, secretAccessKey: WRITER.secretAccessKey },
    });
    const client = new Kafka({ clientId: 'image-test', brokers, sasl, logLevel: logLevel.NOTHING });
    const admin = client.admin();
    await admin.connect();
    try {
      expect(await admin.listTopics()).toEqual(['orders']);
    } finally {
      await admin.disconnect();
    }
    const producer = client.producer();
    await producer.connect();
    try {
      const [sent] = await producer.send({ topic: 'orders', messages: [{ key: 'order-1', value: 'paid' }] });
      expect(sent).toMatchObject({ topicName: 'orders', errorCode: 0, baseOffset: '0' });
    } finally {
      await producer.disconnect();
    }
    const anonymous = new Kafka({ clientId: 'image-test', brokers, logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
    try {
      await anonymous.connect();
      await expect(anonymous.listTopics()).rejects.toThrow();
    } finally {
      await anonymous.disconnect();
    }
    const logs = gateway.output();
    expect(logs).toContain('"produceLingerMs":40');
    expect(logs).toContain('"message":"kafka SASL authenticated"');
    expect(logs).toContain('"principal":"arn:aws:iam::111122223333:user/writer"');
  });

  it('stops on SIGTERM with exit code 0', async () => {
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    expect(gateway.output()).toContain('"message":"kafka gateway stopped"');
  });
});
