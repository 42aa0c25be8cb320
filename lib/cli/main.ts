// The `sluice` command line (Kafka's console tools for Sluice). Every failure ends as one line
// `error: CODE: message` on stderr and exit code 1; usage mistakes get commander's message and help hint.
import { Command, CommanderError } from 'commander';
import { DEFAULT_ENDPOINT } from '../client/sluice.js';
import { consumeCommand } from './consume.js';
import { groupsCommand } from './groups.js';
import { describeError } from './output.js';
import { produceCommand } from './produce.js';
import { subscriptionsCommand } from './subscriptions.js';
import { topicsCommand } from './topics.js';

export function buildProgram(): Command {
  const program = new Command('sluice')
    .description("Kafka's partitioned log on serverless AWS — console tools")
    .option('--endpoint <url>', `Sluice endpoint (env SLUICE_ENDPOINT, default ${DEFAULT_ENDPOINT})`)
    .showHelpAfterError()
    .exitOverride();
  for (const command of [topicsCommand(), produceCommand(), consumeCommand(), groupsCommand(), subscriptionsCommand()]) {
    program.addCommand(command.exitOverride().showHelpAfterError());
    for (const sub of command.commands) sub.exitOverride().showHelpAfterError();
  }
  return program;
}

export async function main(argv: readonly string[] = process.argv): Promise<number> {
  try {
    await buildProgram().parseAsync([...argv]);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode; // commander already printed usage/help
    process.stderr.write(`${describeError(e)}\n`);
    return 1;
  }
}

const code = await main();
// Exit explicitly (idle keep-alive sockets must not hold the process), but only once stdout and
// stderr have drained: a pipe to another process is asynchronous and would be cut short.
await Promise.all([process.stdout, process.stderr].map((s) => new Promise<void>((resolve) => s.write('', () => resolve()))));
process.exit(code);
