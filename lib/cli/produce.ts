// `sluice produce <topic>` (kafka-console-producer.sh): one record per line from stdin or --file,
// optionally `key<sep>value` with --key-separator, batched through the async producer so a file
// becomes a handful of requests. A file on a terminal gets a progress bar with records/s.
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Command } from 'commander';
import { SingleBar, Presets } from 'cli-progress';
import type { SendFailure } from '../client/producer.js';
import { sluiceFor } from './connection.js';
import { describeError, parseInteger } from './output.js';

interface ProduceOptions {
  file?: string;
  keySeparator?: string;
  partition?: number;
  lingerMs: number;
  batchSize: number;
  idempotent: boolean;
}

export function produceCommand(): Command {
  return new Command('produce')
    .description('produce lines from stdin (or --file) to a topic, one record per line')
    .argument('<topic>')
    .option('--file <path>', 'read lines from a file instead of stdin')
    .option('--key-separator <sep>', 'split each line at the first <sep> into key and value')
    .option('--partition <n>', 'send every record to this partition', parseInteger('--partition'))
    .option('--linger-ms <ms>', 'how long records wait to be batched', parseInteger('--linger-ms'), 20)
    .option('--batch-size <bytes>', 'most bytes per request', parseInteger('--batch-size', 1), 1_048_576)
    .option('--no-idempotent', 'retries may duplicate (Kafka enable.idempotence=false); exactly-once per partition is the default')
    .action(async function (this: Command, topic: string, opts: ProduceOptions) {
      const failures: SendFailure[] = [];
      const producer = sluiceFor(this).producer({
        mode: 'async',
        lingerMs: opts.lingerMs,
        batchSize: opts.batchSize,
        idempotent: opts.idempotent,
        onError: (f) => void failures.push(f),
      });
      await producer.connect();
      const input = opts.file ? createReadStream(opts.file) : process.stdin;
      const showProgress = opts.file !== undefined && process.stderr.isTTY;
      const bar = showProgress
        ? new SingleBar({ format: '{bar} {percentage}% | {records} records | {rate} records/s', stream: process.stderr }, Presets.shades_classic)
        : undefined;
      const started = Date.now();
      let records = 0;
      let bytes = 0;
      bar?.start(statSync(opts.file!).size, 0, { records: 0, rate: 0 });
      const lines = createInterface({ input, crlfDelay: Infinity });
      for await (const line of lines) {
        bytes += Buffer.byteLength(line) + 1;
        let key: string | undefined;
        let value = line;
        if (opts.keySeparator !== undefined) {
          const at = line.indexOf(opts.keySeparator);
          if (at >= 0) {
            key = line.slice(0, at);
            value = line.slice(at + opts.keySeparator.length);
          }
        }
        await producer.send({ topic, messages: [{ key, value, partition: opts.partition }] });
        records++;
        if (bar && records % 100 === 0) bar.update(bytes, { records, rate: Math.round(records / Math.max(0.001, (Date.now() - started) / 1000)) });
      }
      await producer.disconnect();
      bar?.update(bar.getTotal(), { records, rate: Math.round(records / Math.max(0.001, (Date.now() - started) / 1000)) });
      bar?.stop();
      const failed = failures.reduce((n, f) => n + f.messages.length, 0);
      if (failed > 0) {
        process.stderr.write(`${describeError(failures[0].error)}\n`);
        process.stderr.write(`Produced ${records - failed} of ${records} records to ${topic}; ${failed} failed.\n`);
        process.exitCode = 1;
      } else if (showProgress || process.stderr.isTTY) {
        process.stderr.write(`Produced ${records} records to ${topic}.\n`);
      }
    });
}
