// Consumer controls against a real local Sluice: standalone assign, seek, pause/resume, eachBatch
// with resolveOffset, and manual commits that a restarted group member resumes from.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Sluice } from '../../lib/client/sluice.js';
import { startHarness, topicName, type Harness } from './harness.js';

let harness: Harness;
let sluice: Sluice;

beforeAll(async () => {
  harness = await startHarness();
  sluice = new Sluice({ endpoint: harness.url });
});
afterAll(async () => {
  await harness.close();
});

async function topicWith(partitions: number, perPartition: number): Promise<string> {
  const topic = topicName();
  await sluice.admin().createTopics({ topics: [{ topic, numPartitions: partitions }] });
  const messages = [];
  for (let p = 0; p < partitions; p++) for (let i = 0; i < perPartition; i++) messages.push({ value: `p${p}-${i}`, partition: p });
  await sluice.producer().send({ topic, messages });
  return topic;
}

describe('consumer controls', () => {
  it('reads assigned partitions without a group and starts where seek says', async () => {
    const topic = await topicWith(3, 10);
    const got: string[] = [];
    const consumer = sluice.consumer({ maxWaitMs: 100 });
    consumer.assign([{ topic, partitions: [2] }], { fromBeginning: true });
    consumer.seek({ topic, partition: 2, offset: 7 });
    await consumer.run({ eachMessage: async ({ message }) => void got.push(message.value!.toString()) });
    await vi.waitFor(() => expect(got).toEqual(['p2-7', 'p2-8', 'p2-9']));
    consumer.seek({ topic, partition: 2, offset: 0 });
    await vi.waitFor(() => expect(got).toHaveLength(13));
    expect(got.slice(3)).toEqual(Array.from({ length: 10 }, (_, i) => `p2-${i}`));
    await consumer.disconnect();
  });

  it('honours a seek made inside eachMessage instead of moving past it', async () => {
    const topic = await topicWith(1, 5);
    const got: number[] = [];
    const consumer = sluice.consumer({ maxWaitMs: 100 });
    consumer.assign([{ topic, partitions: [0] }], { fromBeginning: true });
    let rewound = false;
    await consumer.run({
      eachMessage: async ({ message }) => {
        got.push(message.offset);
        if (message.offset === 2 && !rewound) {
          rewound = true;
          consumer.seek({ topic, partition: 0, offset: 0 });
        }
      },
    });
    await vi.waitFor(() => expect(got).toHaveLength(8));
    expect(got).toEqual([0, 1, 2, 0, 1, 2, 3, 4]);
    await consumer.disconnect();
  });

  it('stops a paused partition and continues it on resume while others flow', async () => {
    const topic = await topicWith(2, 5);
    const got: string[] = [];
    const consumer = sluice.consumer({ maxWaitMs: 100 });
    consumer.assign([{ topic, partitions: [0, 1] }], { fromBeginning: true });
    consumer.pause([{ topic, partitions: [0] }]);
    await consumer.run({ eachMessage: async ({ message }) => void got.push(message.value!.toString()) });
    await vi.waitFor(() => expect(got).toHaveLength(5));
    expect(got.every((v) => v.startsWith('p1-'))).toBe(true);
    expect(consumer.paused()).toEqual([{ topic, partitions: [0] }]);
    consumer.resume([{ topic, partitions: [0] }]);
    await vi.waitFor(() => expect(got).toHaveLength(10));
    await consumer.disconnect();
  });

  it('hands whole batches to eachBatch and commits manually; a new member resumes there', async () => {
    const topic = await topicWith(1, 30);
    const groupId = topicName('g');
    const batches: number[][] = [];
    const first = sluice.consumer({ groupId, maxWaitMs: 100 });
    first.subscribe({ topic, fromBeginning: true });
    await first.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset }) => {
        batches.push(batch.messages.map((m) => m.offset));
        // process only the first 12 records, then stop consuming
        for (const m of batch.messages.filter((m) => m.offset < 12)) resolveOffset(m.offset);
        if (batch.messages.some((m) => m.offset >= 11)) first.pause([{ topic }]);
      },
    });
    await vi.waitFor(() => expect(batches.flat()).toContain(11));
    await first.commitOffsets([{ topic, partition: 0, offset: 12 }]);
    await first.disconnect();
    expect(await sluice.admin().fetchOffsets({ groupId })).toMatchObject([{ topic, partition: 0, offset: 12 }]);

    const offsets: number[] = [];
    const second = sluice.consumer({ groupId, maxWaitMs: 100 });
    second.subscribe({ topic, fromBeginning: true });
    await second.run({ eachMessage: async ({ message }) => void offsets.push(message.offset) });
    await vi.waitFor(() => expect(offsets).toHaveLength(18));
    expect(offsets[0]).toBe(12);
    await second.disconnect();
  });
});
