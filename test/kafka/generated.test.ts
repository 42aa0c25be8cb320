// lib/kafka/protocol/messages.ts is what the generator makes of the vendored definitions.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generate, OUTPUT_FILE, readDefinitions, stripComments } from '../../scripts/generate-kafka-protocol.js';
import { API_SCHEMAS, ApiKey, ProduceRequestSchema } from '../../lib/kafka/protocol/messages.js';

describe('generated Kafka messages', () => {
  it('are up to date with the definitions (run npm run generate:kafka)', () => {
    expect(readFileSync(OUTPUT_FILE, 'utf8')).toBe(generate());
  });

  it('cover every API the gateway is to serve, request and response', () => {
    const names = readDefinitions().map((m) => m.name);
    for (const api of ['ApiVersions', 'Metadata', 'Produce', 'Fetch', 'ListOffsets', 'FindCoordinator', 'JoinGroup', 'SyncGroup',
      'Heartbeat', 'LeaveGroup', 'OffsetCommit', 'OffsetFetch', 'ListGroups', 'DescribeGroups', 'CreateTopics', 'DeleteTopics',
      'CreatePartitions', 'DescribeConfigs', 'AlterConfigs', 'IncrementalAlterConfigs', 'InitProducerId', 'SaslHandshake',
      'SaslAuthenticate']) {
      expect(names).toContain(`${api}Request`);
      expect(names).toContain(`${api}Response`);
      expect(API_SCHEMAS.get(ApiKey[api as keyof typeof ApiKey])?.name).toBe(api);
    }
    expect(names).toEqual(expect.arrayContaining(['RequestHeader', 'ResponseHeader']));
  });

  it('name fields as the JSON does with a lowercase first letter', () => {
    expect(ProduceRequestSchema.fields.map((f) => f.name)).toEqual(['transactionalId', 'acks', 'timeoutMs', 'topicData']);
  });

  it('strip // comments but not // inside strings', () => {
    expect(JSON.parse(stripComments('{ "a": "http://x" // note\n, "b": 1 }'))).toEqual({ a: 'http://x', b: 1 });
  });
});
