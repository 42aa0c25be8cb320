// SASL/OAUTHBEARER with IAM tokens on the gateway, against the test's STS emulator: kafkajs with
// the client's token provider authenticates and lists topics; every bad token is answered
// SASL_AUTHENTICATION_FAILED with its reason and the connection closes; nothing but ApiVersions
// and SASL is served before authentication or after the session ends; nothing is written.
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { iamOAuthBearerProvider, iamTokenSigner } from '../../lib/client/iam-oauthbearer.js';
import { IamOAuthBearerAuthenticator } from '../../lib/kafka/auth/iam-authenticator.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { decodeExactly, encodeMessage } from '../../lib/kafka/protocol/codec.js';
import { encodeRequestHeader } from '../../lib/kafka/protocol/headers.js';
import { API_SCHEMAS, ApiKey } from '../../lib/kafka/protocol/messages.js';
import { type EmulatedPrincipal, type StsEmulator, startStsEmulator } from './sasl-sts-emulator.js';
import { startTestGateway, type TestGateway } from './support.js';
import { createTestContext } from '../support/storage.js';

const WRITER: EmulatedPrincipal = {
  accessKeyId: 'ASIATESTWRITER000001',
  secretAccessKey: 'writer-secret-key-for-tests-only-0000000',
  sessionToken: 'writer-session-token',
  arn: 'arn:aws:sts::111122223333:assumed-role/Writer/app-1',
  userId: 'AROATESTWRITER:app-1',
};
const READER: EmulatedPrincipal = {
  accessKeyId: 'AKIATESTREADER000001',
  secretAccessKey: 'reader-secret-key-for-tests-only-0000000',
  arn: 'arn:aws:iam::111122223333:user/reader',
  userId: 'AIDATESTREADER',
};
const OUTSIDER: EmulatedPrincipal = {
  accessKeyId: 'AKIATESTOUTSIDER0001',
  secretAccessKey: 'outsider-secret-key-for-tests-only-00000',
  arn: 'arn:aws:iam::444455556666:user/outsider',
  userId: 'AIDATESTOUTSIDER',
};
const GATEWAY_ID = '127.0.0.1';

let sts: StsEmulator;
let kafka: TestGateway;
/** Added to the gateway's clock: moves its sessions towards their end without waiting. */
let clockOffsetMs = 0;

beforeAll(async () => {
  sts = await startStsEmulator([WRITER, READER, OUTSIDER]);
  const base = await createTestContext();
  const ctx = { ...base, now: () => Date.now() + clockOffsetMs };
  kafka = await startTestGateway({
    ctx,
    saslMechanisms: [new IamOAuthBearerAuthenticator({ gatewayId: GATEWAY_ID, stsEndpoint: sts.endpoint, allowedPrincipals: ['111122223333'] })],
  });
  await createTopic(kafka.ctx, 'orders', 3, {});
});
afterAll(async () => {
  await kafka?.close();
  await sts?.close();
});
beforeEach(() => {
  clockOffsetMs = 0;
  sts.requests.length = 0;
});

const credentialsOf = (p: EmulatedPrincipal) => ({ accessKeyId: p.accessKeyId, secretAccessKey: p.secretAccessKey, sessionToken: p.sessionToken });
const sign = (p: EmulatedPrincipal, options: { tokenLifetimeSeconds?: number; gatewayId?: string } = {}) =>
  iamTokenSigner({ gatewayId: options.gatewayId ?? GATEWAY_ID, region: 'eu-west-1', stsEndpoint: sts.endpoint, credentials: credentialsOf(p), tokenLifetimeSeconds: options.tokenLifetimeSeconds });
const initialResponse = (token: string) => Buffer.from(`n,,\u0001auth=Bearer ${token}\u0001\u0001`);
const urlOf = (token: string) => new URL(Buffer.from(token, 'base64url').toString('utf8'));
const tokenOf = (url: URL | string) => Buffer.from(String(url)).toString('base64url');

