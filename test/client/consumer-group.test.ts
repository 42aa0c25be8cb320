// Consumer groups against a real local Sluice and its coordinator: committed positions survive a
// restart; three members share a 6-partition topic and every record is processed exactly once
// while a member leaves and another joins; with the cooperative `sticky` assignor the members keep
// consuming the partitions they keep while a moved partition is being handed over.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Sluice } from '../../lib/client/sluice.js';
import type { Consumer, ConsumerOptions } from '../../lib/client/consumer.js';
import type { TopicPartitions } from '../../lib/client/wire.js';
import { RecordingTransport, startHarness, topicName, type Harness } from './harness.js';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
});

const count = (tps: readonly TopicPartitions[]) => tps.reduce((n, t) => n + t.partitions.length, 0);

describe('consumer group', () => {
  it('resumes at the committed position after a consumer that read 200 records exits', async () => {
    const sluice = new Sluice({ endpoint: harness.url });
    const topic = topicName();
    const groupId = topicName('g');
    await sluice.admin().createTopics({ topics: [{ topic, numPartitions: 1 }] });
    await sluice.producer().send({ topic, messages: Array.from({ length: 300 }, (_, i) => ({ value: `r${i}` })) });

    const first: number[] = [];
    const c1 = sluice.consumer({ groupId, maxWaitMs: 200 });
    c1.subscribe({ topics: [topic], fromBeginning: true });
    await c1.run({
      eachMessage: async ({ message }) => {
        first.push(message.offset);
        if (first.length === 200) c1.pause([{ topic }]);
      },
    });
    await vi.waitFor(() => expect(first).toHaveLength(200), { timeout: 20_000 });
    await c1.disconnect();
    expect(first).toEqual(Array.from({ length: 200 }, (_, i) => i));

    const lag = await sluice.admin().groupLag(groupId);
    expect(lag).toEqual([{ topic, partition: 0, currentOffset: 200, logEndOffset: 300, lag: 100, memberId: null }]);

    const second: number[] = [];
    const c2 = sluice.consumer({ groupId, maxWaitMs: 200 });
    c2.subscribe({ topics: [topic], fromBeginning: true });
    await c2.run({ eachMessage: async ({ message }) => void second.push(message.offset) });
    await vi.waitFor(() => expect(second).toHaveLength(100), { timeout: 20_000 });
    await c2.disconnect();
    expect(second[0]).toBe(200);
  });

  it('does not let an auto-commit still in flight land after the final commit of disconnect', async () => {
    const sluice = new Sluice({ endpoint: harness.url });
    const topic = topicName();
    const groupId = topicName('g');
    await sluice.admin().createTopics({ topics: [{ topic, numPartitions: 1 }] });
    await sluice.producer().send({ topic, messages: Array.from({ length: 10 }, (_, i) => ({ value: `r${i}` })) });

    // The first auto-commit (position 5: the handler is held there) is slowed the way a network
    // can slow one request: it reaches the server once a later commit got through (or after a
    // moment), and before the leave that follows.
    const transport = new RecordingTransport(harness.url);
    let releaseHeld!: () => void;
    const held = new Promise<void>((r) => (releaseHeld = r));
    let heldOffset: number | undefined;
    let heldDone: Promise<unknown> | undefined;
    transport.intercept = async (request, forward) => {
      if (request.op === 'leaveGroup') await heldDone?.catch(() => undefined);
      if (request.op !== 'commitOffsets') return forward();
      const offset = (request.body as { offsets: { offset: number }[] }).offsets[0].offset;
      if (heldDone === undefined) {
        heldOffset = offset;
        setTimeout(releaseHeld, 300);
        heldDone = held.then(forward);
        return heldDone;
      }
      const reply = await forward();
      releaseHeld();
      return reply;
    };
    let openHandler!: () => void;
    const handlerGate = new Promise<void>((r) => (openHandler = r));
    const processed: number[] = [];
    const consumer = new Sluice({ transport }).consumer({ groupId, maxWaitMs: 100 });
    consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommitInterval: 200,
      eachMessage: async ({ message }) => {
        if (message.offset === 5) await handlerGate;
        processed.push(message.offset);
      },
    });
    await vi.waitFor(() => expect(heldOffset).toBe(5), { timeout: 20_000 });
    openHandler();
    await consumer.disconnect();
    // disconnect committed the position after the last processed record, and nothing older overwrote it
    expect(processed.at(-1)).toBeGreaterThanOrEqual(5);
    expect(await sluice.admin().fetchOffsets({ groupId })).toMatchObject([{ topic, partition: 0, offset: processed.at(-1)! + 1 }]);
  });

  it('three members consume every record exactly once across a leave and a cooperative join', async () => {
    const admin = new Sluice({ endpoint: harness.url });
    const topic = topicName();
    const groupId = topicName('g');
    await admin.admin().createTopics({ topics: [{ topic, numPartitions: 6 }] });
    const producer = admin.producer({ partitioner: 'round-robin' });
    let produced = 0;
    const produce = async (n: number) => {
      const messages = Array.from({ length: n }, () => ({ value: `v${produced++}` }));
      await producer.send({ topic, messages });
    };

    const seen = new Map<string, number>();
    const consumedBy = new Map<string, Set<number>>();
    const revoked = new Map<string, TopicPartitions[][]>();
    const options = (name: string): ConsumerOptions => ({
      groupId,
      clientId: name,
      assignor: 'sticky',
      heartbeatIntervalMs: 200,
      maxWaitMs: 200,
      onPartitionsRevoked: (tps) => void revoked.set(name, [...(revoked.get(name) ?? []), tps]),
    });
    const start = async (name: string, transport?: RecordingTransport) => {
      const sluice = new Sluice(transport ? { transport } : { endpoint: harness.url });
      const consumer = sluice.consumer(options(name));
      consumer.subscribe({ topics: [topic], fromBeginning: true });
      await consumer.run({
        autoCommitInterval: 60_000, // commits happen at handover and leave; that is what is under test
        eachMessage: async ({ partition, message }) => {
          const v = message.value!.toString();
          seen.set(v, (seen.get(v) ?? 0) + 1);
          consumedBy.set(name, (consumedBy.get(name) ?? new Set()).add(partition));
        },
      });
      return consumer;
    };
    const total = () => [...seen.values()].reduce((a, b) => a + b, 0);
    const spread = async (members: Consumer[], expected: number) =>
      vi.waitFor(() => expect(members.map((m) => count(m.assignment())).sort()).toEqual(Array(members.length).fill(expected)), { timeout: 20_000 });

    // Phase 1: three members, two partitions each.
    const transportA = new RecordingTransport(harness.url);
    const a = await start('a', transportA);
    const b = await start('b');
    const c = await start('c');
    await spread([a, b, c], 2);
    await produce(60);
    await vi.waitFor(() => expect(total()).toBe(60), { timeout: 20_000 });
    revoked.clear(); // forming the group moved partitions; from here on count what each change revokes

    // Phase 2: c leaves (committing first); a and b take over its partitions without revoking their own.
    await c.disconnect();
    await spread([a, b], 3);
    expect(revoked.get('a') ?? []).toEqual([]);
    expect(revoked.get('b') ?? []).toEqual([]);
    await produce(60);
    await vi.waitFor(() => expect(total()).toBe(120), { timeout: 20_000 });

    // Phase 3: d joins. Hold a's handover commit, so the moved partition stays with a meanwhile:
    // a must keep consuming the partitions it keeps while the rebalance is in progress.
    let releaseCommit!: () => void;
    const commitHeld = new Promise<void>((r) => (releaseCommit = r));
    let commitsHeld = 0;
    transportA.intercept = async (request, forward) => {
      if (request.op === 'commitOffsets') {
        commitsHeld++;
        await commitHeld;
      }
      return forward();
    };
    const d = await start('d');
    await vi.waitFor(() => expect(commitsHeld).toBe(1), { timeout: 20_000 });
    const kept = a.assignment()[0].partitions; // the fetchers still running on a mid-rebalance
    expect(kept).toHaveLength(2);
    const before = total();
    await produce(60); // 10 per partition
    await vi.waitFor(() => expect(total() - before).toBeGreaterThanOrEqual(kept.length * 10), { timeout: 20_000 });
    expect(count(d.assignment())).toBeLessThan(2); // a's moved partition is not handed over yet
    releaseCommit();
    transportA.intercept = undefined;
    await spread([a, b, d], 2);
    await vi.waitFor(() => expect(total()).toBe(180), { timeout: 20_000 });
    expect(count(revoked.get('a')!.flat())).toBe(1); // only the moved partition was revoked
    expect(count((revoked.get('b') ?? []).flat())).toBe(1);
    // Records produced after the handover reach d on both of its partitions.
    await produce(60);
    await vi.waitFor(() => expect(total()).toBe(240), { timeout: 20_000 });

    await Promise.all([a.disconnect(), b.disconnect(), d.disconnect()]);
    expect(seen.size).toBe(240);
    expect([...seen.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    expect(consumedBy.get('d')!.size).toBe(2);
  });
});
