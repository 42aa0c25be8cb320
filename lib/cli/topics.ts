// `sluice topics create|list|describe|delete|alter` (kafka-topics.sh).
import { Command, InvalidArgumentError } from 'commander';
import { sluiceFor } from './connection.js';
import { parseInteger, printTable } from './output.js';

function collectConfig(value: string, previous: Record<string, string>): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`expected key=value, got '${value}'`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
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
    .description('partitions, offsets and config of a topic')
    .action(async function (this: Command, topic: string) {
      const d = await sluiceFor(this).admin().describeTopic(topic);
      const config = Object.entries(d.config).map(([k, v]) => `${k}=${v}`).join(',');
      process.stdout.write(`Topic: ${d.name}\tPartitionCount: ${d.partitions.length}\tConfigs: ${config}\n`);
      printTable(
        ['PARTITION', 'LOG-START-OFFSET', 'HIGH-WATERMARK', 'LEADER-EPOCH', 'SEGMENTS', 'BYTES'],
        d.partitions.map((p) => [p.partition, p.logStartOffset, p.highWatermark, p.leaderEpoch, p.segments, p.bytes]),
      );
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
    .description('raise the partition count of a topic')
    .requiredOption('--partitions <n>', 'new partition count', parseInteger('--partitions', 1))
    .action(async function (this: Command, topic: string, opts: { partitions: number }) {
      await sluiceFor(this).admin().createPartitions({ topicPartitions: [{ topic, count: opts.partitions }] });
      process.stdout.write(`Topic ${topic} now has ${opts.partitions} partitions.\n`);
    });

  return topics;
}
