// The gateway's framing and error answers, over raw sockets: pipelined responses in request order,
// oversized and unreadable frames close the connection, unknown APIs and versions get
// UNSUPPORTED_VERSION, the ApiVersions fallback is exactly what librdkafka and Java clients
// retry on, and idle connections are closed.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { KafkaCall } from '../../lib/kafka/api-handler.js';
import { apiVersionsApi } from '../../lib/kafka/apis/api-versions.js';
import { metadataApi } from '../../lib/kafka/apis/metadata.js';
import { KAFKA_APIS } from '../../lib/kafka/apis/index.js';
import { decodeExactly } from '../../lib/kafka/protocol/codec.js';
import { ApiKey, ApiVersionsResponseSchema, MetadataResponseSchema, type ApiVersionsResponse, type MetadataResponse } from '../../lib/kafka/protocol/messages.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { RawClient, requestFrame, sizedFrame } from './raw-client.js';
import { startTestGateway, type TestGateway } from './support.js';

let kafka: TestGateway;

beforeAll(async () => {
  kafka = await startTestGateway({ socketRequestMaxBytes: 4096 });
  await createTopic(kafka.ctx, 'orders', 2, {});
});
afterAll(() => kafka.close());

async function client(gateway = kafka): Promise<RawClient> {
  return RawClient.connect(gateway.gateway.port);
}

function correlationOf(frame: Buffer): number {
  return frame.readInt32BE(0);
}

describe('framing and order', () => {
  it('answers pipelined requests in request order, even when a later one finishes first', async () => {
    const c = await client();
    // Metadata reads DynamoDB; ApiVersions answers at once, so it finishes first.
    const frames = [
      requestFrame(ApiKey.Metadata, 4, 1, { topics: null, allowAutoTopicCreation: false }),
      requestFrame(ApiKey.ApiVersions, 2, 2, {}),
      requestFrame(ApiKey.Metadata, 1, 3, { topics: [{ name: 'orders' }] }),
      requestFrame(ApiKey.ApiVersions, 0, 4, {}),
    ];
    c.write(Buffer.concat(frames));
    const got = [];
    for (let i = 0; i < frames.length; i++) got.push(correlationOf((await c.readFrame())!));
    expect(got).toEqual([1, 2, 3, 4]);
    c.close();
  });

  it('reads a request split into single bytes', async () => {
    const c = await client();
    const frame = requestFrame(ApiKey.ApiVersions, 1, 9, {});
    for (const b of frame) c.write(Buffer.from([b]));
    const response = (await c.readFrame())!;
    expect(correlationOf(response)).toBe(9);
    c.close();
  });

  it('closes the connection on a frame over socket.request.max.bytes, writing nothing', async () => {
    const c = await client();
    const size = Buffer.alloc(4);
    size.writeInt32BE(4097);
    c.write(size);
    await c.closed;
    expect(c.pendingBytes).toBe(0);
  });

  it('closes the connection on a negative size and on a frame too short for a header', async () => {
    for (const payload of [Buffer.from([0xff, 0xff, 0xff, 0xfe]), sizedFrame(Buffer.from([0, 3, 0]))]) {
      const c = await client();
      c.write(payload);
      await c.closed;
      expect(c.pendingBytes).toBe(0);
    }
  });

  it('answers requests before a broken frame, then closes', async () => {
    const c = await client();
    c.write(Buffer.concat([requestFrame(ApiKey.ApiVersions, 2, 5, {}), sizedFrame(Buffer.from([0, 18]))]));
    expect(correlationOf((await c.readFrame())!)).toBe(5);
    expect(await c.readFrame()).toBeUndefined();
  });
});

