// `sluice topics create|list|describe|delete|alter` (kafka-topics.sh; alter's --config and
// --delete-config as kafka-configs.sh --alter --add-config/--delete-config).
import { Command, InvalidArgumentError } from 'commander';
import { sluiceFor } from './connection.js';
import { parseInteger, printTable } from './output.js';

function collectConfig(value: string, previous: Record<string, string>): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`expected key=value, got '${value}'`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

function collectKey(value: string, previous: string[]): string[] {
  if (value.length === 0 || value.includes('=')) throw new InvalidArgumentError(`expected a config name, got '${value}'`);
  return [...previous, value];
}

export function topicsCommand(): Command {
  const topics = new Command('topics').description('create, list, describe, delete and alter topics');

  topics
    .command('create <topic>')
    .description('create a topic')
    .option('--partitions <n>', 'number of partitions', parseInteger('--partitions', 1), 1)
    .option('--config <key=value>', "topic config, Kafka's names (repeatable), e.g. retention.ms=3600000", collectConfig, {})
    .action(async function (this: Command, topic: string, opts: { partitions: number; config: Record<string, string> }) {
      const created = await sluiceFor(this).api.createTopic(topic, opts.partitions, Object.keys(opts.config).length > 0 ? opts.config : undefined);
      process.stdout.write(`Created topic ${created.name} with ${created.partitions} partition(s).\n`);
    });

  topics
    .command('list')
    .description('list topics')
    .action(async function (this: Command) {
      const list = await sluiceFor(this).admin().listTopicsWithPartitions();
      printTable(['TOPIC', 'PARTITIONS'], list.map((t) => [t.name, t.partitions]));
    });

  topics
    .command('describe <topic>')
    .description('partitions, offsets and configs of a topic')
    .action(async function (this: Command, topic: string) {
      const sluice = sluiceFor(this);
      const d = await sluice.admin().describeTopic(topic);
      const { configs } = await sluice.api.describeTopicConfigs(topic);
      // As kafka-topics.sh: the header names the configs set on the topic; the table lists them all.
      const overrides = configs.filter((c) => !c.isDefault).map((c) => `${c.name}=${c.value}`).join(',');
      process.stdout.write(`Topic: ${d.name}\tPartitionCount: ${d.partitions.length}\tConfigs: ${overrides}\n`);
      printTable(
        ['PARTITION', 'LOG-START-OFFSET', 'HIGH-WATERMARK', 'LEADER-EPOCH', 'SEGMENTS', 'BYTES'],
        d.partitions.map((p) => [p.partition, p.logStartOffset, p.highWatermark, p.leaderEpoch, p.segments, p.bytes]),
      );
      process.stdout.write('\n');
      printTable(['CONFIG', 'VALUE', 'SOURCE'], configs.map((c) => [c.name, c.value, c.source]));
    });

  topics
    .command('delete <topic>')
    .description('delete a topic and its data')
    .action(async function (this: Command, topic: string) {
      await sluiceFor(this).admin().deleteTopics({ topics: [topic] });
      process.stdout.write(`Deleted topic ${topic}.\n`);
    });

  topics
    .command('alter <topic>')
    .description('change configs (--config, --delete-config) or raise the partition count of a topic')
    .option('--partitions <n>', 'new partition count (only ever raised)', parseInteger('--partitions', 1))
    .option('--config <key=value>', "set a config, Kafka's names (repeatable), e.g. retention.ms=3600000", collectConfig, {})
    .option('--delete-config <key>', 'revert a config to its default (repeatable)', collectKey, [])
    .option('--validate-only', 'check the config change without applying it')
    .action(async function (
      this: Command,
      topic: string,
      opts: { partitions?: number; config: Record<string, string>; deleteConfig: string[]; validateOnly?: boolean },
    ) {
      const changesConfig = Object.keys(opts.config).length > 0 || opts.deleteConfig.length > 0;
      if (opts.partitions === undefined && !changesConfig) {
        this.error('error: nothing to alter: give --config, --delete-config or --partitions', { code: 'sluice.nothingToAlter' });
      }
      if (opts.validateOnly && opts.partitions !== undefined) {
        this.error('error: --validate-only applies to config changes, not --partitions', { code: 'sluice.invalidArgument' });
      }
      const sluice = sluiceFor(this);
      if (changesConfig) {
        const patch: Record<string, string | null> = { ...opts.config };
        for (const key of opts.deleteConfig) {
          if (Object.hasOwn(opts.config, key)) this.error(`error: config '${key}' is both set and deleted`, { code: 'sluice.invalidArgument' });
          patch[key] = null;
        }
        const altered = await sluice.api.alterTopicConfig(topic, patch, { validateOnly: opts.validateOnly });
        const changed = Object.keys(patch).map((k) => `${k}=${altered.config[k]}`).join(',');
        process.stdout.write(opts.validateOnly ? `Valid config change for topic ${topic}: ${changed}.\n` : `Completed updating config for topic ${topic}: ${changed}.\n`);
      }
      if (opts.partitions !== undefined) {
        await sluice.admin().createPartitions({ topicPartitions: [{ topic, count: opts.partitions }] });
        process.stdout.write(`Topic ${topic} now has ${opts.partitions} partitions.\n`);
      }
    });

  return topics;
}
