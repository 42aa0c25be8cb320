// lib/api/produce-append.ts: the common end of both produce routes. Per-partition answers, the
// first error thrown when every partition failed, and producer ids checked before writing.
import { describe, expect, it } from 'vitest';
import { appendAndAnswer } from '../../lib/api/produce-append.js';
import { allocateProducerId } from '../../lib/metadata/producer-ids.js';
import { createTopic, deleteTopicItem } from '../../lib/metadata/topics.js';
import { deletePartitionState } from '../../lib/metadata/partition-state.js';
import { createTestContext } from '../support/storage.js';

const recs = (n: number) => Array.from({ length: n }, (_, i) => ({ timestamp: i, key: null, value: Buffer.from(`v${i}`) }));

describe('appendAndAnswer', () => {
  it('answers per partition in the order of the appends, with byPartition for per-record answers', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 2);
    const { offsets, byPartition } = await appendAndAnswer(ctx, topic, [{ partition: 1, records: recs(2) }, { partition: 0, records: recs(1) }]);
    expect(offsets).toEqual([{ partition: 1, baseOffset: 0, count: 2 }, { partition: 0, baseOffset: 0, count: 1 }]);
    expect(byPartition.get(1)).toMatchObject({ baseOffset: 0, count: 2 });
  });

  it('one partition failing: its error body in place, the others appended; all failing: the first error thrown', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 2);
    await deletePartitionState(ctx, topic, 1); // its appends now find no STATE
    const { offsets } = await appendAndAnswer(ctx, topic, [{ partition: 0, records: recs(1) }, { partition: 1, records: recs(1) }]);
    expect(offsets[0]).toEqual({ partition: 0, baseOffset: 0, count: 1 });
    expect(offsets[1]).toMatchObject({ partition: 1, error: { code: 'UNKNOWN_TOPIC_OR_PARTITION', retriable: false } });
    await expect(appendAndAnswer(ctx, topic, [{ partition: 1, records: recs(1) }])).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
    await deleteTopicItem(ctx, 't');
  });

  it('idempotent: an id this cluster did not issue is UNKNOWN_PRODUCER_ID; an issued one appends, a retry is a duplicate', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 1);
    await expect(appendAndAnswer(ctx, topic, [{ partition: 0, records: recs(1), producer: { producerId: 2 ** 30, producerEpoch: 0, baseSequence: 0 } }])).rejects.toMatchObject({ code: 'UNKNOWN_PRODUCER_ID' });
    const { producerId, producerEpoch } = await allocateProducerId(ctx);
    const append = { partition: 0, records: recs(2), producer: { producerId, producerEpoch, baseSequence: 0 } };
    expect((await appendAndAnswer(ctx, topic, [append])).offsets).toEqual([{ partition: 0, baseOffset: 0, count: 2 }]);
    expect((await appendAndAnswer(ctx, topic, [append])).offsets).toEqual([{ partition: 0, baseOffset: 0, count: 2, duplicate: true }]);
  });
});
