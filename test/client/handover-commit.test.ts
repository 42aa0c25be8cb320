// A handover whose final commit fails must not release the partition: the coordinator hands a
// revoked partition to its next owner only once the previous owner acknowledges (heartbeat), and
// the previous owner acknowledges only after its final position is committed. Here the old owner's
// commits are throttled (429, nothing stored) for a while when a second member joins: the moved
// partition stays withheld meanwhile, and once a commit lands the new owner starts after every
// record the old owner processed — nothing is read twice.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Sluice } from '../../lib/client/sluice.js';
import type { SluiceClientError } from '../../lib/client/errors.js';
import type { TopicPartitions } from '../../lib/client/wire.js';
import { RecordingTransport, retriableError, startHarness, topicName, type Harness } from './harness.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
});

const count = (tps: readonly TopicPartitions[]) => tps.reduce((n, t) => n + t.partitions.length, 0);

describe('group handover after a failed final commit', () => {
  it.each(['sticky', 'range'] as const)('keeps the partition until its position is committed (%s)', async (assignor) => {
    const topic = topicName();
    const groupId = topicName('g');
    const admin = new Sluice({ endpoint: harness.url });
    await admin.admin().createTopics({ topics: [{ topic, numPartitions: 2 }] });
    await admin.producer({ partitioner: 'round-robin' }).send({ topic, messages: Array.from({ length: 40 }, (_, i) => ({ value: `v${i}` })) });

    const readBy = new Map<string, string[]>();
    const errors: SluiceClientError[] = [];
    const start = async (name: string, transport: RecordingTransport) => {
      const consumer = new Sluice({ transport }).consumer({
        groupId,
        clientId: name,
        assignor,
        heartbeatIntervalMs: 100,
        sessionTimeoutMs: 10_000,
        maxWaitMs: 100,
        retry: { retries: 1, initialRetryTime: 10 },
        onError: (e) => void errors.push(e),
      });
      consumer.subscribe({ topics: [topic], fromBeginning: true });
      await consumer.run({
        autoCommitInterval: 60_000, // only the handover commits: that is what is under test
        eachMessage: async ({ message }) => void readBy.set(name, [...(readBy.get(name) ?? []), message.value!.toString()]),
      });
      return consumer;
    };

    const transportA = new RecordingTransport(harness.url);
    const a = await start('a', transportA);
    await vi.waitFor(() => expect(readBy.get('a')).toHaveLength(40), { timeout: 20_000 });

    // From now on a's commits are throttled: refused before anything is stored.
    let throttling = true;
    let refused = 0;
    transportA.intercept = async (request, forward) => {
      if (request.op === 'commitOffsets' && throttling) {
        refused++;
        throw retriableError('THROTTLING');
      }
      return forward();
    };
    const b = await start('b', new RecordingTransport(harness.url));
    await vi.waitFor(() => expect(refused).toBeGreaterThanOrEqual(4), { timeout: 20_000 });
    // Well past several heartbeats: the partition a gives up is still not b's.
    await new Promise((r) => setTimeout(r, 1000));
    expect(count(b.assignment())).toBe(0);
    expect(readBy.get('b') ?? []).toEqual([]);
    expect(errors.some((e) => e.code === 'THROTTLING')).toBe(true);

    throttling = false;
    await vi.waitFor(() => expect([count(a.assignment()), count(b.assignment())]).toEqual([1, 1]), { timeout: 20_000 });
    await admin.producer({ partitioner: 'round-robin' }).send({ topic, messages: Array.from({ length: 10 }, (_, i) => ({ value: `w${i}` })) });
    await vi.waitFor(() => expect((readBy.get('a')?.length ?? 0) + (readBy.get('b')?.length ?? 0)).toBe(50), { timeout: 20_000 });
    await Promise.all([a.disconnect(), b.disconnect()]);

    const all = [...(readBy.get('a') ?? []), ...(readBy.get('b') ?? [])];
    expect(new Set(all).size).toBe(all.length); // nothing read twice
    expect((readBy.get('b') ?? []).every((v) => v.startsWith('w'))).toBe(true);
  });
});
