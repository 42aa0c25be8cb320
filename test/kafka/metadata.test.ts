// Metadata in every version the gateway serves (0-12; 9+ flexible), over a raw socket: the
// gateway is the only broker, controller and leader; "all topics" is an empty list in v0 and null
// from v1; unknown topics are UNKNOWN_TOPIC_OR_PARTITION and never created; invalid names are
// INVALID_TOPIC_EXCEPTION; topic ids from v10, and topics asked for by id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ByteReader } from '../../lib/kafka/protocol/byte-reader.js';
import { decodeExactly, decodeMessage, ZERO_UUID } from '../../lib/kafka/protocol/codec.js';
import { responseHeaderVersion } from '../../lib/kafka/protocol/headers.js';
import { ApiKey, MetadataResponseSchema, ResponseHeaderSchema, type MetadataRequest, type MetadataResponse } from '../../lib/kafka/protocol/messages.js';
import { topicUuid } from '../../lib/kafka/topic-id.js';
import { createTopic, getTopic, type TopicMetadata } from '../../lib/metadata/topics.js';
import { RawClient, requestFrame } from './raw-client.js';
import { startTestGateway, type TestGateway } from './support.js';

let kafka: TestGateway;
let client: RawClient;
let orders: TopicMetadata;
let correlationId = 0;

beforeAll(async () => {
  kafka = await startTestGateway({ advertisedHost: 'gateway.example', advertisedPort: 19092, nodeId: 7 });
  orders = await createTopic(kafka.ctx, 'orders', 3, {});
  await createTopic(kafka.ctx, 'payments', 1, {});
  client = await RawClient.connect(kafka.gateway.port);
});
afterAll(async () => {
  client.close();
  await kafka.close();
});

async function metadata(version: number, request: Partial<MetadataRequest>): Promise<MetadataResponse> {
  const id = ++correlationId;
  client.write(requestFrame(ApiKey.Metadata, version, id, request));
  const frame = (await client.readFrame())!;
  const reader = new ByteReader(frame);
  const header = decodeMessage<{ correlationId: number }>(ResponseHeaderSchema, responseHeaderVersion(ApiKey.Metadata, version), reader);
  expect(header.correlationId).toBe(id);
  return decodeExactly<MetadataResponse>(MetadataResponseSchema, version, frame.subarray(reader.position));
}

const names = (r: MetadataResponse) => r.topics!.map((t) => t.name).sort();

describe('Metadata, every version', () => {
  for (let version = 0; version <= 12; version++) {
    it(`v${version}`, async () => {
      const r = await metadata(version, { topics: [{ name: 'orders', topicId: ZERO_UUID }], allowAutoTopicCreation: true });
      expect(r.brokers).toEqual([{ nodeId: 7, host: 'gateway.example', port: 19092, rack: null }]);
      if (version >= 1) expect(r.controllerId).toBe(7);
      if (version >= 2) expect(r.clusterId).toBe(kafka.gateway.services.clusterId);
      expect(r.topics).toHaveLength(1);
      const t = r.topics![0]!;
      expect(t).toMatchObject({ errorCode: 0, name: 'orders', isInternal: false });
      expect(t.topicId).toBe(version >= 10 ? topicUuid(orders.id) : ZERO_UUID);
      expect(t.partitions).toEqual(
        [0, 1, 2].map((p) => ({
          errorCode: 0,
          partitionIndex: p,
          leaderId: 7,
          leaderEpoch: version >= 7 ? 0 : -1,
          replicaNodes: [7],
          isrNodes: [7],
          offlineReplicas: [],
        })),
      );
      // Every topic: an empty list in v0, null from v1 (where an empty list means none).
      expect(names(await metadata(version, { topics: version === 0 ? [] : null }))).toEqual(['orders', 'payments']);
      if (version >= 1) expect(await metadata(version, { topics: [] })).toMatchObject({ topics: [] });
    });
  }
});

describe('Metadata errors', () => {
  it('an unknown topic is UNKNOWN_TOPIC_OR_PARTITION and is not created, whatever allowAutoTopicCreation says', async () => {
    const r = await metadata(6, { topics: [{ name: 'missing', topicId: ZERO_UUID }, { name: 'orders', topicId: ZERO_UUID }], allowAutoTopicCreation: true });
    expect(r.topics!.map((t) => [t.name, t.errorCode])).toEqual([['missing', 3], ['orders', 0]]);
    expect(await getTopic(kafka.ctx, 'missing')).toBeUndefined();
  });

  it('an invalid name is INVALID_TOPIC_EXCEPTION', async () => {
    const r = await metadata(4, { topics: [{ name: 'bad name!', topicId: ZERO_UUID }, { name: 'x'.repeat(300), topicId: ZERO_UUID }] });
    expect(r.topics!.map((t) => t.errorCode)).toEqual([17, 17]);
  });

  it('v10+ finds a topic by id, and an unknown id is UNKNOWN_TOPIC_ID', async () => {
    const r = await metadata(12, { topics: [{ name: null, topicId: topicUuid(orders.id) }, { name: null, topicId: '0123e456-e89b-12d3-a456-426614174000' }] });
    expect(r.topics!.map((t) => [t.name, t.errorCode])).toEqual([['orders', 0], [null, 100]]);
  });

  it('many names at once are answered from one listing', async () => {
    const many = Array.from({ length: 20 }, (_, i) => ({ name: i % 2 ? 'orders' : `missing-${i}`, topicId: ZERO_UUID }));
    const r = await metadata(5, { topics: many });
    expect(r.topics!.map((t) => t.errorCode)).toEqual(many.map((t) => (t.name === 'orders' ? 0 : 3)));
  });
});
