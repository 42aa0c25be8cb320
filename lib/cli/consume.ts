// `sluice consume <topic>` (kafka-console-consumer.sh): prints records as they arrive. With --group
// it is a group member that commits what it printed (so the next run resumes there); without, it
// reads every partition (or --partition from --offset). --max-messages and --timeout-ms end it.
import { Command } from 'commander';
import type { ConsumedMessage } from '../client/consumer.js';
import { SluiceClientError } from '../client/errors.js';
import { sluiceFor } from './connection.js';
import { describeError, parseInteger } from './output.js';

interface ConsumeOptions {
  fromBeginning?: boolean;
  group?: string;
  partition?: number;
  offset?: string;
  maxMessages?: number;
  timeoutMs?: number;
  printKey?: boolean;
  printOffset?: boolean;
  printPartition?: boolean;
  format: 'text' | 'json';
  separator: string;
}

const STOP = new SluiceClientError('CONSUMER_STOPPING', 'max messages reached');

function formatMessage(topic: string, partition: number, m: ConsumedMessage, opts: ConsumeOptions): string {
  if (opts.format === 'json') {
    const headers = Object.fromEntries(Object.entries(m.headers).map(([k, v]) => [k, Array.isArray(v) ? v.map((b) => b?.toString() ?? null) : (v?.toString() ?? null)]));
    return JSON.stringify({ topic, partition, offset: m.offset, timestamp: m.timestamp, key: m.key?.toString() ?? null, value: m.value?.toString() ?? null, headers });
  }
  const fields: string[] = [];
  if (opts.printPartition) fields.push(`Partition:${partition}`);
  if (opts.printOffset) fields.push(`Offset:${m.offset}`);
  if (opts.printKey) fields.push(m.key?.toString() ?? 'null');
  fields.push(m.value?.toString() ?? 'null');
  return fields.join(opts.separator);
}

export function consumeCommand(): Command {
  return new Command('consume')
    .description('print records of a topic')
    .argument('<topic>')
    .option('--from-beginning', 'start at the log start when there is no committed offset')
    .option('--group <id>', 'consume as a member of this consumer group (commits progress)')
    .option('--partition <n>', 'read only this partition (no group)', parseInteger('--partition'))
    .option('--offset <n>', "with --partition: 'earliest', 'latest' or an offset")
    .option('--max-messages <n>', 'exit after this many records', parseInteger('--max-messages', 1))
    .option('--timeout-ms <ms>', 'exit when no record arrives for this long', parseInteger('--timeout-ms', 1))
    .option('--print-key', 'print the key before the value')
    .option('--print-offset', 'print the offset')
    .option('--print-partition', 'print the partition')
    .option('--separator <s>', 'between printed fields', '\t')
    .option('--format <format>', "'text' or 'json' (one object per line)", 'text')
    .action(async function (this: Command, topic: string, opts: ConsumeOptions) {
      if (opts.format !== 'text' && opts.format !== 'json') throw new Error(`--format must be 'text' or 'json', got '${opts.format}'`);
      if (opts.partition !== undefined && opts.group !== undefined) throw new Error('--partition and --group cannot be combined');
      if (opts.offset !== undefined && opts.partition === undefined) throw new Error('--offset needs --partition');
      const sluice = sluiceFor(this);
      let fatal: unknown;
      let finish!: () => void;
      const finished = new Promise<void>((resolve) => (finish = resolve));
      const consumer = sluice.consumer({
        groupId: opts.group,
        clientId: 'console-consumer',
        maxWaitMs: 500,
        onError: (error) => {
          if (error === STOP) return;
          // a missing topic or bad request will not heal by retrying
          if (!error.retriable) {
            fatal = error;
            finish();
          }
        },
      });
      const fromBeginning = opts.fromBeginning ?? opts.offset === 'earliest';
      if (opts.partition !== undefined) consumer.assign([{ topic, partitions: [opts.partition] }], { fromBeginning });
      else consumer.subscribe({ topics: [topic], fromBeginning });
      if (opts.partition !== undefined && opts.offset !== undefined && opts.offset !== 'earliest' && opts.offset !== 'latest') {
        consumer.seek({ topic, partition: opts.partition, offset: parseInteger('--offset')(opts.offset) });
      }
      if (opts.partition !== undefined && opts.offset === 'latest') {
        const { offset } = await sluice.api.listOffsets(topic, opts.partition, 'latest');
        consumer.seek({ topic, partition: opts.partition, offset });
      }

      let printed = 0;
      let idle: NodeJS.Timeout | undefined;
      const armIdleTimer = () => {
        if (opts.timeoutMs === undefined) return;
        if (idle) clearTimeout(idle);
        idle = setTimeout(finish, opts.timeoutMs);
      };
      const onSignal = () => finish();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      armIdleTimer();
      await consumer.run({
        autoCommitInterval: 1000,
        eachMessage: async ({ topic: t, partition, message }) => {
          // past --max-messages: refuse the record so its position (and the group's commit) stays put
          if (opts.maxMessages !== undefined && printed >= opts.maxMessages) throw STOP;
          process.stdout.write(`${formatMessage(t, partition, message, opts)}\n`);
          printed++;
          armIdleTimer();
          if (opts.maxMessages !== undefined && printed >= opts.maxMessages) {
            consumer.pause([{ topic }]);
            finish();
          }
        },
      });
      await finished;
      if (idle) clearTimeout(idle);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await consumer.disconnect();
      process.stderr.write(`Processed a total of ${printed} messages\n`);
      if (fatal) {
        process.stderr.write(`${describeError(fatal)}\n`);
        process.exitCode = 1;
      }
    });
}
