// lib/cli/groups.ts in process against a local Sluice: kafka-consumer-groups.sh's list/describe/reset/delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupsCommand } from '../../lib/cli/groups.js';
import { Sluice } from '../../lib/client/sluice.js';
import { startHarness, topicName, type Harness } from '../client/harness.js';
import { runCli } from './support.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness.close());
const run = (...args: string[]) => runCli(groupsCommand, harness.url, ['groups', ...args]);

describe('sluice groups', () => {
  it('reset-offsets prints the new offsets; list and describe show the group; delete removes it', async () => {
    const sluice = new Sluice({ endpoint: harness.url });
    const [t, g] = [topicName(), topicName('g')];
    await sluice.admin().createTopics({ topics: [{ topic: t, numPartitions: 2 }] });
    await sluice.producer().send({ topic: t, messages: [{ value: 'a', partition: 1 }, { value: 'b', partition: 1 }] });
    const reset = (await run('reset-offsets', g, '--topic', t, '--to-latest')).out.split('\n');
    expect(reset[0]).toMatch(/^TOPIC\s+PARTITION\s+NEW-OFFSET$/);
    expect(reset[1]).toMatch(new RegExp(`^${t}\\s+0\\s+0$`));
    expect(reset[2]).toMatch(new RegExp(`^${t}\\s+1\\s+2$`));
    expect((await run('reset-offsets', g, '--topic', t, '--partitions', '1', '--to-offset', '1')).out).toMatch(new RegExp(`${t}\\s+1\\s+1\\n$`));
    expect((await run('list')).out).toContain(g);
    const described = (await run('describe', g)).out;
    expect(described).toContain(t);
    expect(described).toMatch(/\b1\b.*\b2\b/); // offset 1 against log end 2
    expect((await run('delete', g)).out).toBe(`Deleted group ${g}.\n`);
    expect((await run('list')).out).not.toContain(g);
  });
});
