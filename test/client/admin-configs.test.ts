// lib/client/admin.ts's topic configs against a local Sluice: describeConfigs and alterConfigs in
// kafkajs' shapes (alterConfigs REPLACES the whole set, as Kafka's AlterConfigs does: keys not
// listed revert to their defaults), incrementalAlterConfigs (SET/DELETE, others untouched), and
// refusals that change nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigResourceTypes, ConfigSource } from '../../lib/client/admin.js';
import { Sluice } from '../../lib/client/sluice.js';
import { startHarness, topicName, type Harness } from './harness.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness.close());

const TOPIC = ConfigResourceTypes.TOPIC;

describe('Admin topic configs', () => {
  it('describeConfigs: every config, or only configNames, with source and (asked for) synonyms', async () => {
    const admin = new Sluice({ endpoint: harness.url }).admin();
    const t = topicName('d');
    await admin.createTopics({ topics: [{ topic: t, config: { 'retention.ms': '3600000' } }] });
    const all = await admin.describeConfigs({ resources: [{ type: TOPIC, name: t }] });
    expect(all.resources).toHaveLength(1);
    expect(all.resources[0]).toMatchObject({ errorCode: 0, errorMessage: null, resourceName: t, resourceType: TOPIC });
    expect(all.resources[0].configEntries.map((e) => e.configName)).toEqual(expect.arrayContaining(['retention.ms', 'segment.bytes', 'cleanup.policy']));
    const some = await admin.describeConfigs({ includeSynonyms: true, resources: [{ type: TOPIC, name: t, configNames: ['retention.ms', 'cleanup.policy'] }] });
    expect(some.resources[0].configEntries).toEqual([
      { configName: 'cleanup.policy', configValue: 'delete', readOnly: false, isDefault: true, configSource: ConfigSource.DEFAULT_CONFIG, isSensitive: false,
        configSynonyms: [{ configName: 'log.cleanup.policy', configValue: 'delete', configSource: ConfigSource.DEFAULT_CONFIG }] },
      { configName: 'retention.ms', configValue: '3600000', readOnly: false, isDefault: false, configSource: ConfigSource.TOPIC_CONFIG, isSensitive: false,
        configSynonyms: [
          { configName: 'retention.ms', configValue: '3600000', configSource: ConfigSource.TOPIC_CONFIG },
          { configName: 'log.retention.ms', configValue: '604800000', configSource: ConfigSource.DEFAULT_CONFIG },
        ] },
    ]);
    await expect(admin.describeConfigs({ resources: [{ type: TOPIC, name: topicName('missing') }] })).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
    await expect(admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.BROKER, name: '0' }] })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('alterConfigs replaces the whole set: keys not listed go back to their defaults', async () => {
    const admin = new Sluice({ endpoint: harness.url }).admin();
    const t = topicName('a');
    await admin.createTopics({ topics: [{ topic: t, config: { 'segment.bytes': '4096', 'retention.bytes': '1000000' } }] });
    const reply = await admin.alterConfigs({ resources: [{ type: TOPIC, name: t, configEntries: [{ name: 'retention.ms', value: '3600000' }, { name: 'segment.bytes', value: '8192' }] }] });
    expect(reply).toEqual({ resources: [{ errorCode: 0, errorMessage: null, resourceName: t, resourceType: TOPIC }], throttleTime: 0 });
    const { config } = await admin.describeTopic(t);
    expect(config).toMatchObject({ 'retention.ms': 3_600_000, 'segment.bytes': 8192, 'retention.bytes': -1 });

    // validateOnly and a refused change leave it as it is.
    await admin.alterConfigs({ validateOnly: true, resources: [{ type: TOPIC, name: t, configEntries: [] }] });
    await expect(
      admin.alterConfigs({ resources: [{ type: TOPIC, name: t, configEntries: [{ name: 'retention.ms', value: '1' }, { name: 'segment.bytes', value: 'x' }] }] }),
    ).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
    expect((await admin.describeTopic(t)).config).toEqual(config);
  });

  it('incrementalAlterConfigs: SET and DELETE change only the keys named', async () => {
    const admin = new Sluice({ endpoint: harness.url }).admin();
    const t = topicName('i');
    await admin.createTopics({ topics: [{ topic: t, config: { 'segment.bytes': '4096', 'retention.bytes': '1000000' } }] });
    await admin.incrementalAlterConfigs({
      resources: [{ type: TOPIC, name: t, configEntries: [{ name: 'retention.ms', value: '60000', operation: 'SET' }, { name: 'segment.bytes', operation: 'DELETE' }] }],
    });
    const { config } = await admin.describeTopic(t);
    expect(config).toMatchObject({ 'retention.ms': 60_000, 'retention.bytes': 1_000_000, 'segment.bytes': 1_073_741_824 });
    await expect(
      admin.incrementalAlterConfigs({ resources: [{ type: TOPIC, name: t, configEntries: [{ name: 'cleanup.policy', value: 'compact', operation: 'APPEND' as never }] }] }),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(
      admin.incrementalAlterConfigs({ resources: [{ type: TOPIC, name: t, configEntries: [{ name: 'retention.ms', value: 'soon', operation: 'SET' }] }] }),
    ).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
    expect((await admin.describeTopic(t)).config).toEqual(config);
  });
});
