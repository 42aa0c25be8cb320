// Topic configs through the gateway with kafkajs's admin client: describeConfigs (values, sources,
// synonyms; the broker's fixed defaults), alterConfigs (Kafka's whole-set replacement: keys not
// listed revert to their defaults) seen by the HTTP API's describe, a bad value refused whole, and
// IncrementalAlterConfigs (which kafkajs does not send) encoded by hand with the gateway's codec.
import { type Admin, ConfigResourceTypes, ConfigSource } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey, type DescribeConfigsResponse, type IncrementalAlterConfigsRequest, type IncrementalAlterConfigsResponse } from '../../lib/kafka/protocol/messages.js';
import { call } from '../api/call.js';
import { rawCall } from './raw-call.js';
import { DEFAULT_TOPIC_CONFIG, getTopic } from '../../lib/metadata/topics.js';
import { startTestGateway, type TestGateway } from './support.js';

let kafka: TestGateway;
let admin: Admin;

beforeAll(async () => {
  kafka = await startTestGateway();
  admin = kafka.client().admin();
  await admin.connect();
});
afterAll(async () => {
  await admin.disconnect();
  await kafka.close();
});

const TOPIC = ConfigResourceTypes.TOPIC;

async function rejection(promise: Promise<unknown>): Promise<string | undefined> {
  type E = { errors?: E[]; type?: string; cause?: E };
  const name = (e: E | undefined): string | undefined => (e === undefined ? undefined : (name(e.errors?.[0]) ?? e.type ?? name(e.cause)));
  return promise.then(
    () => undefined,
    (e: E) => name(e) ?? String(e),
  );
}

describe('kafkajs admin: configs', () => {
  it('describeConfigs: every config of a topic with value, source and synonyms; only the names asked for', async () => {
    await admin.createTopics({ topics: [{ topic: 'described', configEntries: [{ name: 'retention.ms', value: '3600000' }] }] });
    const all = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: TOPIC, name: 'described' }] });
    expect(all.resources).toHaveLength(1);
    expect(all.resources[0]).toMatchObject({ errorCode: 0, resourceName: 'described', resourceType: TOPIC });
    expect(all.resources[0].configEntries.map((e) => e.configName).sort()).toEqual(Object.keys(DEFAULT_TOPIC_CONFIG).sort());

    const some = await admin.describeConfigs({ includeSynonyms: true, resources: [{ type: TOPIC, name: 'described', configNames: ['retention.ms', 'segment.bytes'] }] });
    const byName = new Map(some.resources[0].configEntries.map((e) => [e.configName, e]));
    expect([...byName.keys()].sort()).toEqual(['retention.ms', 'segment.bytes']);
    expect(byName.get('retention.ms')).toMatchObject({
      configValue: '3600000',
      isDefault: false,
      readOnly: false,
      isSensitive: false,
      configSource: ConfigSource.TOPIC_CONFIG,
      configSynonyms: [
        { configName: 'retention.ms', configValue: '3600000', configSource: ConfigSource.TOPIC_CONFIG },
        { configName: 'log.retention.ms', configValue: '604800000', configSource: ConfigSource.DEFAULT_CONFIG },
      ],
    });
    expect(byName.get('segment.bytes')).toMatchObject({ configValue: '1073741824', isDefault: true, configSource: ConfigSource.DEFAULT_CONFIG });

    expect(await rejection(admin.describeConfigs({ includeSynonyms: false, resources: [{ type: TOPIC, name: 'missing' }] }))).toBe('UNKNOWN_TOPIC_OR_PARTITION');
  });

  it("describeConfigs of the broker: Sluice's fixed defaults, read-only", async () => {
    const { resources } = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.BROKER, name: '0' }] });
    const byName = new Map(resources[0].configEntries.map((e) => [e.configName, e]));
    expect(byName.get('log.retention.ms')).toMatchObject({ configValue: '604800000', readOnly: true, isDefault: true });
    expect(byName.get('num.partitions')).toMatchObject({ configValue: '1', readOnly: true });
    expect(byName.get('default.replication.factor')).toMatchObject({ configValue: '1' });
  });

  it('alterConfigs replaces the whole set (keys not listed revert to defaults); the HTTP describe shows it; a bad value changes nothing', async () => {
    await admin.createTopics({ topics: [{ topic: 'altered', configEntries: [{ name: 'segment.bytes', value: '4096' }, { name: 'retention.bytes', value: '1000000' }] }] });
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: TOPIC, name: 'altered', configEntries: [{ name: 'retention.ms', value: '60000' }, { name: 'retention.bytes', value: '2000000' }] }] });
    const expected = { ...DEFAULT_TOPIC_CONFIG, 'retention.ms': 60_000, 'retention.bytes': 2_000_000 };
    const http = await call(kafka.ctx, 'GET', '/v1/topics/altered');
    expect(http.body.config).toEqual(expected);

    const before = await getTopic(kafka.ctx, 'altered');
    const bad = admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: TOPIC, name: 'altered', configEntries: [{ name: 'retention.ms', value: '1000' }, { name: 'segment.bytes', value: 'huge' }] }],
    });
    expect(await rejection(bad)).toBe('INVALID_CONFIG');
    const unknown = admin.alterConfigs({ validateOnly: false, resources: [{ type: TOPIC, name: 'altered', configEntries: [{ name: 'retention.hours', value: '1' }] }] });
    expect(await rejection(unknown)).toBe('INVALID_CONFIG');
    await admin.alterConfigs({ validateOnly: true, resources: [{ type: TOPIC, name: 'altered', configEntries: [] }] });
    expect(await getTopic(kafka.ctx, 'altered')).toEqual(before);
    expect((await call(kafka.ctx, 'GET', '/v1/topics/altered')).body.config).toEqual(expected);

    const missing = admin.alterConfigs({ validateOnly: false, resources: [{ type: TOPIC, name: 'missing', configEntries: [{ name: 'retention.ms', value: '1' }] }] });
    expect(await rejection(missing)).toBe('UNKNOWN_TOPIC_OR_PARTITION');
    const broker = admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.BROKER, name: '0', configEntries: [{ name: 'log.retention.ms', value: '1' }] }] });
    expect(await rejection(broker)).toBe('INVALID_REQUEST');
  });
});

