// scripts/check-layers.ts: lib/ passes today, and each kind of violation planted in a fixture tree
// fails the check with a message naming the import (and `npm run check:layers` exits 1 on it).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { allowedImports, checkLayers } from '../../scripts/check-layers.js';

const repo = join(import.meta.dirname, '..', '..');
const fixtures: string[] = [];

/** A lib/ tree of the given files (path → source) in a temporary directory; returns its lib/. */
function fixture(files: Record<string, string>): string {
  const root = join(mkdtempSync(join(tmpdir(), 'check-layers-')), 'lib');
  fixtures.push(dirname(root));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  return root;
}

afterEach(() => {
  for (const dir of fixtures.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const clean = {
  'errors.ts': 'export class SluiceError extends Error {}\n',
  'context.ts': "import type { SluiceError } from './errors.js';\nexport type E = SluiceError;\n",
  'metadata/topics.ts': "import { SluiceError } from '../errors.js';\nimport type { E } from '../context.js';\nexport const t = (e: E) => new SluiceError(String(e));\n",
  'log/delete-topic.ts': "import { t } from '../metadata/topics.js';\nexport const d = t;\n",
  'client/producer.ts': "import { SluiceError } from '../errors.js';\nexport const p = SluiceError;\n",
};

describe('check-layers', () => {
  it('finds nothing in lib/ today', () => {
    expect(checkLayers(join(repo, 'lib'))).toEqual([]);
  });

  it('accepts a tree whose imports all go down', () => {
    expect(checkLayers(fixture(clean))).toEqual([]);
  });

  it('fails on a planted back-edge, type-only imports included', () => {
    const root = fixture({ ...clean, 'metadata/topics.ts': `${clean['metadata/topics.ts']}import type { d } from '../log/delete-topic.js';\n` });
    expect(checkLayers(root)).toEqual([
      { kind: 'back-edge', message: expect.stringMatching(/^lib\/metadata\/topics\.ts imports lib\/log\/delete-topic\.ts: 'metadata' may import only /) },
      { kind: 'cycle', message: 'import cycle: lib/log/delete-topic.ts → lib/metadata/topics.ts → lib/log/delete-topic.ts' },
    ]);
  });

  it('fails when the client imports server code, and on a dynamic import too', () => {
    const root = fixture({ ...clean, 'client/producer.ts': "export const load = () => import('../metadata/topics.js');\n" });
    expect(checkLayers(root).map((v) => v.message)).toEqual([
      "lib/client/producer.ts imports lib/metadata/topics.ts: 'client' may import only errors, records, partitioners",
    ]);
  });

  it('fails on a cycle inside one layer, on a peer import and on a folder in no layer', () => {
    const root = fixture({
      ...clean,
      'log/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'log/b.ts': "export { a as b } from './a.js';\n",
      'records/r.ts': "import { q } from '../partitioners/q.js';\nexport const r = q;\n",
      'partitioners/q.ts': 'export const q = 1;\n',
      'webhooks/x.ts': "import { d } from '../log/delete-topic.js';\nexport const x = d;\n",
    });
    const found = checkLayers(root);
    expect(found.map((v) => v.kind).sort()).toEqual(['back-edge', 'cycle', 'unplaced']);
    expect(found.find((v) => v.kind === 'cycle')?.message).toBe('import cycle: lib/log/a.ts → lib/log/b.ts → lib/log/a.ts');
    expect(found.find((v) => v.kind === 'back-edge')?.message).toMatch(/^lib\/records\/r\.ts imports lib\/partitioners\/q\.ts/);
    expect(found.find((v) => v.kind === 'unplaced')?.message).toMatch(/module 'webhooks' is in no layer/);
  });

  it('places each module as documented', () => {
    expect([...allowedImports('client')!]).toEqual(['errors', 'records', 'partitioners']);
    expect([...allowedImports('metadata')!]).toEqual(['errors', 'records', 'partitioners', 'observability', 'context']);
    expect(allowedImports('errors')!.size).toBe(0);
    // subscriptions sit on groups; the Kafka gateway sits on api (it reuses the broker-side batch checks).
    expect(allowedImports('subscriptions')!.has('groups')).toBe(true);
    expect(allowedImports('subscriptions')!.has('api')).toBe(false);
    expect(allowedImports('kafka')!.has('api')).toBe(true);
    expect(allowedImports('kafka')!.has('local')).toBe(false);
    expect(allowedImports('webhooks')).toBeUndefined();
  });

  it('exits 1 naming the import when run on a tree with a back-edge, 0 on a clean one', () => {
    const run = (root: string) =>
      spawnSync(process.execPath, ['--import', 'tsx', join(repo, 'scripts', 'check-layers.ts'), root], { cwd: repo, encoding: 'utf8' });
    const bad = run(fixture({ ...clean, 'errors.ts': "import './context.js';\nexport class SluiceError extends Error {}\n" }));
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/back-edge: lib\/errors\.ts imports lib\/context\.ts/);
    const good = run(fixture(clean));
    expect(good.stderr).toBe('');
    expect(good.status).toBe(0);
    expect(good.stdout).toMatch(/no back-edge, no cycle/);
  });
});
