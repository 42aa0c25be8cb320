// A compacted topic through the Kafka gateway with unchanged kafkajs clients: a producer sends
// updates and tombstones, the maintenance job cleans the log, and a consumer reading from the
// beginning gets, offset by offset, only the surviving records (gaps between; batches that start
// before its offset or end in dropped records), and ends with every key's newest value. A
// keyless message is refused with Kafka's INVALID_RECORD.
import { Partitioners } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext } from '../support/storage.js';
import { withClock } from '../log/maintenance-support.js';
import type { ClockedContext } from '../log/maintenance-support.js';
import { maintainUntilCleaned, readCompacted } from '../log/compaction-support.js';
import { getTopic } from '../../lib/metadata/topics.js';
import { startTestGateway, type TestGateway } from './support.js';

let kafka: TestGateway;
let ctx: ClockedContext;

beforeAll(async () => {
  ctx = withClock(await createTestContext());
  kafka = await startTestGateway({ ctx });
});
afterAll(() => kafka.close());

const KEYS = 40;

describe('a compacted topic through the Kafka gateway', () => {
  it('a kafkajs consumer from the beginning ends with every key newest value, at the offsets the cleaner kept', { timeout: 60_000 }, async () => {
    const admin = kafka.client().admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'table', numPartitions: 1, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }] });
    await admin.disconnect();

    const producer = kafka.client().producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const newest = new Map<string, string | null>();
    for (let round = 0; round < 8; round++) {
      const messages = Array.from({ length: 60 }, (_, i) => {
        const key = `k${(round * 13 + i) % KEYS}`;
        const value = round === 7 && i % 9 === 0 ? null : `${key}@${round}.${i}`;
        return { key, value };
      });
      for (const m of messages) newest.set(m.key, m.value);
      for (const ack of await producer.send({ topic: 'table', messages })) expect(ack.errorCode).toBe(0);
    }
    // Kafka's refusal of a record without a key in a compacted topic.
    const refused = await producer.send({ topic: 'table', messages: [{ value: 'no key' }] }).then(
      () => 'accepted',
      (e: { type?: string; cause?: { type?: string } }) => e.type ?? e.cause?.type ?? String(e),
    );
    expect(refused).toBe('INVALID_RECORD');
    await producer.disconnect();

    const reports = await maintainUntilCleaned(ctx);
    expect(reports.reduce((n, r) => n + r.compaction.recordsRemoved, 0)).toBeGreaterThan(400);
    const topic = (await getTopic(ctx, 'table'))!;
    const survivors = await readCompacted(ctx, topic);
    expect(survivors.length).toBe(KEYS);

    const consumer = kafka.client().consumer({ groupId: 'table-reader', maxBytes: 2048 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'table', fromBeginning: true });
    const seen: { offset: number; key: string; value: string | null }[] = [];
    const lastOffset = survivors[survivors.length - 1].offset;
    const done = new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          seen.push({ offset: Number(message.offset), key: message.key!.toString(), value: message.value?.toString() ?? null });
          if (Number(message.offset) === lastOffset) resolve();
        },
      });
    });
    await done;
    await consumer.disconnect();

    expect(seen.map((m) => m.offset)).toEqual(survivors.map((r) => r.offset));
    const table = new Map<string, string | null>();
    for (const m of seen) table.set(m.key, m.value);
    expect(table).toEqual(newest);
  });
});
