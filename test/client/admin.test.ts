// lib/client/admin.ts against a local Sluice: kafkajs-shaped admin calls and the group lag view.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sluice } from '../../lib/client/sluice.js';
import { startHarness, topicName, type Harness } from './harness.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness.close());

describe('Admin', () => {
  it('createTopics answers false when one existed; list, describe, offsets, grow, delete', async () => {
    const admin = new Sluice({ endpoint: harness.url }).admin();
    const [a, b] = [topicName('a'), topicName('b')];
    expect(await admin.createTopics({ topics: [{ topic: a, numPartitions: 2 }] })).toBe(true);
    expect(await admin.createTopics({ topics: [{ topic: a }, { topic: b }] })).toBe(false);
    expect(await admin.listTopics()).toEqual(expect.arrayContaining([a, b]));
    expect((await admin.listTopicsWithPartitions()).find((t) => t.name === b)?.partitions).toBe(1);
    await new Sluice({ endpoint: harness.url }).producer().send({ topic: a, messages: [{ value: 'x', partition: 1 }] });
    expect(await admin.fetchTopicOffsets(a)).toEqual([{ partition: 0, low: 0, high: 0 }, { partition: 1, low: 0, high: 1 }]);
    await admin.createPartitions({ topicPartitions: [{ topic: a, count: 3 }] });
    expect((await admin.describeTopic(a)).partitions).toHaveLength(3);
    await admin.deleteTopics({ topics: [a, b] });
    expect(await admin.listTopics()).not.toEqual(expect.arrayContaining([a]));
    await expect(admin.createTopics({ topics: [{ topic: 'bad name' }] })).rejects.toMatchObject({ code: 'INVALID_TOPIC_EXCEPTION' });
  });

  it('fetchTopicOffsetsByTimestamp: the first offset at or after the time, the high watermark past the newest record', async () => {
    const sluice = new Sluice({ endpoint: harness.url });
    const admin = sluice.admin();
    const t = topicName('ts');
    await admin.createTopics({ topics: [{ topic: t, numPartitions: 2 }] });
    const t0 = Date.now() - 60_000;
    await sluice.producer().send({ topic: t, messages: [0, 1, 2].map((i) => ({ value: `v${i}`, partition: 0, timestamp: String(t0 + i * 1000) })) });
    expect(await admin.fetchTopicOffsetsByTimestamp(t, t0 + 500)).toEqual([{ partition: 0, offset: 1 }, { partition: 1, offset: 0 }]);
    expect(await admin.fetchTopicOffsetsByTimestamp(t, t0 - 1)).toEqual([{ partition: 0, offset: 0 }, { partition: 1, offset: 0 }]);
    expect(await admin.fetchTopicOffsetsByTimestamp(t, t0 + 10_000)).toEqual([{ partition: 0, offset: 3 }, { partition: 1, offset: 0 }]);
    await admin.deleteTopics({ topics: [t] });
  });

  it('offsets of an empty group: set, fetch (filtered by topic), reset, lag; a group that only committed has no owners', async () => {
    const sluice = new Sluice({ endpoint: harness.url });
    const admin = sluice.admin();
    const [t, u, group] = [topicName('t'), topicName('u'), topicName('g')];
    await admin.createTopics({ topics: [{ topic: t, numPartitions: 2 }, { topic: u }] });
    await sluice.producer().send({ topic: t, messages: [{ value: '1', partition: 0 }, { value: '2', partition: 0 }, { value: '3', partition: 0 }] });
    await admin.setOffsets({ groupId: group, topic: t, partitions: [{ partition: 0, offset: 1 }] });
    await admin.setOffsets({ groupId: group, topic: u, partitions: [{ partition: 0, offset: 0 }] });
    expect((await admin.fetchOffsets({ groupId: group, topics: [t] })).map((o) => [o.topic, o.partition, o.offset])).toEqual([[t, 0, 1]]);
    const lag = await admin.groupLag(group);
    expect(lag.filter((r) => r.topic === t)).toEqual([
      { topic: t, partition: 0, currentOffset: 1, logEndOffset: 3, lag: 2, memberId: null },
      { topic: t, partition: 1, currentOffset: null, logEndOffset: 0, lag: null, memberId: null },
    ]);
    expect(await admin.resetOffsets({ groupId: group, topic: t, to: { latest: true } })).toEqual([{ partition: 0, offset: 3 }, { partition: 1, offset: 0 }]);
    expect(await admin.resetOffsets({ groupId: group, topic: t, partitions: [0], to: { offset: 2 } })).toEqual([{ partition: 0, offset: 2 }]);
    expect(await admin.listGroups()).toContain(group);
    await admin.deleteGroups([group]);
    expect(await admin.listGroups()).not.toContain(group);
  });
});
