// `sluice groups list|describe|reset-offsets|delete` (kafka-consumer-groups.sh). describe prints
// the lag table operators look at first: committed offset, log end offset, lag and owner per partition.
import { Command } from 'commander';
import type { ResetTarget } from '../client/admin.js';
import { sluiceFor } from './connection.js';
import { parseInteger, printTable } from './output.js';

interface ResetOptions {
  topic: string;
  partitions?: string;
  toEarliest?: boolean;
  toLatest?: boolean;
  toOffset?: number;
  toDatetime?: string;
}

function resetTarget(opts: ResetOptions): ResetTarget {
  const chosen = [opts.toEarliest, opts.toLatest, opts.toOffset !== undefined, opts.toDatetime !== undefined].filter(Boolean).length;
  if (chosen !== 1) throw new Error('give exactly one of --to-earliest, --to-latest, --to-offset, --to-datetime');
  if (opts.toEarliest) return { earliest: true };
  if (opts.toLatest) return { latest: true };
  if (opts.toOffset !== undefined) return { offset: opts.toOffset };
  const timestamp = Date.parse(opts.toDatetime!);
  if (Number.isNaN(timestamp)) throw new Error(`--to-datetime: cannot parse '${opts.toDatetime}' (use ISO 8601, e.g. 2024-01-31T12:00:00Z)`);
  return { timestamp };
}

export function groupsCommand(): Command {
  const groups = new Command('groups').description('list, describe, reset and delete consumer groups');

  groups
    .command('list')
    .description('list consumer groups')
    .action(async function (this: Command) {
      const { groups: list } = await sluiceFor(this).api.listGroups();
      printTable(['GROUP', 'STATE', 'GENERATION', 'MEMBERS'], list.map((g) => [g.group, g.state, g.generation, g.members]));
    });

  groups
    .command('describe <group>')
    .description('per-partition committed offset, log end offset, lag and owning member')
    .action(async function (this: Command, group: string) {
      const admin = sluiceFor(this).admin();
      const [description, lag] = await Promise.all([admin.describeGroup(group), admin.groupLag(group)]);
      process.stdout.write(`Group ${group}: state ${description.state}, generation ${description.generation}, assignor ${description.assignor ?? '-'}, ${description.members.length} member(s)\n\n`);
      printTable(
        ['TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'MEMBER'],
        lag.map((r) => [r.topic, r.partition, r.currentOffset, r.logEndOffset, r.lag, r.memberId]),
      );
    });

  groups
    .command('reset-offsets <group>')
    .description('move the committed offsets of a group with no active members')
    .requiredOption('--topic <topic>', 'topic whose offsets to reset')
    .option('--partitions <list>', 'comma-separated partitions (default: all)')
    .option('--to-earliest', 'to the log start offset')
    .option('--to-latest', 'to the log end offset')
    .option('--to-offset <n>', 'to an offset', parseInteger('--to-offset'))
    .option('--to-datetime <iso>', 'to the first offset at or after a time')
    .action(async function (this: Command, group: string, opts: ResetOptions) {
      const partitions = opts.partitions?.split(',').map((p) => parseInteger('--partitions')(p.trim()));
      const result = await sluiceFor(this).admin().resetOffsets({ groupId: group, topic: opts.topic, partitions, to: resetTarget(opts) });
      printTable(['TOPIC', 'PARTITION', 'NEW-OFFSET'], result.map((r) => [opts.topic, r.partition, r.offset]));
    });

  groups
    .command('delete <group>')
    .description('delete a consumer group with no active members, and its offsets')
    .action(async function (this: Command, group: string) {
      await sluiceFor(this).admin().deleteGroups([group]);
      process.stdout.write(`Deleted group ${group}.\n`);
    });

  return groups;
}
