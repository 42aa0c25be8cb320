// In-process runs of one CLI command against a local Sluice, stdout and stderr captured.
import { Command } from 'commander';
import { vi } from 'vitest';

export async function runCli(command: () => Command, endpoint: string, args: string[]): Promise<{ out: string; err: string; exitCode: number | undefined }> {
  const program = new Command('sluice').option('--endpoint <url>').exitOverride();
  const built = command().exitOverride();
  for (const sub of built.commands) sub.exitOverride(); // as main.ts does: usage errors throw, never exit
  program.addCommand(built);
  let out = '';
  let err = '';
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));
  const before = process.exitCode;
  process.exitCode = undefined;
  try {
    await program.parseAsync(['node', 'sluice', '--endpoint', endpoint, ...args]);
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
  const exitCode = typeof process.exitCode === 'number' ? process.exitCode : undefined;
  process.exitCode = before;
  return { out, err, exitCode };
}
