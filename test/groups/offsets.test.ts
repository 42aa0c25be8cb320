// lib/groups/offsets.ts: the fenced offset write (its exact condition, and ILLEGAL_GENERATION when
// a newer generation committed), Kafka's OffsetCommit rules, and lag, against the emulator.
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { joinGroup } from '../../lib/groups/membership.js';
import { commitOffsets, fetchCommittedOffsets, fetchOffsetsWithLag, inBatches, writeOffsets } from '../../lib/groups/offsets.js';
import { readGroup } from '../../lib/groups/group-store.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { createTopic, deleteTopicItem } from '../../lib/metadata/topics.js';
import { conditionFailed, mockedDdbContext } from '../support/mock-ddb.js';
import { createTestContext } from '../support/storage.js';

const records = (n: number) => Array.from({ length: n }, (_, i) => ({ timestamp: 1000 + i, key: null, value: Buffer.from(`v${i}`) }));

describe('inBatches', () => {
  it('keeps order and runs at most 25 at a time', async () => {
    let inFlight = 0;
    let peak = 0;
    const out = await inBatches(Array.from({ length: 60 }, (_, i) => i), async (i) => {
      peak = Math.max(peak, ++inFlight);
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
      return i * 2;
    });
    expect(out).toEqual(Array.from({ length: 60 }, (_, i) => i * 2));
    expect(peak).toBe(25);
  });
});

describe('writeOffsets requests', () => {
  it('one put per offset, conditioned on no newer generation having committed', async () => {
    const { ctx, mock } = mockedDdbContext({ now: () => 77 });
    mock.on(PutCommand).resolves({});
    const out = await writeOffsets(ctx, 'g', 4, [{ topic: 't', partition: 1, offset: 10, metadata: 'm' }, { topic: 't', partition: 2, offset: 20 }], 'member-1');
    expect(out).toEqual([{ topic: 't', partition: 1, offset: 10, metadata: 'm' }, { topic: 't', partition: 2, offset: 20, metadata: '' }]);
    const input = mock.commandCalls(PutCommand)[0].args[0].input;
    expect(input.ConditionExpression).toBe('attribute_not_exists(pk) OR commitGeneration <= :generation');
    expect(input.ExpressionAttributeValues).toEqual({ ':generation': 4 });
    expect(input.Item).toEqual({ pk: 'GROUP#g', sk: 'OFFSET#t#1', group: 'g', topic: 't', partition: 1, offset: 10, metadata: 'm', commitGeneration: 4, memberId: 'member-1', committedAt: 77 });
  });
  it('refused: ILLEGAL_GENERATION; other failures as they are', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(PutCommand).rejectsOnce(conditionFailed()).rejects(Object.assign(new Error('x'), { name: 'InternalServerError' }));
    await expect(writeOffsets(ctx, 'g', 1, [{ topic: 't', partition: 0, offset: 1 }])).rejects.toMatchObject({ code: 'ILLEGAL_GENERATION' });
    await expect(writeOffsets(ctx, 'g', 1, [{ topic: 't', partition: 0, offset: 1 }])).rejects.toMatchObject({ name: 'InternalServerError' });
  });
});

describe('against the emulator', () => {
  it('standalone commits while the group is empty; lag against the high watermark; per-topic fetch', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 2);
    await createTopic(ctx, 'other', 1);
    await appendToPartitions(ctx, topic, [{ partition: 0, records: records(5) }]);
    await commitOffsets(ctx, { group: 'g', offsets: [{ topic: 't', partition: 0, offset: 2 }, { topic: 'other', partition: 0, offset: 0 }] });
    await commitOffsets(ctx, { group: 'g', offsets: [{ topic: 't', partition: 1, offset: 9, metadata: 'x' }] });
    expect(await fetchCommittedOffsets(ctx, 'g', 't')).toEqual([
      { topic: 't', partition: 0, offset: 2, metadata: '' },
      { topic: 't', partition: 1, offset: 9, metadata: 'x' },
    ]);
    expect((await fetchCommittedOffsets(ctx, 'g')).map((o) => o.topic)).toEqual(['other', 't', 't']);
    const lag = await fetchOffsetsWithLag(ctx, 'g', 't');
    expect(lag.map((o) => [o.highWatermark, o.lag])).toEqual([[5, 3], [0, 0]]); // lag floored at 0
    // a deleted topic: lag 0 at the committed offset
    await deleteTopicItem(ctx, 'other');
    expect((await fetchOffsetsWithLag(ctx, 'g', 'other'))[0]).toMatchObject({ highWatermark: 0, lag: 0 });
    // the standalone commit created the group, Empty
    expect((await readGroup(ctx, 'g'))?.members).toEqual({});
  });

  it('Kafka\'s rules: both memberId and generation or neither; live member of the current generation; existing partitions only', async () => {
    const ctx = await createTestContext();
    await createTopic(ctx, 't', 1);
    await expect(commitOffsets(ctx, { group: 'g', memberId: 'm', offsets: [] })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(commitOffsets(ctx, { group: 'g', offsets: [{ topic: 't', partition: 1, offset: 0 }] })).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
    await expect(commitOffsets(ctx, { group: 'g', offsets: [{ topic: 'nope', partition: 0, offset: 0 }] })).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
    const m = await joinGroup(ctx, { group: 'g', clientId: 'c', topics: ['t'], sessionTimeoutMs: 30_000 });
    const offsets = [{ topic: 't', partition: 0, offset: 1 }];
    await expect(commitOffsets(ctx, { group: 'g', offsets })).rejects.toMatchObject({ code: 'UNKNOWN_MEMBER_ID' }); // members are live
    await expect(commitOffsets(ctx, { group: 'g', memberId: 'nobody', generation: m.generation, offsets })).rejects.toMatchObject({ code: 'UNKNOWN_MEMBER_ID' });
    await expect(commitOffsets(ctx, { group: 'g', memberId: m.memberId, generation: m.generation + 1, offsets })).rejects.toMatchObject({ code: 'ILLEGAL_GENERATION' });
    await commitOffsets(ctx, { group: 'g', memberId: m.memberId, generation: m.generation, offsets });
    // an older generation can never overwrite a newer one's commit
    await expect(writeOffsets(ctx, 'g', m.generation - 1, offsets)).rejects.toMatchObject({ code: 'ILLEGAL_GENERATION' });
    expect(await fetchCommittedOffsets(ctx, 'g')).toEqual([{ topic: 't', partition: 0, offset: 1, metadata: '' }]);
  });
});
