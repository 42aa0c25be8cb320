// lib/client/consumer.ts against a local Sluice: the usage rules, standalone assign with seek,
// pause/resume, eachBatch with resolveOffset, a group member committing on disconnect so the
// next member resumes where it stopped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sluice } from '../../lib/client/sluice.js';
import { startHarness, topicName, type Harness } from './harness.js';

let harness: Harness;
let sluice: Sluice;
beforeAll(async () => {
  harness = await startHarness();
  sluice = new Sluice({ endpoint: harness.url });
});
afterAll(async () => harness.close());

async function topicWith(values: string[], partitions = 1): Promise<string> {
  const topic = topicName();
  await sluice.admin().createTopics({ topics: [{ topic, numPartitions: partitions }] });
  await sluice.producer().send({ topic, messages: values.map((value) => ({ value, partition: 0 })) });
  return topic;
}
const until = async (cond: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('Consumer', () => {
  it('usage rules: subscribe or assign, not both; one handler; run once; commitOffsets needs a group', async () => {
    const c = sluice.consumer();
    expect(() => c.subscribe({})).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST' }));
    c.subscribe({ topic: 'x' });
    expect(() => c.assign([{ topic: 'x', partitions: [0] }])).toThrow(/either subscribes or assigns/);
    await expect(c.run({} as never)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(sluice.consumer().run({ eachMessage: async () => undefined })).rejects.toThrow(/subscribe\(\) or assign\(\)/);
    await expect(sluice.consumer().commitOffsets([])).rejects.toThrow(/needs a groupId/);
  });

  it('assign from the beginning, seek, pause and resume', async () => {
    const topic = await topicWith(['a', 'b', 'c', 'd']);
    const seen: string[] = [];
    const c = sluice.consumer({ maxWaitMs: 100 });
    c.assign([{ topic, partitions: [0] }], { fromBeginning: true });
    c.seek({ topic, partition: 0, offset: 2 });
    await c.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) });
    await until(() => seen.length >= 2);
    expect(seen).toEqual(['c', 'd']);
    expect(c.assignment()).toEqual([{ topic, partitions: [0] }]);
    c.pause([{ topic }]);
    expect(c.paused()).toEqual([{ topic, partitions: [0] }]);
    await sluice.producer().send({ topic, messages: [{ value: 'e', partition: 0 }] });
    await new Promise((r) => setTimeout(r, 400));
    expect(seen).toEqual(['c', 'd']);
    c.resume([{ topic }]);
    await until(() => seen.length >= 3);
    expect(seen).toEqual(['c', 'd', 'e']);
    await c.disconnect();
  });

  it('eachBatch without auto-resolve: resolveOffset moves the position; a group member commits on disconnect and the next one resumes there', async () => {
    const topic = await topicWith(['1', '2', '3']);
    const group = topicName('g');
    const batches: string[][] = [];
    const first = sluice.consumer({ groupId: group, maxWaitMs: 100 });
    first.subscribe({ topic, fromBeginning: true });
    await first.run({
      eachBatchAutoResolve: false, // kafkajs' default (true) would mark the whole batch processed
      eachBatch: async ({ batch, resolveOffset }) => {
        batches.push(batch.messages.map((m) => m.value!.toString()));
        resolveOffset(batch.messages[1].offset); // only the first two processed
      },
    });
    await until(() => batches.length >= 1);
    await first.disconnect();
    expect(batches[0]).toEqual(['1', '2', '3']);
    expect((await sluice.admin().fetchOffsets({ groupId: group })).map((o) => o.offset)).toEqual([2]);
    const seen: string[] = [];
    const second = sluice.consumer({ groupId: group, maxWaitMs: 100 });
    second.subscribe({ topic });
    await second.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) });
    await until(() => seen.length >= 1);
    expect(seen).toEqual(['3']);
    await second.disconnect();
  });
});