describe('unsupported APIs and versions', () => {
  it('answers an API key without a handler with a v0 header and UNSUPPORTED_VERSION', async () => {
    const c = await client();
    const header = Buffer.alloc(8 + 2 + 3);
    header.writeInt16BE(999, 0);
    header.writeInt16BE(0, 2);
    header.writeInt32BE(31, 4);
    header.writeInt16BE(3, 8);
    header.write('raw', 10);
    c.write(sizedFrame(header));
    const response = (await c.readFrame())!;
    expect(response.readInt32BE(0)).toBe(31);
    expect(response.readInt16BE(4)).toBe(35);
    expect(response.length).toBe(6);
    c.close();
  });

  it('answers a version beyond the definitions with UNSUPPORTED_VERSION', async () => {
    const c = await client();
    const header = Buffer.alloc(10);
    header.writeInt16BE(ApiKey.Metadata, 0);
    header.writeInt16BE(99, 2);
    header.writeInt32BE(32, 4);
    header.writeInt16BE(-1, 8);
    c.write(sizedFrame(header));
    const response = (await c.readFrame())!;
    expect([response.readInt32BE(0), response.readInt16BE(4)]).toEqual([32, 35]);
    c.close();
  });

  it("answers a version outside the handler's range with UNSUPPORTED_VERSION for every topic", async () => {
    const limited = await startTestGateway({ ctx: kafka.ctx, apis: [apiVersionsApi, { ...metadataApi, maxVersion: 4 }] });
    try {
      const c = await client(limited);
      c.write(requestFrame(ApiKey.Metadata, 5, 40, { topics: [{ name: 'orders' }], allowAutoTopicCreation: false }));
      const response = (await c.readFrame())!;
      expect(correlationOf(response)).toBe(40);
      const body = decodeExactly<MetadataResponse>(MetadataResponseSchema, 5, response.subarray(4));
      expect(body.topics).toEqual([expect.objectContaining({ errorCode: 35, name: 'orders' })]);
      c.close();
    } finally {
      await limited.close();
    }
  });

  it('answers a body that does not decode with INVALID_REQUEST where the response has an error field', async () => {
    const c = await client();
    // ApiVersions v2 has an empty body: a trailing byte makes it malformed.
    const frame = requestFrame(ApiKey.ApiVersions, 2, 41, {});
    const longer = sizedFrame(Buffer.concat([frame.subarray(4), Buffer.from([7])]));
    c.write(longer);
    const response = (await c.readFrame())!;
    expect(correlationOf(response)).toBe(41);
    expect(decodeExactly<ApiVersionsResponse>(ApiVersionsResponseSchema, 2, response.subarray(4)).errorCode).toBe(42);
    c.close();
  });
});

describe('ApiVersions', () => {
  it('lists exactly the registered APIs, each from version 0', async () => {
    const c = await client();
    c.write(requestFrame(ApiKey.ApiVersions, 2, 50, {}));
    const response = (await c.readFrame())!;
    const body = decodeExactly<ApiVersionsResponse>(ApiVersionsResponseSchema, 2, response.subarray(4));
    expect(body.errorCode).toBe(0);
    expect(body.apiKeys).toEqual(
      KAFKA_APIS.map((a) => ({ apiKey: a.apiKey, minVersion: 0, maxVersion: a.maxVersion })).sort((a, b) => a.apiKey - b.apiKey),
    );
    c.close();
  });

  it('v3 (flexible) is answered with a v0 response header and a flexible body', async () => {
    const c = await client();
    c.write(requestFrame(ApiKey.ApiVersions, 3, 51, { clientSoftwareName: 'librdkafka', clientSoftwareVersion: '2.0.2' }));
    const response = (await c.readFrame())!;
    expect(correlationOf(response)).toBe(51);
    // No header tagged-fields byte: the body starts right after the correlation id.
    const body = decodeExactly<ApiVersionsResponse>(ApiVersionsResponseSchema, 3, response.subarray(4));
    expect(body.apiKeys!.map((k) => k.apiKey)).toContain(ApiKey.Metadata);
    c.close();
  });

  it('answers a version it does not serve with the v0 fallback: error 35 and ApiVersions 0-3', async () => {
    const c = await client();
    // v4, as the Java client sends first (a flexible request: header v2).
    c.write(requestFrame(ApiKey.ApiVersions, 4, 52, { clientSoftwareName: 'apache-kafka-java', clientSoftwareVersion: '4.0.0' }));
    const response = (await c.readFrame())!;
    expect([...response]).toEqual([
      0, 0, 0, 52, // correlation id, v0 header
      0, 35, // UNSUPPORTED_VERSION
      0, 0, 0, 1, // one entry (v0: int32 count)
      0, 18, 0, 0, 0, 3, // ApiVersions 0-3
    ]);
    // The same connection goes on: the client retries with v3.
    c.write(requestFrame(ApiKey.ApiVersions, 3, 53, { clientSoftwareName: 'apache-kafka-java', clientSoftwareVersion: '4.0.0' }));
    expect(correlationOf((await c.readFrame())!)).toBe(53);
    c.close();
  });
});

