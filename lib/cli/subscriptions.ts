// `sluice subscriptions create|list|describe|delete`: push delivery of a topic to a Lambda function
// or an HTTPS endpoint, with the options of Lambda's event source mappings. describe prints the
// table operators look at first: per partition the committed offset, log end, lag, the age of the
// oldest undelivered record (IteratorAge) and the poller holding the partition's lease.
import { Command } from 'commander';
import type { CreateSubscriptionRequest, OnFailureDestination, StartingPosition, SubscriptionInfo, SubscriptionTarget } from '../client/wire.js';
import { sluiceFor } from './connection.js';
import { parseInteger, printTable } from './output.js';

interface CreateOptions {
  topic: string;
  lambda?: string;
  url?: string;
  signingSecret?: string;
  batchSize?: number;
  batchingWindowMs?: number;
  startingPosition?: string;
  startingTimestamp?: string;
  bisectOnError?: boolean;
  reportBatchItemFailures?: boolean;
  maximumRetryAttempts?: number;
  maximumRecordAgeMs?: number;
  onFailureTopic?: string;
  onFailureSqs?: string;
  onFailureSns?: string;
  parallelizationFactor?: number;
  disabled?: boolean;
}

const STARTING_POSITIONS: readonly StartingPosition[] = ['TRIM_HORIZON', 'LATEST', 'AT_TIMESTAMP'];

function targetOf(opts: CreateOptions): SubscriptionTarget {
  if ((opts.lambda === undefined) === (opts.url === undefined)) throw new Error('give exactly one target: --lambda <function name or ARN> or --url <https://...>');
  return opts.lambda !== undefined ? { type: 'lambda', functionArn: opts.lambda } : { type: 'https', url: opts.url! };
}

function onFailureOf(opts: CreateOptions): OnFailureDestination | undefined {
  const given = [opts.onFailureTopic, opts.onFailureSqs, opts.onFailureSns].filter((v) => v !== undefined).length;
  if (given > 1) throw new Error('give at most one of --on-failure-topic, --on-failure-sqs, --on-failure-sns');
  if (opts.onFailureTopic !== undefined) return { type: 'topic', topic: opts.onFailureTopic };
  if (opts.onFailureSqs !== undefined) return { type: 'sqs', queueArn: opts.onFailureSqs };
  if (opts.onFailureSns !== undefined) return { type: 'sns', topicArn: opts.onFailureSns };
  return undefined;
}

/** `--starting-timestamp`: ms since the epoch, or an ISO 8601 time. */
function timestampOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new Error(`--starting-timestamp: cannot parse '${value}' (ms since the epoch or ISO 8601, e.g. 2024-01-31T12:00:00Z)`);
  return ms;
}

function positionOf(value: string | undefined, timestamp: number | undefined): StartingPosition | undefined {
  if (value === undefined) return timestamp === undefined ? undefined : 'AT_TIMESTAMP';
  const upper = value.toUpperCase() as StartingPosition;
  if (!STARTING_POSITIONS.includes(upper)) throw new Error(`--starting-position must be one of ${STARTING_POSITIONS.join(', ')}, got '${value}'`);
  return upper;
}

/** The create request the flags stand for; options not given are left to the service's defaults. */
export function createRequest(name: string, opts: CreateOptions): CreateSubscriptionRequest {
  const startingPositionTimestamp = timestampOf(opts.startingTimestamp);
  const request: Record<string, unknown> = {
    name,
    topic: opts.topic,
    target: targetOf(opts),
    signingSecret: opts.signingSecret,
    batchSize: opts.batchSize,
    maximumBatchingWindowMs: opts.batchingWindowMs,
    startingPosition: positionOf(opts.startingPosition, startingPositionTimestamp),
    startingPositionTimestamp,
    bisectBatchOnFunctionError: opts.bisectOnError,
    functionResponseTypes: opts.reportBatchItemFailures ? ['ReportBatchItemFailures'] : undefined,
    maximumRetryAttempts: opts.maximumRetryAttempts,
    maximumRecordAgeMs: opts.maximumRecordAgeMs,
    onFailure: onFailureOf(opts),
    parallelizationFactor: opts.parallelizationFactor,
    enabled: opts.disabled ? false : undefined,
  };
  return Object.fromEntries(Object.entries(request).filter(([, v]) => v !== undefined)) as unknown as CreateSubscriptionRequest;
}

function describeTarget(target: SubscriptionTarget): string {
  return target.type === 'lambda' ? `lambda:${target.functionArn}` : target.url;
}

function describeOnFailure(onFailure: OnFailureDestination | undefined): string {
  if (!onFailure) return '-';
  if (onFailure.type === 'topic') return `topic:${onFailure.topic}`;
  return onFailure.type === 'sqs' ? onFailure.queueArn : onFailure.topicArn;
}

/** The configuration as one `key=value,...` line, as `sluice topics describe` prints configs. */
function configLine(s: SubscriptionInfo): string {
  const entries: [string, unknown][] = [
    ['batchSize', s.batchSize],
    ['maximumBatchingWindowMs', s.maximumBatchingWindowMs],
    ['startingPosition', s.startingPositionTimestamp === undefined ? s.startingPosition : `${s.startingPosition}@${new Date(s.startingPositionTimestamp).toISOString()}`],
    ['bisectBatchOnFunctionError', s.bisectBatchOnFunctionError],
    ['functionResponseTypes', s.functionResponseTypes.join('|') || '-'],
    ['maximumRetryAttempts', s.maximumRetryAttempts],
    ['maximumRecordAgeMs', s.maximumRecordAgeMs],
    ['onFailure', describeOnFailure(s.onFailure)],
    ['parallelizationFactor', s.parallelizationFactor],
  ];
  return entries.map(([k, v]) => `${k}=${String(v)}`).join(',');
}

