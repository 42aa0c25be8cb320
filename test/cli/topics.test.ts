// lib/cli/topics.ts in process against a local Sluice: kafka-topics.sh's create/list/describe/alter/delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topicsCommand } from '../../lib/cli/topics.js';
import { startHarness, topicName, type Harness } from '../client/harness.js';
import { runCli } from './support.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness.close());
const run = (...args: string[]) => runCli(topicsCommand, harness.url, ['topics', ...args]);

describe('sluice topics', () => {
  it('create (with --config), list, describe, alter, delete', async () => {
    const t = topicName();
    expect((await run('create', t, '--partitions', '2', '--config', 'retention.ms=1000', '--config', 'segment.bytes=2048')).out).toBe(`Created topic ${t} with 2 partition(s).\n`);
    expect((await run('list')).out).toMatch(new RegExp(`^TOPIC\\s+PARTITIONS\\n(.*\\n)*${t}\\s+2\\n`));
    const described = (await run('describe', t)).out;
    expect(described).toMatch(new RegExp(`^Topic: ${t}\\tPartitionCount: 2\\tConfigs: .*retention\\.ms=1000`));
    expect(described).toMatch(/segment\.bytes=2048/);
    expect(described.split('\n')[1]).toMatch(/^PARTITION\s+LOG-START-OFFSET\s+HIGH-WATERMARK/);
    expect((await run('alter', t, '--partitions', '3')).out).toBe(`Topic ${t} now has 3 partitions.\n`);
    expect((await run('delete', t)).out).toBe(`Deleted topic ${t}.\n`);
    expect((await run('list')).out).not.toContain(t);
  });
  it('bad arguments are refused before any request', async () => {
    await expect(run('create', 'x', '--config', 'novalue')).rejects.toMatchObject({ code: 'commander.invalidArgument', message: expect.stringMatching(/key=value/) });
    await expect(run('create', 'x', '--partitions', '0')).rejects.toThrow(/--partitions must be an integer >= 1, got '0'/);
    await expect(run('alter', 'x')).rejects.toMatchObject({ code: 'commander.missingMandatoryOptionValue' });
    await expect(run('describe', topicName('missing'))).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
  });
});
