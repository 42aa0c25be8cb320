// The `sluice` CLI as users run it: bin/sluice.js spawned as a child process against a real local
// server. 500 piped lines come back in order; a group consumer that read 200 resumes at 200;
// `groups describe` shows the lag; failures print `error: CODE: message` and exit non-zero.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type LocalServer } from '../../lib/local/server.js';
import { createTestContext } from '../support/storage.js';

const BIN = fileURLToPath(new URL('../../bin/sluice.js', import.meta.url));

let server: LocalServer;

beforeAll(async () => {
  server = await startServer({ context: await createTestContext(), port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await server.close();
});

function sluice(args: readonly string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, SLUICE_ENDPOINT: server.url, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

const lines = (s: string) => s.split('\n').filter((l) => l.length > 0);

describe('sluice CLI', () => {
  it('pipes 500 lines through produce and reads them back in order, then resumes a group at 200', async () => {
    const topic = `cli-${randomBytes(3).toString('hex')}`;
    expect((await sluice(['topics', 'create', topic, '--partitions', '1'])).code).toBe(0);

    const input = Array.from({ length: 500 }, (_, i) => `line-${i}`);
    const produced = await sluice(['produce', topic], `${input.join('\n')}\n`);
    expect(produced).toMatchObject({ code: 0 });

    const all = await sluice(['consume', topic, '--from-beginning', '--max-messages', '500', '--timeout-ms', '5000']);
    expect(all.code).toBe(0);
    expect(lines(all.stdout)).toEqual(input);

    const group = `g-${randomBytes(3).toString('hex')}`;
    const first = await sluice(['consume', topic, '--group', group, '--from-beginning', '--max-messages', '200', '--timeout-ms', '5000']);
    expect(first.code).toBe(0);
    expect(lines(first.stdout)).toEqual(input.slice(0, 200));

    const described = await sluice(['groups', 'describe', group]);
    expect(described.code).toBe(0);
    const table = lines(described.stdout);
    const header = table.findIndex((l) => l.startsWith('TOPIC'));
    expect(table[header].split(/\s+/)).toEqual(['TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'MEMBER']);
    expect(table[header + 1].split(/\s+/)).toEqual([topic, '0', '200', '500', '300', '-']);

    const next = await sluice(['consume', topic, '--group', group, '--max-messages', '5', '--print-offset', '--timeout-ms', '5000']);
    expect(lines(next.stdout)).toEqual([200, 201, 202, 203, 204].map((o) => `Offset:${o}\tline-${o}`));
  });

  it('splits keys with --key-separator and prints them, or JSON', async () => {
    const topic = `cli-${randomBytes(3).toString('hex')}`;
    await sluice(['topics', 'create', topic, '--partitions', '2']);
    await sluice(['produce', topic, '--key-separator', ':', '--partition', '1'], 'k1:v1\nk2:v2\n');
    const text = await sluice(['consume', topic, '--from-beginning', '--print-key', '--max-messages', '2', '--timeout-ms', '3000']);
    expect(lines(text.stdout)).toEqual(['k1\tv1', 'k2\tv2']);
    const json = await sluice(['consume', topic, '--partition', '1', '--offset', '1', '--format', 'json', '--max-messages', '1', '--timeout-ms', '3000']);
    expect(JSON.parse(lines(json.stdout)[0])).toMatchObject({ topic, partition: 1, offset: 1, key: 'k2', value: 'v2' });
  });

  it('exits 0 when idle for --timeout-ms, and lists the group it left behind', async () => {
    const topic = `cli-${randomBytes(3).toString('hex')}`;
    const group = `g-${randomBytes(3).toString('hex')}`;
    await sluice(['topics', 'create', topic]);
    const idle = await sluice(['consume', topic, '--group', group, '--timeout-ms', '500']);
    expect(idle).toMatchObject({ code: 0, stdout: '' });
    expect(idle.stderr).toBe('Processed a total of 0 messages\n');
    const listed = await sluice(['groups', 'list']);
    expect(listed.code).toBe(0);
    expect(lines(listed.stdout)[0].split(/\s+/)).toEqual(['GROUP', 'STATE', 'GENERATION', 'MEMBERS']);
    expect(lines(listed.stdout).find((l) => l.startsWith(`${group} `))?.split(/\s+/)).toEqual([group, 'Empty', '2', '0']);
  });

  it('reports server errors as code and message with a non-zero exit', async () => {
    const result = await sluice(['topics', 'describe', 'no-such-topic']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe("error: UNKNOWN_TOPIC_OR_PARTITION: topic 'no-such-topic' does not exist");
    const unreachable = await sluice(['--endpoint', 'http://127.0.0.1:1', 'topics', 'list']);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/^error: NETWORK_ERROR: /);
    expect(unreachable.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });
});
