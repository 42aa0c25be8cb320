// lib/cli/consume.ts in process: --partition/--offset reads, printed fields and JSON lines,
// --max-messages, option conflicts refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumeCommand } from '../../lib/cli/consume.js';
import { Sluice } from '../../lib/client/sluice.js';
import { startHarness, topicName, type Harness } from '../client/harness.js';
import { runCli } from './support.js';

let harness: Harness;
let topic: string;
beforeAll(async () => {
  harness = await startHarness();
  const sluice = new Sluice({ endpoint: harness.url });
  topic = topicName();
  await sluice.admin().createTopics({ topics: [{ topic, numPartitions: 1 }] });
  await sluice.producer().send({ topic, messages: ['a', 'b', 'c', 'd'].map((v, i) => ({ key: `k${i}`, value: v, partition: 0 })) });
});
afterAll(async () => harness.close());
const run = (...args: string[]) => runCli(consumeCommand, harness.url, ['consume', topic, ...args]);

describe('sluice consume', () => {
  it('from an offset, with key, offset and partition, up to --max-messages', async () => {
    const res = await run('--partition', '0', '--offset', '1', '--max-messages', '2', '--print-key', '--print-offset', '--print-partition', '--separator', '|');
    const lines = res.out.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0].split('|')).toEqual(expect.arrayContaining(['Partition:0', 'Offset:1', 'b']));
    expect(lines[0]).toContain('k1');
    expect(lines[1].split('|')).toEqual(expect.arrayContaining(['Offset:2', 'c']));
    expect(res.err).toContain('Processed a total of 2 messages');
  });
  it('JSON lines from the beginning; --timeout-ms ends an idle read', async () => {
    const res = await run('--partition', '0', '--offset', 'earliest', '--format', 'json', '--timeout-ms', '1500');
    const records = res.out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.map((r) => r.value)).toEqual(['a', 'b', 'c', 'd']);
    expect(records[0]).toMatchObject({ offset: 0, partition: 0, key: 'k0' });
  });
  it('conflicting options are refused', async () => {
    await expect(run('--partition', '0', '--group', 'g')).rejects.toThrow(/cannot be combined/);
    await expect(run('--offset', '3')).rejects.toThrow(/--offset needs --partition/);
    await expect(run('--format', 'xml')).rejects.toThrow(/--format must be/);
  });
});
