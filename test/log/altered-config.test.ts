// Configs altered after creation (lib/metadata/alter-topic-config.ts) take effect at the next
// maintenance run, which reads every topic's config afresh: lowering retention.ms deletes the
// segments now past it, lowering segment.bytes cuts the next merge's segments at the new size.
// Each test runs maintenance once under the old config first, so a run keeping a stale copy fails.
import { describe, expect, it } from 'vitest';
import { readRecords } from '../../lib/log/read.js';
import { readPartitionSnapshot } from '../../lib/log/partition-snapshot.js';
import { alterTopicConfig } from '../../lib/metadata/alter-topic-config.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';
import { appendSpilled, appendValues, expectConsistentPartition, runOnce, withClock } from './maintenance-support.js';

const DAY = 86_400_000;

describe('configs altered after creation, at the next maintenance run', () => {
  it('retention.ms lowered: the segments now past it go, the newer ones and the tail stay', async () => {
    // Items stay unmerged within the grace period (a merge of old and new items would keep the old).
    const ctx = withClock(await createTestContext({ graceMs: 20_000 }));
    const topic = await createTopic(ctx, 'orders', 1);
    const expected = new Map<number, string>();
    for (let i = 0; i < 3; i++) expected.set(await appendSpilled(ctx, topic, [`old${i}`], ctx.now() - 2 * DAY), `old${i}`);
    expected.set(await appendSpilled(ctx, topic, ['new']), 'new');
    expected.set(await appendValues(ctx, topic, ['tail']), 'tail');

    const before = await runOnce(ctx);
    expect(before.errors).toEqual([]);
    expect(before.retention.segments).toBe(0); // two days old, seven days kept by default
    expect((await expectConsistentPartition(ctx, topic, expected)).state.logStartOffset).toBe(0);

    await alterTopicConfig(ctx, 'orders', { set: { 'retention.ms': String(DAY) } });
    const after = await runOnce(ctx);
    expect(after.errors).toEqual([]);
    expect(after.retention.segments).toBeGreaterThan(0);
    const { state } = await expectConsistentPartition(ctx, topic, expected);
    expect(state.logStartOffset).toBe(3);
    await expect(readRecords(ctx, topic, 0, { offset: 2, maxBytes: 1 << 20 })).rejects.toMatchObject({ code: 'OFFSET_OUT_OF_RANGE' });
    expect((await readRecords(ctx, topic, 0, { offset: 3, maxBytes: 1 << 20 })).records[0].value?.toString()).toBe('new');

    // Deleting the key reverts it to seven days: nothing more goes.
    await alterTopicConfig(ctx, 'orders', { delete: ['retention.ms'] });
    expect((await runOnce(ctx)).retention.segments).toBe(0);
  });

  it('segment.bytes lowered: the next merge cuts its segments at the new size', async () => {
    // A grace period no slow machine outlasts between the appends and the first run.
    const ctx = withClock(await createTestContext({ graceMs: 20_000 }));
    const topic = await createTopic(ctx, 'orders', 1);
    const expected = new Map<number, string>();
    const value = (i: number) => `${i}`.padEnd(500, '.');
    for (let i = 0; i < 6; i++) expected.set(await appendSpilled(ctx, topic, [value(i)]), value(i));
    expected.set(await appendValues(ctx, topic, ['tail']), 'tail');
    // Under the default (1 GiB) the first run would merge all six into one segment; the items are
    // still within the grace period, so it merges nothing yet.
    expect((await runOnce(ctx)).errors).toEqual([]);
    const items = (await readPartitionSnapshot(ctx, topic, 0)).items;
    expect(items).toHaveLength(6);
    const itemSize = items[0].size;

    await alterTopicConfig(ctx, 'orders', { set: { 'segment.bytes': 2 * itemSize } });
    ctx.advance(30_000);
    expect((await runOnce(ctx)).errors).toEqual([]);
    const merged = (await readPartitionSnapshot(ctx, topic, 0)).items;
    expect(merged.map((i) => [i.baseOffset, i.lastOffset])).toEqual([[0, 1], [2, 3], [4, 5]]);
    for (const item of merged) expect(item.size).toBeLessThanOrEqual(2 * itemSize);
    await expectConsistentPartition(ctx, topic, expected);
  });
});