/** A raw Kafka connection: requests in, decoded responses out, and whether the gateway closed it. */
class RawConnection {
  private readonly socket: Socket;
  private buffered = Buffer.alloc(0);
  private correlationId = 0;
  private readonly waiting: ((frame: Buffer | undefined) => void)[] = [];
  readonly closed: Promise<void>;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 4 && this.buffered.length >= 4 + this.buffered.readInt32BE(0)) {
        const size = this.buffered.readInt32BE(0);
        const frame = this.buffered.subarray(4, 4 + size);
        this.buffered = this.buffered.subarray(4 + size);
        this.waiting.shift()?.(frame);
      }
    });
    this.closed = new Promise((resolve) => this.socket.on('close', () => resolve()));
    this.closed.then(() => {
      for (const w of this.waiting.splice(0)) w(undefined);
    });
    this.socket.on('error', () => undefined);
  }

  /** Sends one request; resolves with the decoded response, or undefined when the connection closed instead. */
  async send<T>(apiKey: number, version: number, body: object): Promise<T | undefined> {
    const schemas = API_SCHEMAS.get(apiKey)!;
    const correlationId = ++this.correlationId;
    const payload = encodeMessage(schemas.request, version, body, encodeRequestHeader({ requestApiKey: apiKey, requestApiVersion: version, correlationId, clientId: 'raw-test' })).toBuffer();
    const size = Buffer.alloc(4);
    size.writeInt32BE(payload.length);
    const answered = new Promise<Buffer | undefined>((resolve) => this.waiting.push(resolve));
    this.socket.write(Buffer.concat([size, payload]));
    const frame = await answered;
    if (!frame) return undefined;
    expect(frame.readInt32BE(0)).toBe(correlationId);
    return decodeExactly<T>(schemas.response, version, frame.subarray(4)); // non-flexible: header v0
  }

  async authenticate(authBytes: Buffer, version = 1): Promise<{ errorCode: number; errorMessage: string | null; sessionLifetimeMs?: bigint } | undefined> {
    const handshake = await this.send<{ errorCode: number; mechanisms: string[] }>(ApiKey.SaslHandshake, 1, { mechanism: 'OAUTHBEARER' });
    expect(handshake).toEqual({ errorCode: 0, mechanisms: ['OAUTHBEARER'] });
    return this.send(ApiKey.SaslAuthenticate, version, { authBytes });
  }

  metadata(): Promise<{ topics: { name: string }[] } | undefined> {
    return this.send(ApiKey.Metadata, 4, { topics: null, allowAutoTopicCreation: false });
  }

  async isClosedSoon(ms = 2000): Promise<boolean> {
    return Promise.race([this.closed.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);
  }

  destroy(): void {
    this.socket.destroy();
  }
}

async function storedState(): Promise<{ items: number; objects: number }> {
  const items = await kafka.ctx.ddb.send(new ScanCommand({ TableName: kafka.ctx.table, Select: 'COUNT' }));
  const objects = await kafka.ctx.s3.send(new ListObjectsV2Command({ Bucket: kafka.ctx.bucket }));
  return { items: items.Count ?? 0, objects: objects.KeyCount ?? 0 };
}

describe('kafkajs with the IAM token provider', () => {
  it('authenticates and lists topics', async () => {
    const sasl = iamOAuthBearerProvider({ gatewayId: GATEWAY_ID, region: 'eu-west-1', stsEndpoint: sts.endpoint, credentials: credentialsOf(WRITER) });
    const admin = kafka.client({ sasl }).admin();
    await admin.connect();
    try {
      expect(await admin.listTopics()).toEqual(['orders']);
      const { topics } = await admin.fetchTopicMetadata({ topics: ['orders'] });
      expect(topics[0]!.partitions).toHaveLength(3);
    } finally {
      await admin.disconnect();
    }
    expect(sts.requests.length).toBeGreaterThan(0);
    expect(sts.requests.every((r) => r.headers['x-sluice-gateway-id'] === GATEWAY_ID)).toBe(true);
  });

  it('re-authenticates before each short session ends and keeps working (KIP-368)', async () => {
    const sasl = iamOAuthBearerProvider({ gatewayId: GATEWAY_ID, region: 'eu-west-1', stsEndpoint: sts.endpoint, credentials: credentialsOf(WRITER), tokenLifetimeSeconds: 2 });
    const admin = kafka.client({ sasl, reauthenticationThreshold: 1000 }).admin();
    await admin.connect();
    try {
      expect(await admin.listTopics()).toEqual(['orders']);
      const authentications = sts.requests.length;
      const opened = kafka.gateway.stats().connectionsOpened;
      await new Promise((resolve) => setTimeout(resolve, 2200)); // the first token, and its session, are over
      expect(await admin.listTopics()).toEqual(['orders']);
      expect(sts.requests.length).toBeGreaterThan(authentications);
      // Re-authenticated on the connection it had: the gateway closed nothing and saw no reconnect.
      expect(kafka.gateway.stats().connectionsOpened).toBe(opened);
    } finally {
      await admin.disconnect();
    }
  });

  it('is refused with SASL_AUTHENTICATION_FAILED and the reason when the principal is not allowed', async () => {
    const sasl = iamOAuthBearerProvider({ gatewayId: GATEWAY_ID, region: 'eu-west-1', stsEndpoint: sts.endpoint, credentials: credentialsOf(OUTSIDER) });
    const admin = kafka.client({ sasl, retry: { retries: 0 } }).admin();
    await expect(admin.connect()).rejects.toThrow(/SASL OAUTHBEARER authentication failed: OAUTHBEARER authentication failed: principal arn:aws:iam::444455556666:user\/outsider is not allowed/);
    await admin.disconnect();
  });

  it('is refused when its token was made for another gateway', async () => {
    const sasl = iamOAuthBearerProvider({ gatewayId: 'kafka.elsewhere.example', region: 'eu-west-1', stsEndpoint: sts.endpoint, credentials: credentialsOf(WRITER) });
    const admin = kafka.client({ sasl, retry: { retries: 0 } }).admin();
    await expect(admin.connect()).rejects.toThrow(/SignatureDoesNotMatch/);
    await admin.disconnect();
  });

  it('cannot reach anything without SASL: the gateway closes the connection', async () => {
    const admin = kafka.client({ retry: { retries: 0 }, connectionTimeout: 1000, requestTimeout: 2000 }).admin();
    try {
      await admin.connect(); // ApiVersions only, which needs no authentication
      await expect(admin.listTopics()).rejects.toThrow(/Connection error|Closed connection|closed/i);
    } finally {
      await admin.disconnect();
    }
  });
});

