// The codec against a real client's bytes: kafkajs 2.2.4's own request encoders produce the
// frames our decoder reads (and our encoder reproduces byte for byte), and kafkajs's response
// decoders read what our encoder writes.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { ByteReader } from '../../lib/kafka/protocol/byte-reader.js';
import { decodeExactly, encodeToBuffer } from '../../lib/kafka/protocol/codec.js';
import { decodeRequestHeader, encodeRequestHeader } from '../../lib/kafka/protocol/headers.js';
import { API_SCHEMAS, ApiKey } from '../../lib/kafka/protocol/messages.js';

const require = createRequire(import.meta.url);

interface KafkajsRequest {
  apiKey: number;
  apiVersion: number;
  encode(): Promise<{ buffer: Buffer }>;
}

/** The whole frame kafkajs would send for `api` at `version` with `args`. */
async function kafkajsFrame(api: string, version: number, args: object): Promise<{ frame: Buffer; request: KafkajsRequest }> {
  const { versions } = require(`kafkajs/src/protocol/requests/${api}/index.js`) as {
    versions: never;
  };
  const request = (require(`kafkajs/src/protocol/requests/${api}/index.js`) as { protocol: (o: { version: number }) => (a: object) => { request: KafkajsRequest } })
    .protocol({ version })(args).request;
  void versions;
  const createRequest = require('kafkajs/src/protocol/request.js') as (o: object) => Promise<{ buffer: Buffer }>;
  const encoded = await createRequest({ correlationId: 77, clientId: 'golden', request });
  return { frame: encoded.buffer, request };
}

/** Decodes a kafkajs frame with our codec and checks our encoder gives back the same bytes. */
async function decodeKafkajs(api: string, version: number, args: object): Promise<Record<string, unknown>> {
  const { frame, request } = await kafkajsFrame(api, version, args);
  expect(frame.readInt32BE(0)).toBe(frame.length - 4);
  const reader = new ByteReader(frame, 4);
  const header = decodeRequestHeader(reader);
  expect(header).toEqual({ requestApiKey: request.apiKey, requestApiVersion: version, correlationId: 77, clientId: 'golden' });
  const schema = API_SCHEMAS.get(request.apiKey)!.request;
  const body = frame.subarray(reader.position);
  const decoded = decodeExactly<Record<string, unknown>>(schema, version, body);
  const again = Buffer.concat([encodeRequestHeader(header).toBuffer(), encodeToBuffer(schema, version, decoded)]);
  expect(again.equals(frame.subarray(4))).toBe(true);
  return decoded;
}

/** Our encoding of a response, read by kafkajs's decoder for that API and version. */
async function kafkajsDecodes(api: string, version: number, apiKey: number, response: object): Promise<Record<string, unknown>> {
  const body = encodeToBuffer(API_SCHEMAS.get(apiKey)!.response, version, response);
  const decoder = require(`kafkajs/src/protocol/requests/${api}/v${version}/response.js`) as { decode(b: Buffer): Promise<Record<string, unknown>> };
  return decoder.decode(body);
}