/** One IncrementalAlterConfigs request over a raw connection, its response decoded. */
function incrementalAlter(version: number, request: IncrementalAlterConfigsRequest): Promise<IncrementalAlterConfigsResponse> {
  return rawCall(kafka.gateway.port, ApiKey.IncrementalAlterConfigs, version, request);
}

const SET = 0;
const DELETE = 1;
const APPEND = 2;
const SUBTRACT = 3;

describe('IncrementalAlterConfigs (v0 and the flexible v1)', () => {
  it.each([0, 1])('v%i: SET and DELETE change only the keys named; APPEND/SUBTRACT work on the list config cleanup.policy', async (version) => {
    const topic = `incremental-${version}`;
    await admin.createTopics({ topics: [{ topic, configEntries: [{ name: 'segment.bytes', value: '4096' }, { name: 'retention.bytes', value: '1000000' }] }] });
    const alter = (configs: IncrementalAlterConfigsRequest.AlterableConfig[], validateOnly = false) =>
      incrementalAlter(version, { validateOnly, resources: [{ resourceType: TOPIC, resourceName: topic, configs }] });

    const ok = await alter([
      { name: 'retention.ms', configOperation: SET, value: '60000' },
      { name: 'segment.bytes', configOperation: DELETE, value: null },
    ]);
    expect(ok.responses).toEqual([{ errorCode: 0, errorMessage: null, resourceType: TOPIC, resourceName: topic }]);
    expect((await getTopic(kafka.ctx, topic))!.config).toEqual({ ...DEFAULT_TOPIC_CONFIG, 'retention.ms': 60_000, 'retention.bytes': 1_000_000 });

    await alter([{ name: 'cleanup.policy', configOperation: APPEND, value: 'compact' }]);
    expect((await getTopic(kafka.ctx, topic))!.config['cleanup.policy']).toBe('compact,delete');
    await alter([{ name: 'cleanup.policy', configOperation: SUBTRACT, value: 'delete' }]);
    expect((await getTopic(kafka.ctx, topic))!.config['cleanup.policy']).toBe('compact');

    // Refusals: each changes nothing.
    const before = await getTopic(kafka.ctx, topic);
    const code = async (configs: IncrementalAlterConfigsRequest.AlterableConfig[], resourceType = TOPIC, resourceName = topic) =>
      (await incrementalAlter(version, { validateOnly: false, resources: [{ resourceType, resourceName, configs }] })).responses![0].errorCode;
    expect(await code([{ name: 'retention.ms', configOperation: APPEND, value: '1' }])).toBe(42); // INVALID_REQUEST: not a list
    expect(await code([{ name: 'retention.ms', configOperation: SET, value: '1' }, { name: 'segment.ms', configOperation: SET, value: 'x' }])).toBe(40); // INVALID_CONFIG
    expect(await code([{ name: 'retention.ms', configOperation: SET, value: null }])).toBe(42);
    expect(await code([{ name: 'retention.ms', configOperation: 9, value: '1' }])).toBe(42);
    expect(await code([{ name: 'retention.ms', configOperation: SET, value: '1' }, { name: 'retention.ms', configOperation: DELETE, value: null }])).toBe(42);
    expect(await code([{ name: 'log.retention.hours', configOperation: DELETE, value: null }])).toBe(40);
    expect(await code([{ name: 'retention.ms', configOperation: SET, value: '1' }], TOPIC, 'missing')).toBe(3); // UNKNOWN_TOPIC_OR_PARTITION
    expect(await code([{ name: 'log.retention.ms', configOperation: SET, value: '1' }], ConfigResourceTypes.BROKER, '0')).toBe(42);
    expect(await code([{ name: 'x', configOperation: SET, value: '1' }], 16 as never, 'metrics')).toBe(42);
    expect(await getTopic(kafka.ctx, topic)).toEqual(before);

    // validateOnly: the answer of a change, without it.
    expect((await alter([{ name: 'retention.ms', configOperation: SET, value: '1' }], true)).responses![0].errorCode).toBe(0);
    expect(await getTopic(kafka.ctx, topic)).toEqual(before);
  });
});

