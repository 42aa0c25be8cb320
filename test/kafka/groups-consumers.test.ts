// Issue 14's acceptance test for groups: a consumer group of three unchanged kafkajs consumers
// reads every message of a 6-partition topic exactly once, in order per partition, across a
// member leaving and a member rejoining, with committed offsets; and the group is the same group
// Sluice's own describe (what `sluice groups describe` shows) reports, with its members and offsets.
//
// The messages come in three rounds: with all three consumers, after one has left (the other two
// take its partitions over from its committed offsets), and after a new consumer joined. Before
// each membership change the test waits until the group has committed everything it read, so
// any message seen twice would be a coordinator fault (two owners, or a wrong offset handed
// over), not the at-least-once window every Kafka consumer has.
import type { Consumer, EachMessagePayload } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { describeGroup } from '../../lib/groups/describe.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { startTestGateway, type TestGateway } from './support.js';

const TOPIC = 'events';
const GROUP = 'readers';
const PARTITIONS = 6;
const PER_ROUND = 120;

let kafka: TestGateway;

beforeAll(async () => {
  kafka = await startTestGateway();
  await createTopic(kafka.ctx, TOPIC, PARTITIONS);
});
afterAll(() => kafka.close());

interface Seen {
  readonly value: string;
  readonly partition: number;
  readonly offset: number;
  readonly consumer: string;
}

describe('a kafkajs consumer group through the gateway', () => {
  it('reads every message exactly once, in order per partition, across a member leaving and rejoining', async () => {
    const seen: Seen[] = [];
    const consumers = new Map<string, Consumer>();
    const client = kafka.client({ clientId: 'group-test' });

    async function startConsumer(name: string): Promise<void> {
      const consumer = client.consumer({ groupId: GROUP, sessionTimeout: 6000, rebalanceTimeout: 10_000, heartbeatInterval: 500, maxWaitTimeInMs: 200 });
      await consumer.connect();
      await consumer.subscribe({ topics: [TOPIC], fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ partition, message }: EachMessagePayload) => {
          seen.push({ value: message.value!.toString(), partition, offset: Number(message.offset), consumer: name });
        },
      });
      consumers.set(name, consumer);
    }

    const producer = client.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    let produced = 0;
    async function produceRound(): Promise<void> {
      const messages = Array.from({ length: PER_ROUND }, (_, i) => ({ key: `key-${(produced + i) % 37}`, value: `m${produced + i}` }));
      produced += PER_ROUND;
      for (let i = 0; i < messages.length; i += 20) await producer.send({ topic: TOPIC, messages: messages.slice(i, i + 20) });
    }

    /** Every message produced so far has been seen and its offset committed. */
    async function drained(): Promise<void> {
      await vi.waitFor(
        async () => {
          expect(seen.length).toBeGreaterThanOrEqual(produced);
          const described = await describeGroup(kafka.ctx, GROUP);
          expect(described.offsets.reduce((n, o) => n + o.offset, 0)).toBe(produced);
          expect(described.offsets.every((o) => o.lag === 0)).toBe(true);
        },
        { timeout: 40_000, interval: 250 },
      );
    }

    /** The group is Stable with exactly these consumers' members. */
    async function stableWith(count: number): Promise<void> {
      await vi.waitFor(
        async () => {
          const described = await describeGroup(kafka.ctx, GROUP);
          expect(described.state).toBe('Stable');
          expect(described.members).toHaveLength(count);
          expect(described.members.every((m) => m.clientId === 'group-test' && m.topics.join() === TOPIC)).toBe(true);
          expect(described.members.flatMap((m) => m.assignment.flatMap((a) => a.partitions)).sort()).toEqual([0, 1, 2, 3, 4, 5]);
        },
        { timeout: 40_000, interval: 250 },
      );
    }

    try {
      await Promise.all(['a', 'b', 'c'].map(startConsumer));
      await stableWith(3);
      await produceRound();
      await drained();
      const firstRoundConsumers = new Set(seen.map((s) => s.consumer));
      expect(firstRoundConsumers.size).toBeGreaterThanOrEqual(2); // the partitions are shared

      // c leaves (kafkajs sends LeaveGroup): a and b take its partitions over from its commits.
      await consumers.get('c')!.disconnect();
      consumers.delete('c');
      await stableWith(2);
      await produceRound();
      await drained();

      // A member rejoins the group: the partitions are shared by three again.
      await startConsumer('d');
      await stableWith(3);
      await produceRound();
      await drained();
      expect(seen.slice(-PER_ROUND).some((s) => s.consumer === 'd')).toBe(true);
    } finally {
      await producer.disconnect();
      await Promise.all([...consumers.values()].map((c) => c.disconnect()));
    }

    // Exactly once: every message seen, none twice.
    const values = seen.map((s) => s.value);
    expect(new Set(values).size).toBe(values.length);
    expect(values.length).toBe(produced);
    expect(new Set(values)).toEqual(new Set(Array.from({ length: produced }, (_, i) => `m${i}`)));
    // In order per partition: each partition's offsets were seen as 0, 1, 2, ... whoever read them.
    for (let p = 0; p < PARTITIONS; p++) {
      const offsets = seen.filter((s) => s.partition === p).map((s) => s.offset);
      expect(offsets).toEqual(offsets.map((_, i) => i));
    }
    // Sluice's describe (`sluice groups describe`) shows the Kafka group: Empty now that every
    // member left, with its committed offsets at the end of every partition.
    const described = await describeGroup(kafka.ctx, GROUP);
    expect(described.state).toBe('Empty');
    expect(described.offsets.map((o) => [o.partition, o.lag])).toEqual(Array.from({ length: PARTITIONS }, (_, p) => [p, 0]));
    expect(described.offsets.reduce((n, o) => n + o.offset, 0)).toBe(produced);
  });
});