describe('handler calls', () => {
  it('calls handlers in arrival order, runs them concurrently, and serially() keeps a lane in order', async () => {
    // A Heartbeat handler standing in for one that needs arrival order (Produce): the first
    // request takes longest, so only ordering by the connection keeps the lane in order.
    const started: number[] = [];
    const laneFinished: number[] = [];
    let running = 0;
    let maxRunning = 0;
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const heartbeat = {
      apiKey: ApiKey.Heartbeat,
      name: 'Heartbeat',
      minVersion: 0,
      maxVersion: 3,
      async handle(request: { generationId: number }, call: KafkaCall) {
        started.push(request.generationId);
        const work = async () => {
          running++;
          maxRunning = Math.max(maxRunning, running);
          await sleep(50 - request.generationId * 10);
          running--;
          if (request.generationId % 2 === 0) laneFinished.push(request.generationId);
          return { errorCode: 0 };
        };
        // Even ones in one lane, taken before the first await; odd ones run freely.
        return request.generationId % 2 === 0 ? call.connection.serially('even', work) : work();
      },
    };
    const custom = await startTestGateway({ ctx: kafka.ctx, apis: [apiVersionsApi, heartbeat] });
    try {
      const c = await client(custom);
      const ids = [0, 1, 2, 3, 4];
      c.write(Buffer.concat(ids.map((g) => requestFrame(ApiKey.Heartbeat, 3, 100 + g, { groupId: 'g', generationId: g, memberId: 'm', groupInstanceId: null }))));
      const got = [];
      for (const _ of ids) got.push(correlationOf((await c.readFrame())!));
      expect(got).toEqual([100, 101, 102, 103, 104]);
      expect(started).toEqual(ids);
      expect(maxRunning).toBeGreaterThan(1);
      expect(laneFinished).toEqual([0, 2, 4]); // 0 sleeps longest, yet its lane kept the arrival order
      c.close();
    } finally {
      await custom.close();
    }
  });
});

describe('connections', () => {
  it('closes a connection idle for connections.max.idle.ms', async () => {
    const idle = await startTestGateway({ ctx: kafka.ctx, connectionsMaxIdleMs: 300 });
    try {
      const c = await client(idle);
      c.write(requestFrame(ApiKey.ApiVersions, 1, 60, {}));
      expect(correlationOf((await c.readFrame())!)).toBe(60);
      const started = Date.now();
      await c.closed;
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      await vi.waitFor(() => expect(idle.gateway.stats().connections).toBe(0));
    } finally {
      await idle.close();
    }
  });

  it('counts requests, errors and connections per API', async () => {
    const fresh = await startTestGateway({ ctx: kafka.ctx });
    try {
      const c = await client(fresh);
      c.write(requestFrame(ApiKey.ApiVersions, 2, 70, {}));
      await c.readFrame();
      c.write(requestFrame(ApiKey.ApiVersions, 4, 71, { clientSoftwareName: 'x', clientSoftwareVersion: '1' }));
      await c.readFrame();
      c.write(requestFrame(ApiKey.Metadata, 4, 72, { topics: [{ name: 'orders' }], allowAutoTopicCreation: false }));
      await c.readFrame();
      const stats = fresh.gateway.stats();
      expect(stats.connections).toBe(1);
      expect(stats.apis.ApiVersions).toMatchObject({ requests: 2, errors: 1 });
      expect(stats.apis.Metadata).toMatchObject({ requests: 1, errors: 0 });
      c.close();
    } finally {
      await fresh.close();
    }
  });
});