describe('the SASL exchange on the wire', () => {
  it('reports the session lifetime (v1) as the token\'s remaining life', async () => {
    const token = await sign(WRITER, { tokenLifetimeSeconds: 120 })();
    const c = new RawConnection(kafka.gateway.port);
    try {
      const answer = await c.authenticate(initialResponse(token.value));
      expect(answer).toMatchObject({ errorCode: 0, errorMessage: null });
      const lifetime = Number(answer!.sessionLifetimeMs);
      expect(lifetime).toBeGreaterThan(100_000);
      expect(lifetime).toBeLessThanOrEqual(120_000);
      expect((await c.metadata())!.topics.map((t) => t.name)).toEqual(['orders']);
    } finally {
      c.destroy();
    }
  });

  const refusals: [string, () => Promise<string>, RegExp][] = [
    [
      'a tampered token',
      async () => {
        const url = urlOf((await sign(WRITER)()).value);
        url.searchParams.set('X-Amz-Date', url.searchParams.get('X-Amz-Date')!.replace(/\d(?=Z$)/, (d) => String((Number(d) + 1) % 10)));
        return tokenOf(url);
      },
      /STS refused the IAM token \(HTTP 403, SignatureDoesNotMatch/,
    ],
    ['an expired token', async () => (await sign(WRITER, { tokenLifetimeSeconds: 1 })(new Date(Date.now() - 5000))).value, /the token has expired/],
    [
      'a token for another action',
      async () => {
        const url = urlOf((await sign(WRITER)()).value);
        url.searchParams.set('Action', 'AssumeRole');
        return tokenOf(url);
      },
      /the action must be GetCallerIdentity/,
    ],
    [
      'a token naming a host that is not the trusted STS (SSRF)',
      async () => {
        const url = urlOf((await sign(WRITER)()).value);
        return tokenOf(`http://169.254.169.254/?${url.searchParams}`);
      },
      /'169\.254\.169\.254' is not an STS endpoint this gateway trusts/,
    ],
    ['a principal outside the allow-list', async () => (await sign(OUTSIDER)()).value, /principal arn:aws:iam::444455556666:user\/outsider is not allowed/],
  ];
  for (const [what, token, reason] of refusals) {
    it(`answers ${what} with SASL_AUTHENTICATION_FAILED and closes the connection, writing nothing`, async () => {
      const before = await storedState();
      const c = new RawConnection(kafka.gateway.port);
      try {
        const answer = await c.authenticate(initialResponse(await token()));
        expect(answer?.errorCode).toBe(58); // SASL_AUTHENTICATION_FAILED
        expect(answer?.errorMessage).toMatch(reason);
        expect(await c.isClosedSoon()).toBe(true);
      } finally {
        c.destroy();
      }
      expect(await storedState()).toEqual(before);
    });
  }

  it('never sends an SSRF token anywhere', async () => {
    const hits: string[] = [];
    const decoy: Server = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end();
    });
    await new Promise<void>((resolve) => decoy.listen(0, '127.0.0.1', resolve));
    const c = new RawConnection(kafka.gateway.port);
    try {
      const url = urlOf((await sign(WRITER)()).value);
      const moved = tokenOf(`http://127.0.0.1:${(decoy.address() as AddressInfo).port}/?${url.searchParams}`);
      expect((await c.authenticate(initialResponse(moved)))?.errorCode).toBe(58);
      expect(hits).toEqual([]);
      expect(sts.requests).toEqual([]);
    } finally {
      c.destroy();
      await new Promise<void>((resolve) => decoy.close(() => resolve()));
    }
  });

  it('closes the connection at an unauthenticated Metadata request, without an answer or a write', async () => {
    const before = await storedState();
    const c = new RawConnection(kafka.gateway.port);
    try {
      const versions = await c.send<{ errorCode: number; apiKeys: { apiKey: number }[] }>(ApiKey.ApiVersions, 2, {});
      expect(versions!.apiKeys.map((k) => k.apiKey)).toEqual(expect.arrayContaining([ApiKey.SaslHandshake, ApiKey.SaslAuthenticate]));
      expect(await c.metadata()).toBeUndefined();
      expect(await c.isClosedSoon()).toBe(true);
    } finally {
      c.destroy();
    }
    expect(await storedState()).toEqual(before);
  });

  it('refuses an unknown mechanism and a SaslAuthenticate without handshake, closing the connection', async () => {
    const plain = new RawConnection(kafka.gateway.port);
    try {
      expect(await plain.send(ApiKey.SaslHandshake, 1, { mechanism: 'PLAIN' })).toEqual({ errorCode: 33, mechanisms: ['OAUTHBEARER'] });
      expect(await plain.isClosedSoon()).toBe(true);
    } finally {
      plain.destroy();
    }
    const early = new RawConnection(kafka.gateway.port);
    try {
      const answer = await early.send<{ errorCode: number; errorMessage: string }>(ApiKey.SaslAuthenticate, 0, { authBytes: initialResponse((await sign(WRITER)()).value) });
      expect(answer).toMatchObject({ errorCode: 34, errorMessage: expect.stringMatching(/needs a successful SaslHandshake first/) });
      expect(await early.isClosedSoon()).toBe(true);
    } finally {
      early.destroy();
    }
  });

  it('ends the session when the token expires: a request after it closes the connection', async () => {
    const c = new RawConnection(kafka.gateway.port);
    try {
      expect((await c.authenticate(initialResponse((await sign(WRITER, { tokenLifetimeSeconds: 60 })()).value), 0))?.errorCode).toBe(0);
      expect(await c.metadata()).toBeDefined();
      clockOffsetMs = 61_000;
      expect(await c.metadata()).toBeUndefined();
      expect(await c.isClosedSoon()).toBe(true);
    } finally {
      c.destroy();
    }
  });

  it('re-authenticates a connection before its session ends, and never as someone else', async () => {
    const c = new RawConnection(kafka.gateway.port);
    try {
      expect((await c.authenticate(initialResponse((await sign(WRITER, { tokenLifetimeSeconds: 60 })()).value)))?.errorCode).toBe(0);
      clockOffsetMs = 50_000;
      const renewed = await c.authenticate(initialResponse((await sign(WRITER)()).value));
      expect(renewed?.errorCode).toBe(0);
      clockOffsetMs = 61_000; // past the first token, inside the second
      expect((await c.metadata())!.topics).toHaveLength(1);
      const other = await c.authenticate(initialResponse((await sign(READER)()).value));
      expect(other).toMatchObject({ errorCode: 58, errorMessage: expect.stringMatching(/re-authentication cannot change the principal/) });
      expect(await c.isClosedSoon()).toBe(true);
    } finally {
      c.destroy();
    }
  });
});