describe('requests kafkajs encodes, our codec decodes (and re-encodes to the same bytes)', () => {
  it('Metadata v0-v6', async () => {
    for (let v = 0; v <= 6; v++) {
      const m = await decodeKafkajs('metadata', v, { topics: ['orders', 'payments'], allowAutoTopicCreation: false });
      expect((m.topics as { name: string }[]).map((t) => t.name)).toEqual(['orders', 'payments']);
      expect(m.allowAutoTopicCreation).toBe(v >= 4 ? false : true); // the default where the version has none
    }
    // kafkajs writes an empty nullable array as null: "every topic" from v1 on.
    expect((await decodeKafkajs('metadata', 1, { topics: [] })).topics).toBeNull();
    expect((await decodeKafkajs('metadata', 0, { topics: [] })).topics).toEqual([]);
  });

  it('ApiVersions v0-v2', async () => {
    for (let v = 0; v <= 2; v++) expect(await decodeKafkajs('apiVersions', v, {})).toEqual({ clientSoftwareName: '', clientSoftwareVersion: '' });
  });

  it('Produce v3 and v7 carry the record batch bytes whole', async () => {
    for (const v of [3, 7]) {
      const p = await decodeKafkajs('produce', v, {
        acks: -1,
        timeout: 30000,
        topicData: [{ topic: 'orders', partitions: [{ partition: 2, messages: [{ key: 'k', value: 'v', timestamp: 1700000000000 }] }] }],
      });
      expect(p).toMatchObject({ transactionalId: null, acks: -1, timeoutMs: 30000 });
      const partition = (p.topicData as { name: string; partitionData: { index: number; records: Buffer }[] }[])[0]!;
      expect(partition.name).toBe('orders');
      expect(partition.partitionData[0]!.index).toBe(2);
      const records = partition.partitionData[0]!.records;
      expect(records.readInt8(16)).toBe(2); // RecordBatch magic
      expect(records.readInt32BE(57)).toBe(1); // record count
    }
  });

  it('Fetch v4 and v11', async () => {
    for (const v of [4, 11]) {
      const f = await decodeKafkajs('fetch', v, {
        replicaId: -1, maxWaitTime: 500, minBytes: 1, maxBytes: 1048576, isolationLevel: 0,
        topics: [{ topic: 'orders', partitions: [{ partition: 0, fetchOffset: '42', maxBytes: 65536, currentLeaderEpoch: -1, logStartOffset: '-1' }] }],
      });
      expect(f).toMatchObject({ replicaId: -1, maxWaitMs: 500, minBytes: 1, maxBytes: 1048576, isolationLevel: 0 });
      const part = (f.topics as { topic: string; partitions: { partition: number; fetchOffset: bigint }[] }[])[0]!;
      expect(part.topic).toBe('orders');
      expect(part.partitions[0]).toMatchObject({ partition: 0, fetchOffset: 42n, partitionMaxBytes: 65536 });
      if (v === 11) expect(f.rackId).toBe('');
      else expect(f.sessionEpoch).toBe(-1); // the default of a field v4 lacks
    }
  });

  it('ListOffsets v2-v3, FindCoordinator v0-v2, InitProducerId v0-v1', async () => {
    const l = await decodeKafkajs('listOffsets', 3, { replicaId: -1, isolationLevel: 1, topics: [{ topic: 'orders', partitions: [{ partition: 1, timestamp: '-2' }] }] });
    expect(l).toMatchObject({ replicaId: -1, isolationLevel: 1, topics: [{ name: 'orders', partitions: [{ partitionIndex: 1, timestamp: -2n, currentLeaderEpoch: -1 }] }] });
    for (let v = 0; v <= 2; v++) expect(await decodeKafkajs('findCoordinator', v, { groupId: 'g1', coordinatorType: 0 })).toMatchObject({ key: 'g1', keyType: 0 });
    for (let v = 0; v <= 1; v++) expect(await decodeKafkajs('initProducerId', v, { transactionalId: null, transactionTimeout: 60000 })).toMatchObject({ transactionalId: null, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1 });
  });

  it('the group APIs', async () => {
    const j = await decodeKafkajs('joinGroup', 5, {
      groupId: 'g1', sessionTimeout: 30000, rebalanceTimeout: 60000, memberId: '', groupInstanceId: null, protocolType: 'consumer',
      groupProtocols: [{ name: 'RoundRobinAssigner', metadata: Buffer.from([0, 1, 2]) }],
    });
    expect(j).toMatchObject({ groupId: 'g1', sessionTimeoutMs: 30000, rebalanceTimeoutMs: 60000, memberId: '', groupInstanceId: null, protocolType: 'consumer' });
    expect((j.protocols as { name: string; metadata: Buffer }[])[0]!.metadata).toEqual(Buffer.from([0, 1, 2]));
    const s = await decodeKafkajs('syncGroup', 3, { groupId: 'g1', generationId: 4, memberId: 'm1', groupInstanceId: null, groupAssignment: [{ memberId: 'm1', memberAssignment: Buffer.from('a') }] });
    expect(s).toMatchObject({ groupId: 'g1', generationId: 4, memberId: 'm1', assignments: [{ memberId: 'm1', assignment: Buffer.from('a') }] });
    expect(await decodeKafkajs('heartbeat', 3, { groupId: 'g1', groupGenerationId: 4, memberId: 'm1', groupInstanceId: null })).toMatchObject({ groupId: 'g1', generationId: 4, memberId: 'm1' });
    expect(await decodeKafkajs('leaveGroup', 1, { groupId: 'g1', memberId: 'm1' })).toMatchObject({ groupId: 'g1', memberId: 'm1', members: [] });
    const c = await decodeKafkajs('offsetCommit', 5, { groupId: 'g1', groupGenerationId: 4, memberId: 'm1', topics: [{ topic: 'orders', partitions: [{ partition: 0, offset: '10' }] }] });
    expect(c).toMatchObject({ groupId: 'g1', generationIdOrMemberEpoch: 4, retentionTimeMs: -1n, topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 10n }] }] });
    expect(await decodeKafkajs('offsetFetch', 4, { groupId: 'g1', topics: [{ topic: 'orders', partitions: [{ partition: 0 }] }] })).toMatchObject({ groupId: 'g1', topics: [{ name: 'orders', partitionIndexes: [0] }] });
    expect(await decodeKafkajs('listGroups', 2, {})).toEqual({ statesFilter: [], typesFilter: [] });
    expect(await decodeKafkajs('describeGroups', 2, { groupIds: ['g1', 'g2'] })).toMatchObject({ groups: ['g1', 'g2'] });
  });

  it('the admin APIs', async () => {
    const t = await decodeKafkajs('createTopics', 3, {
      topics: [{ topic: 'orders', numPartitions: 3, replicationFactor: 1, configEntries: [{ name: 'retention.ms', value: '1000' }] }], timeout: 5000, validateOnly: false,
    });
    expect(t).toMatchObject({ timeoutMs: 5000, validateOnly: false, topics: [{ name: 'orders', numPartitions: 3, replicationFactor: 1, assignments: [], configs: [{ name: 'retention.ms', value: '1000' }] }] });
    expect(await decodeKafkajs('deleteTopics', 1, { topics: ['orders'], timeout: 5000 })).toMatchObject({ topicNames: ['orders'], timeoutMs: 5000 });
    expect(await decodeKafkajs('createPartitions', 1, { topicPartitions: [{ topic: 'orders', count: 6 }], timeout: 5000, validateOnly: false })).toMatchObject({ topics: [{ name: 'orders', count: 6, assignments: null }] });
    expect(await decodeKafkajs('describeConfigs', 2, { resources: [{ type: 2, name: 'orders', configNames: [] }], includeSynonyms: false })).toMatchObject({ resources: [{ resourceType: 2, resourceName: 'orders', configurationKeys: null }] });
    expect(await decodeKafkajs('alterConfigs', 1, { resources: [{ type: 2, name: 'orders', configEntries: [{ name: 'retention.ms', value: '5' }] }], validateOnly: false })).toMatchObject({ resources: [{ resourceType: 2, resourceName: 'orders', configs: [{ name: 'retention.ms', value: '5' }] }] });
    expect(await decodeKafkajs('saslHandshake', 1, { mechanism: 'PLAIN' })).toEqual({ mechanism: 'PLAIN' });
    // kafkajs's SASL mechanisms hand SaslAuthenticate their token already length-prefixed.
    const token = Buffer.from('\0u\0p');
    const authBytes = Buffer.concat([Buffer.from([0, 0, 0, token.length]), token]);
    expect(await decodeKafkajs('saslAuthenticate', 1, { authBytes })).toEqual({ authBytes: token });
  });
});

