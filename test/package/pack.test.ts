// The package as a user gets it: `npm pack` (prepack compiles lib/ to dist/), the tarball installed
// into an empty project with `npm install`, then `import { Sluice } from 'sluice'` and the `sluice`
// CLI run from there. Installing needs the npm registry for the package's dependencies.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The environment without what `npm test` set for itself (npm_config_*, npm_lifecycle_*), which would steer the nested npm. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && k !== 'NODE_OPTIONS') env[k] = v;
  return { ...env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
}

async function sh(file: string, args: readonly string[], cwd: string) {
  return run(file, [...args], { cwd, env: cleanEnv(), maxBuffer: 64 * 1024 * 1024, timeout: 240_000 });
}

describe('the packed package', { timeout: 300_000 }, () => {
  let dir: string;
  let project: string;
  let files: string[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sluice-pack-'));
    const { stdout } = await sh(NPM, ['pack', '--json', '--pack-destination', dir], ROOT);
    // prepack's build prints to stdout before the JSON.
    const report = JSON.parse(stdout.slice(stdout.indexOf('[\n'))) as { filename: string; files: { path: string }[] }[];
    files = report[0].files.map((f) => f.path);
    project = join(dir, 'project');
    await mkdir(project);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }));
    await sh(NPM, ['install', join(dir, report[0].filename), '--no-audit', '--no-fund'], project);
  }, 300_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('ships the compiled client and CLI, no TypeScript source and no server code', () => {
    expect(files).toContain('dist/lib/index.js');
    expect(files).toContain('dist/lib/index.d.ts');
    expect(files).toContain('dist/lib/cli/main.js');
    expect(files).toContain('bin/sluice.js');
    expect(files).toContain('README.md');
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    expect(files.filter((f) => /^dist\/lib\/(local|log|metadata|groups|observability)\//.test(f) || f === 'dist/lib/api/router.js')).toEqual([]);
  });

  it('installs neither the emulators, tsx, nor the server-side dependencies', async () => {
    const installed = new Set(await readdir(join(project, 'node_modules')));
    for (const name of ['dynalite', 's3rver', 'tsx', 'vitest', 'typescript', 'aws-cdk-lib', 'zod']) expect(installed.has(name), name).toBe(false);
    expect(existsSync(join(project, 'node_modules/@aws-lambda-powertools'))).toBe(false);
    expect(Object.keys(pkg.dependencies).sort()).toEqual(
      ['@aws-crypto/sha256-js', '@aws-sdk/client-lambda', '@aws-sdk/credential-providers', '@smithy/signature-v4', 'cli-progress', 'commander'].sort(),
    );
  });

  it("import { Sluice } from 'sluice' works (ESM, Node's own resolution)", async () => {
    const script = [
      "import { Sluice, Producer, SluiceClientError } from 'sluice';",
      "const sluice = new Sluice({ endpoint: 'http://127.0.0.1:9' });",
      "if (typeof sluice.api !== 'object' || typeof Producer !== 'function' || typeof SluiceClientError !== 'function') throw new Error('missing exports');",
      "console.log('client ok');",
    ].join('\n');
    const { stdout } = await sh(process.execPath, ['--input-type=module', '-e', script], project);
    expect(stdout.trim()).toBe('client ok');
  });

  it('the installed sluice CLI runs', async () => {
    const bin = join(project, 'node_modules', '.bin', 'sluice');
    const { stdout } = await sh(bin, ['--help'], project);
    expect(stdout).toMatch(/^Usage: sluice/);
    for (const command of ['topics', 'produce', 'consume', 'groups']) expect(stdout).toContain(command);
    const topics = await sh(bin, ['topics', '--help'], project);
    expect(topics.stdout).toMatch(/Usage: sluice topics/);
  });
});