describe('closing the gateway with a grace period', () => {
  it('answers the authentication in flight, then closes its connection and refuses new ones', async () => {
    const ctx = await createTestContext();
    const gateway = await startTestGateway({
      ctx,
      saslMechanisms: [new IamOAuthBearerAuthenticator({ gatewayId: GATEWAY_ID, stsEndpoint: sts.endpoint })],
    });
    const c = new RawConnection(gateway.gateway.port);
    sts.delayMs = 300;
    try {
      const handshake = await c.send(ApiKey.SaslHandshake, 1, { mechanism: 'OAUTHBEARER' });
      expect(handshake).toMatchObject({ errorCode: 0 });
      const answer = c.send<{ errorCode: number }>(ApiKey.SaslAuthenticate, 1, { authBytes: initialResponse((await sign(WRITER)()).value) });
      while (sts.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const closed = gateway.gateway.close({ gracePeriodMs: 5000 });
      expect(await answer).toMatchObject({ errorCode: 0 });
      expect(await c.isClosedSoon()).toBe(true);
      await closed;
      const late = connect(gateway.gateway.port, '127.0.0.1');
      await expect(new Promise((resolve, reject) => late.once('connect', resolve).once('error', reject))).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      sts.delayMs = 0;
      c.destroy();
      await gateway.close();
    }
  });
});
