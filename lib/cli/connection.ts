// The endpoint every command talks to: `--endpoint`, else SLUICE_ENDPOINT, else the local default.
import type { Command } from 'commander';
import { Sluice } from '../client/sluice.js';

export function sluiceFor(command: Command): Sluice {
  const { endpoint } = command.optsWithGlobals<{ endpoint?: string }>();
  return new Sluice({ endpoint }); // Sluice falls back to SLUICE_ENDPOINT, then the local default
}