describe('responses our codec encodes, kafkajs decodes', () => {
  it('ApiVersions v0-v2', async () => {
    for (let v = 0; v <= 2; v++) {
      const r = await kafkajsDecodes('apiVersions', v, ApiKey.ApiVersions, { apiKeys: [{ apiKey: 3, minVersion: 0, maxVersion: 12 }], throttleTimeMs: 0 });
      expect(r).toMatchObject({ errorCode: 0, apiVersions: [{ apiKey: 3, minVersion: 0, maxVersion: 12 }] });
    }
  });

  it('Metadata v0-v6', async () => {
    for (let v = 0; v <= 6; v++) {
      const r = await kafkajsDecodes('metadata', v, ApiKey.Metadata, {
        brokers: [{ nodeId: 0, host: 'gw', port: 9092 }],
        clusterId: 'c1',
        controllerId: 0,
        topics: [{ errorCode: 0, name: 'orders', partitions: [{ partitionIndex: 0, leaderId: 0, replicaNodes: [0], isrNodes: [0] }] }],
      });
      expect(r.brokers).toEqual([v >= 1 ? { nodeId: 0, host: 'gw', port: 9092, rack: null } : { nodeId: 0, host: 'gw', port: 9092 }]);
      expect(r.topicMetadata).toMatchObject([{ topicErrorCode: 0, topic: 'orders', partitionMetadata: [{ partitionErrorCode: 0, partitionId: 0, leader: 0, replicas: [0], isr: [0] }] }]);
      if (v >= 2) expect(r.clusterId).toBe('c1');
    }
  });

  it('Produce v7 and FindCoordinator v2', async () => {
    const p = await kafkajsDecodes('produce', 7, ApiKey.Produce, {
      responses: [{ name: 'orders', partitionResponses: [{ index: 1, errorCode: 0, baseOffset: 41n, logAppendTimeMs: -1n, logStartOffset: 0n }] }],
    });
    expect(p.topics).toEqual([{ topicName: 'orders', partitions: [{ partition: 1, errorCode: 0, baseOffset: '41', logAppendTime: '-1', logStartOffset: '0' }] }]);
    const f = await kafkajsDecodes('findCoordinator', 2, ApiKey.FindCoordinator, { errorCode: 0, errorMessage: null, nodeId: 0, host: 'gw', port: 9092 });
    expect(f).toMatchObject({ errorCode: 0, coordinator: { nodeId: 0, host: 'gw', port: 9092 } });
  });
});
