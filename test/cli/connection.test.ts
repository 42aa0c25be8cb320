// lib/cli/connection.ts: --endpoint (on any level of the command line) picks the endpoint.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { sluiceFor } from '../../lib/cli/connection.js';
import type { HttpTransport } from '../../lib/client/transport-http.js';

describe('sluiceFor', () => {
  it('uses the global --endpoint of the command it runs under', async () => {
    let endpoint = '';
    const program = new Command('sluice').option('--endpoint <url>');
    program.command('probe').action(function (this: Command) {
      endpoint = (sluiceFor(this).api.transport as HttpTransport).endpoint.href;
    });
    await program.parseAsync(['node', 'sluice', '--endpoint', 'http://127.0.0.1:4567', 'probe']);
    expect(endpoint).toBe('http://127.0.0.1:4567/');
  });
});
