// The endpoint every command talks to: `--endpoint`, else SLUICE_ENDPOINT, else the local default.
import type { Command } from 'commander';
import { DEFAULT_ENDPOINT, Sluice } from '../client/sluice.js';

export function sluiceFor(command: Command): Sluice {
  const { endpoint } = command.optsWithGlobals<{ endpoint?: string }>();
  return new Sluice({ endpoint: endpoint ?? process.env.SLUICE_ENDPOINT ?? DEFAULT_ENDPOINT });
}