describe('DescribeConfigs versions kafkajs does not send', () => {
  it('v0 says isDefault; v3 and the flexible v4 add types and, asked for, documentation', async () => {
    await admin.createTopics({ topics: [{ topic: 'versions', configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }] });
    const describe = (version: number, includeDocumentation = false) =>
      rawCall<DescribeConfigsResponse>(kafka.gateway.port, ApiKey.DescribeConfigs, version, {
        resources: [{ resourceType: TOPIC, resourceName: 'versions', configurationKeys: ['cleanup.policy', 'retention.ms'] }],
        includeSynonyms: false,
        includeDocumentation,
      });
    const v0 = (await describe(0)).results![0].configs!;
    expect(v0.map((c) => [c.name, c.value, c.isDefault])).toEqual([['cleanup.policy', 'compact', false], ['retention.ms', '604800000', true]]);
    for (const version of [3, 4]) {
      const configs = (await describe(version, true)).results![0].configs!;
      expect(configs[0]).toMatchObject({ name: 'cleanup.policy', configType: 7, configSource: 1, documentation: expect.stringContaining('compact') }); // LIST, DYNAMIC_TOPIC_CONFIG
      expect(configs[1]).toMatchObject({ name: 'retention.ms', configType: 5, configSource: 5 }); // LONG, DEFAULT_CONFIG
    }
    expect((await describe(4)).results![0].configs![0].documentation).toBeNull();
    const other = await rawCall<DescribeConfigsResponse>(kafka.gateway.port, ApiKey.DescribeConfigs, 2, {
      resources: [{ resourceType: ConfigResourceTypes.BROKER, resourceName: '9', configurationKeys: null }, { resourceType: 8, resourceName: '0', configurationKeys: null }],
      includeSynonyms: false,
      includeDocumentation: false,
    });
    expect(other.results!.map((r) => r.errorCode)).toEqual([42, 42]); // another broker's id; broker loggers
  });
});
