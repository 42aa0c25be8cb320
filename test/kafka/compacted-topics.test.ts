// Compacted topics through the Kafka gateway with kafkajs's admin client: a topic created with
// cleanup.policy=compact is described as such with the cleaner's configs at Kafka's defaults (and
// their broker synonyms), alterConfigs switches it to compact,delete, and a policy Kafka does not
// know is INVALID_CONFIG.
import { type Admin, ConfigResourceTypes, ConfigSource } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getTopic } from '../../lib/metadata/topics.js';
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

async function configsOf(name: string) {
  const described = await admin.describeConfigs({ includeSynonyms: true, resources: [{ type: TOPIC, name }] });
  return new Map(described.resources[0].configEntries.map((e) => [e.configName, e]));
}

describe('kafkajs admin: compacted topics', () => {
  it('describeConfigs reports cleanup.policy=compact and the cleaner configs at Kafka defaults', async () => {
    await admin.createTopics({ topics: [{ topic: 'changelog', configEntries: [{ name: 'cleanup.policy', value: 'compact' }, { name: 'min.compaction.lag.ms', value: '1000' }] }] });
    const configs = await configsOf('changelog');
    expect(configs.get('cleanup.policy')).toMatchObject({ configValue: 'compact', isDefault: false, configSource: ConfigSource.TOPIC_CONFIG });
    expect(configs.get('cleanup.policy')!.configSynonyms).toContainEqual({ configName: 'log.cleanup.policy', configValue: 'delete', configSource: ConfigSource.DEFAULT_CONFIG });
    expect(configs.get('min.compaction.lag.ms')).toMatchObject({ configValue: '1000', isDefault: false });
    for (const [name, value] of [['min.cleanable.dirty.ratio', '0.5'], ['delete.retention.ms', '86400000'], ['max.compaction.lag.ms', String(Number.MAX_SAFE_INTEGER)]]) {
      expect(configs.get(name), name).toMatchObject({ configValue: value, isDefault: true, configSource: ConfigSource.DEFAULT_CONFIG });
    }
    expect((await getTopic(kafka.ctx, 'changelog'))!.config['cleanup.policy']).toBe('compact');
  });

  it('alterConfigs switches a topic to compact,delete; an unknown policy is INVALID_CONFIG and changes nothing', async () => {
    await admin.createTopics({ topics: [{ topic: 'events' }] });
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: TOPIC, name: 'events', configEntries: [{ name: 'cleanup.policy', value: 'delete,compact' }, { name: 'delete.retention.ms', value: '60000' }] }] });
    const configs = await configsOf('events');
    expect(configs.get('cleanup.policy')!.configValue).toBe('compact,delete');
    expect(configs.get('delete.retention.ms')!.configValue).toBe('60000');
    const refused = await admin
      .alterConfigs({ validateOnly: false, resources: [{ type: TOPIC, name: 'events', configEntries: [{ name: 'cleanup.policy', value: 'compact,shred' }] }] })
      .then(
        () => undefined,
        (e: { errors?: { type?: string }[]; type?: string }) => e.errors?.[0]?.type ?? e.type ?? String(e),
      );
    expect(refused).toBe('INVALID_CONFIG');
    expect((await configsOf('events')).get('cleanup.policy')!.configValue).toBe('compact,delete');
  });
});
