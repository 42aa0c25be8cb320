// lib/cli/produce.ts in process: one record per line of --file, keys split at --key-separator,
// --partition honoured; a failure prints the error and sets exit code 1.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { produceCommand } from '../../lib/cli/produce.js';
import { Sluice } from '../../lib/client/sluice.js';
import { startHarness, topicName, type Harness } from '../client/harness.js';
import { runCli } from './support.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness.close());

describe('sluice produce', () => {
  it('lines become records, split into key and value, to the partition asked', async () => {
    const sluice = new Sluice({ endpoint: harness.url });
    const t = topicName();
    await sluice.admin().createTopics({ topics: [{ topic: t, numPartitions: 2 }] });
    const file = join(mkdtempSync(join(tmpdir(), 'sluice-cli-')), 'in.txt');
    writeFileSync(file, 'k1:v1\nk2:v:2\nno-key\n');
    const res = await runCli(produceCommand, harness.url, ['produce', t, '--file', file, '--key-separator', ':', '--partition', '1', '--linger-ms', '1']);
    expect(res.exitCode).toBeUndefined();
    const fetched = await sluice.api.fetch(t, 1, { offset: 0 });
    expect(fetched.records.map((r) => [r.key, r.value])).toEqual([['k1', 'v1'], ['k2', 'v:2'], [null, 'no-key']]);
    expect((await sluice.api.fetch(t, 0, { offset: 0 })).records).toEqual([]);
  });
  it('a topic that does not exist: the error on stderr and exit code 1', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sluice-cli-')), 'in.txt');
    writeFileSync(file, 'x\n');
    const res = await runCli(produceCommand, harness.url, ['produce', topicName('none'), '--file', file, '--partition', '0', '--linger-ms', '1']);
    expect(res.exitCode).toBe(1);
    expect(res.err).toMatch(/^error: UNKNOWN_TOPIC_OR_PARTITION: /m);
    expect(res.err).toMatch(/Produced 0 of 1 records to .*; 1 failed\./);
  });
});
