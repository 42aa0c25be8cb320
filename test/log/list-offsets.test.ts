// lib/log/list-offsets.ts: Kafka's ListOffsets for one partition, against the emulator, through
// the tail, spilled items and retention's log start.
import { describe, expect, it } from 'vitest';
import { appendToPartitions } from '../../lib/log/append.js';
import { listOffsets } from '../../lib/log/list-offsets.js';
import { spillTail } from '../../lib/log/spill.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';

const records = (n: number, ts0: number) => Array.from({ length: n }, (_, i) => ({ timestamp: ts0 + i, key: null, value: Buffer.from(`v${ts0 + i}`) }));

describe('listOffsets (emulator)', () => {
  it('earliest, latest, and the first offset at or after a timestamp, in the tail and in spilled items', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 1);
    await appendToPartitions(ctx, topic, [{ partition: 0, records: records(3, 1000) }]); // 0..2
    await appendToPartitions(ctx, topic, [{ partition: 0, records: records(3, 2000) }]); // 3..5
    expect(await listOffsets(ctx, topic, 0, 'earliest')).toEqual({ offset: 0 });
    expect(await listOffsets(ctx, topic, 0, 'latest')).toEqual({ offset: 6 });
    expect(await listOffsets(ctx, topic, 0, 1001)).toEqual({ offset: 1, timestamp: 1001 });
    expect(await listOffsets(ctx, topic, 0, 1500)).toEqual({ offset: 3, timestamp: 2000 });
    expect(await listOffsets(ctx, topic, 0, 0)).toEqual({ offset: 0, timestamp: 1000 });
    expect(await listOffsets(ctx, topic, 0, 9999)).toEqual({ offset: 6 }); // nothing that late: the high watermark
    // spill the first entry: the same answers from the SEG item
    expect(await spillTail(ctx, topic, await getPartitionState(ctx, topic, 0), 1)).toBe(true);
    expect((await getPartitionState(ctx, topic, 0)).tailBase).toBe(3);
    expect(await listOffsets(ctx, topic, 0, 1001)).toEqual({ offset: 1, timestamp: 1001 });
    expect(await listOffsets(ctx, topic, 0, 1500)).toEqual({ offset: 3, timestamp: 2000 });
    expect(await listOffsets(ctx, topic, 0, 2002)).toEqual({ offset: 5, timestamp: 2002 });
  });
  it('a missing partition is UNKNOWN_TOPIC_OR_PARTITION (as a SluiceError)', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 1);
    await expect(listOffsets(ctx, topic, 1, 'latest')).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
  });
});
