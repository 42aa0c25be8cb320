// lib/groups/reset-offsets.ts: kafka-consumer-groups --reset-offsets for one topic.
import { describe, expect, it } from 'vitest';
import { joinGroup } from '../../lib/groups/membership.js';
import { fetchCommittedOffsets } from '../../lib/groups/offsets.js';
import { resetOffsets } from '../../lib/groups/reset-offsets.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';

const records = (n: number, ts0: number) => Array.from({ length: n }, (_, i) => ({ timestamp: ts0 + i * 10, key: null, value: Buffer.from(`v${i}`) }));

describe('resetOffsets (emulator)', () => {
  it('earliest, latest, by timestamp and to a clamped offset; every partition by default', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 2);
    await appendToPartitions(ctx, topic, [{ partition: 0, records: records(5, 1000) }, { partition: 1, records: records(3, 1000) }]);
    const offsets = async () => (await fetchCommittedOffsets(ctx, 'g')).map((o) => o.offset);
    await resetOffsets(ctx, { group: 'g', topic: 't', to: 'latest' });
    expect(await offsets()).toEqual([5, 3]);
    await resetOffsets(ctx, { group: 'g', topic: 't', to: 'earliest' });
    expect(await offsets()).toEqual([0, 0]);
    await resetOffsets(ctx, { group: 'g', topic: 't', to: { timestamp: 1015 } });
    expect(await offsets()).toEqual([2, 2]);
    await resetOffsets(ctx, { group: 'g', topic: 't', to: { timestamp: 99_999 } });
    expect(await offsets()).toEqual([5, 3]); // nothing that late: the high watermark
    await resetOffsets(ctx, { group: 'g', topic: 't', to: { offset: 4 } });
    expect(await offsets()).toEqual([4, 3]); // clamped to the high watermark
    await resetOffsets(ctx, { group: 'g', topic: 't', to: { offset: -5 }, partitions: [1, 1] });
    expect(await offsets()).toEqual([4, 0]); // only partition 1; clamped to the log start
  });

  it('refuses before writing: unknown topic or partition; a group with live members', async () => {
    const ctx = await createTestContext();
    await createTopic(ctx, 't', 1);
    await expect(resetOffsets(ctx, { group: 'g', topic: 'nope', to: 'earliest' })).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
    await expect(resetOffsets(ctx, { group: 'g', topic: 't', partitions: [0, 1], to: 'earliest' })).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION', details: { partition: 1 } });
    await joinGroup(ctx, { group: 'g', clientId: 'c', topics: ['t'], sessionTimeoutMs: 30_000 });
    await expect(resetOffsets(ctx, { group: 'g', topic: 't', to: 'earliest' })).rejects.toMatchObject({ code: 'NON_EMPTY_GROUP' });
    expect(await fetchCommittedOffsets(ctx, 'g')).toEqual([]);
  });
});