export function subscriptionsCommand(): Command {
  const subscriptions = new Command('subscriptions').description('create, list, describe and delete subscriptions (push delivery to a Lambda function or an HTTPS endpoint)');

  subscriptions
    .command('create <name>')
    .description('deliver a topic in batches to a Lambda function or an HTTPS endpoint')
    .requiredOption('--topic <topic>', 'topic to deliver')
    .option('--lambda <function>', 'target: a Lambda function name or ARN')
    .option('--url <url>', 'target: an https:// endpoint (http:// on localhost), requests signed with HMAC-SHA256')
    .option('--signing-secret <secret>', 'HTTPS target: the signing key (default: generated, printed once)')
    .option('--batch-size <n>', 'records per batch at most, 1-10000 (default 100)', parseInteger('--batch-size', 1))
    .option('--batching-window-ms <ms>', 'gather records this long before delivering a smaller batch, 0-300000 (default 0)', parseInteger('--batching-window-ms'))
    .option('--starting-position <position>', 'TRIM_HORIZON, LATEST or AT_TIMESTAMP (default LATEST)')
    .option('--starting-timestamp <time>', 'AT_TIMESTAMP: ms since the epoch or ISO 8601 (implies AT_TIMESTAMP)')
    .option('--bisect-on-error', 'split a failing batch in two and retry the halves')
    .option('--report-batch-item-failures', 'the target answers {batchItemFailures: [{itemIdentifier}]}: only those (and later records) are retried')
    .option('--maximum-retry-attempts <n>', 'retries before records go to the on-failure destination, 0-10000 or -1 forever (default -1)', parseInteger('--maximum-retry-attempts', -1))
    .option('--maximum-record-age-ms <ms>', 'older records go to the on-failure destination, 60000-604800000 or -1 forever (default -1)', parseInteger('--maximum-record-age-ms', -1))
    .option('--on-failure-topic <topic>', 'on failure: produce the records\' metadata to this Sluice topic')
    .option('--on-failure-sqs <queueArn>', 'on failure: send the metadata to this SQS queue')
    .option('--on-failure-sns <topicArn>', 'on failure: publish the metadata to this SNS topic')
    .option('--parallelization-factor <n>', 'batches in flight per partition, order kept per key, 1-10 (default 1)', parseInteger('--parallelization-factor', 1))
    .option('--disabled', 'create it disabled: it delivers nothing until enabled')
    .action(async function (this: Command, name: string, opts: CreateOptions) {
      const created = await sluiceFor(this).admin().createSubscription(createRequest(name, opts));
      process.stdout.write(`Created subscription ${created.name}: topic ${created.topic} -> ${describeTarget(created.target)} (group ${created.group}).\n`);
      if (created.signingSecret !== undefined) {
        process.stdout.write(`Signing secret (shown only now; requests carry an HMAC-SHA256 signature made with it): ${created.signingSecret}\n`);
      }
    });

  subscriptions
    .command('list')
    .description('list subscriptions')
    .action(async function (this: Command) {
      const list = await sluiceFor(this).admin().listSubscriptions();
      printTable(
        ['SUBSCRIPTION', 'TOPIC', 'TARGET', 'ENABLED', 'BATCH-SIZE', 'STARTING-POSITION', 'ON-FAILURE'],
        list.map((s) => [s.name, s.topic, describeTarget(s.target), s.enabled, s.batchSize, s.startingPosition, describeOnFailure(s.onFailure)]),
      );
    });

  subscriptions
    .command('describe <name>')
    .description('configuration, and per partition the committed offset, lag, iterator age and lease owner')
    .action(async function (this: Command, name: string) {
      const d = await sluiceFor(this).admin().describeSubscription(name);
      process.stdout.write(
        `Subscription: ${d.name}\tTopic: ${d.topic}${d.topicExists ? '' : ' (deleted: nothing is delivered)'}\tTarget: ${describeTarget(d.target)}\tGroup: ${d.group}\tEnabled: ${d.enabled}\n`,
      );
      process.stdout.write(`Configs: ${configLine(d)}\n`);
      process.stdout.write(`Lag: ${d.lag}\tIteratorAgeMs: ${d.oldestUndeliveredAgeMs}\n\n`);
      printTable(
        ['PARTITION', 'COMMITTED-OFFSET', 'LOG-END-OFFSET', 'LAG', 'ITERATOR-AGE-MS', 'LEASE-OWNER'],
        d.partitions.map((p) => [p.partition, p.committedOffset, p.logEndOffset, p.lag, p.oldestUndeliveredAgeMs, p.lease?.active ? (p.lease.owner ?? '?') : null]),
      );
    });

  subscriptions
    .command('delete <name>')
    .description('delete a subscription and its consumer group; delivery stops')
    .action(async function (this: Command, name: string) {
      await sluiceFor(this).admin().deleteSubscription(name);
      process.stdout.write(`Deleted subscription ${name}.\n`);
    });

  return subscriptions;
}
