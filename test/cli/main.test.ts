// lib/cli/main.ts (the `sluice` entry) as a process: help exits 0, a usage mistake exits with
// commander's code, a failure is one `error: CODE: message` line on stderr and exit code 1.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const sluice = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'lib/cli/main.ts', ...args], {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, SLUICE_ENDPOINT: 'http://127.0.0.1:1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    timeout: 60_000,
  });

describe('sluice (lib/cli/main.ts)', () => {
  it('--help lists the commands and exits 0', () => {
    const r = sluice('--help');
    expect(r.status).toBe(0);
    for (const c of ['topics', 'produce', 'consume', 'groups']) expect(r.stdout).toContain(c);
  });
  it('an unknown command exits non-zero with a usage message', () => {
    const r = sluice('nonsense');
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/unknown command/i);
  });
  it('a failure is one error line and exit code 1 (nothing listens on the endpoint)', () => {
    const r = sluice('topics', 'list');
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: (NETWORK_ERROR|REQUEST_TIMED_OUT): /);
  });
});
