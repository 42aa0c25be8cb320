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
    // The header names the configs set on the topic (kafka-topics.sh); the table lists them all.
    expect(described.split('\n')[0]).toBe(`Topic: ${t}\tPartitionCount: 2\tConfigs: retention.ms=1000,segment.bytes=2048`);
    expect(described.split('\n')[1]).toMatch(/^PARTITION\s+LOG-START-OFFSET\s+HIGH-WATERMARK/);
    expect(described).toMatch(/^CONFIG\s+VALUE\s+SOURCE$/m);
    expect(described).toMatch(/^retention\.ms\s+1000\s+DYNAMIC_TOPIC_CONFIG$/m);
    expect(described).toMatch(/^cleanup\.policy\s+delete\s+DEFAULT_CONFIG$/m);
    expect((await run('alter', t, '--partitions', '3')).out).toBe(`Topic ${t} now has 3 partitions.\n`);
    expect((await run('delete', t)).out).toBe(`Deleted topic ${t}.\n`);
    expect((await run('list')).out).not.toContain(t);
  });
  it('alter --config / --delete-config (kafka-configs --alter): set, revert to default, validate only; a bad value changes nothing', async () => {
    const t = topicName();
    await run('create', t, '--config', 'segment.bytes=2048');
    expect((await run('alter', t, '--config', 'retention.ms=3600000', '--config', 'retention.bytes=1048576', '--delete-config', 'segment.bytes')).out).toBe(
      `Completed updating config for topic ${t}: retention.ms=3600000,retention.bytes=1048576,segment.bytes=1073741824.\n`,
    );
    expect((await run('describe', t)).out.split('\n')[0]).toBe(`Topic: ${t}\tPartitionCount: 1\tConfigs: retention.bytes=1048576,retention.ms=3600000`);
    expect((await run('alter', t, '--config', 'retention.ms=1000', '--validate-only')).out).toBe(`Valid config change for topic ${t}: retention.ms=1000.\n`);
    await expect(run('alter', t, '--config', 'retention.ms=1000', '--config', 'segment.bytes=lots')).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
    await expect(run('alter', t, '--delete-config', 'log.retention.hours')).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
    expect((await run('describe', t)).out.split('\n')[0]).toBe(`Topic: ${t}\tPartitionCount: 1\tConfigs: retention.bytes=1048576,retention.ms=3600000`);
    // Config and partitions at once.
    expect((await run('alter', t, '--config', 'retention.ms=7200000', '--partitions', '2')).out).toBe(
      `Completed updating config for topic ${t}: retention.ms=7200000.\nTopic ${t} now has 2 partitions.\n`,
    );
  });

  it('bad arguments are refused before any request', async () => {
    await expect(run('create', 'x', '--config', 'novalue')).rejects.toMatchObject({ code: 'commander.invalidArgument', message: expect.stringMatching(/key=value/) });
    await expect(run('create', 'x', '--partitions', '0')).rejects.toThrow(/--partitions must be an integer >= 1, got '0'/);
    await expect(run('alter', 'x')).rejects.toMatchObject({ code: 'sluice.nothingToAlter' });
    await expect(run('alter', 'x', '--delete-config', 'a=b')).rejects.toMatchObject({ code: 'commander.invalidArgument' });
    await expect(run('alter', 'x', '--config', 'a=1', '--delete-config', 'a')).rejects.toMatchObject({ code: 'sluice.invalidArgument' });
    await expect(run('describe', topicName('missing'))).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
  });
});
