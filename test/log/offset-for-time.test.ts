// lib/log/offset-for-time.ts: the first record at or after a timestamp inside one manifest range,
// within [logStartOffset, highWatermark): an intake range read whole, a merged segment through its
// time index.
import { describe, expect, it } from 'vitest';
import { decodeEntries, segmentRange } from '../../lib/log/manifest-entry.js';
import { offsetForTimeInRange } from '../../lib/log/offset-for-time.js';
import { spillTail } from '../../lib/log/spill.js';
import { allSegmentItems } from '../../lib/metadata/manifest.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import type { MergedSegmentItem } from '../../lib/metadata/types.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';
import { appendValues, runOnce, withClock } from './maintenance-support.js';

describe('offsetForTimeInRange (emulator)', () => {
  it('intake range: first record with timestamp >= target, bounded by log start and high watermark', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 1);
    await appendValues(ctx, topic, ['a'], 100);
    await appendValues(ctx, topic, ['b', 'c'], 200);
    const state = await getPartitionState(ctx, topic, 0);
    const [, second] = decodeEntries(ctx, state.tailBase, state.tail);
    expect(await offsetForTimeInRange(ctx, second, 150, 0, 3)).toEqual({ offset: 1, timestamp: 200 });
    expect(await offsetForTimeInRange(ctx, second, 200, 2, 3)).toEqual({ offset: 2, timestamp: 200 }); // below the log start: skipped
    expect(await offsetForTimeInRange(ctx, second, 200, 0, 1)).toBeUndefined(); // at or past the high watermark: not visible
    expect(await offsetForTimeInRange(ctx, second, 201, 0, 3)).toBeUndefined();
  });

  it('merged segment: through its .timeindex and .index', async () => {
    const base = await createTestContext() /* grace 1 s: a merge gives up past half of it */;
    const ctx = withClock(base);
    const topic = await createTopic(ctx, 't', 1, { 'index.interval.bytes': 0 });
    for (let i = 0; i < 8; i++) await appendValues(ctx, topic, [`v${i}`], 1000 + 10 * i);
    await spillTail(ctx, topic, await getPartitionState(ctx, topic, 0));
    ctx.advance(10 * 60_000);
    await runOnce(ctx);
    const merged: MergedSegmentItem[] = [];
    for await (const item of allSegmentItems(ctx, topic, 0)) if (!item.entries) merged.push(item);
    expect(merged.length).toBeGreaterThan(0);
    const item = segmentRange(merged[0]);
    expect(item.timeIndexKey).toBeDefined();
    expect(await offsetForTimeInRange(ctx, item, 1035, 0, 8)).toEqual({ offset: 4, timestamp: 1040 });
    expect(await offsetForTimeInRange(ctx, item, 0, 0, 8)).toEqual({ offset: item.baseOffset, timestamp: 1000 + 10 * item.baseOffset });
    expect(await offsetForTimeInRange(ctx, item, 99_999, 0, 8)).toBeUndefined();
  });
});
