// lib/log/spill.ts: the SEG item a spill writes, and spillTail against the emulator: entries leave
// the tail only once an item lists them; a concurrent or dead spiller's item is adopted.
import { describe, expect, it } from 'vitest';
import { encodeEntry } from '../../lib/log/manifest-entry.js';
import { spillItem, spillTail } from '../../lib/log/spill.js';
import { getSegmentItem, putSpillItem } from '../../lib/metadata/manifest.js';
import { appendEntry, createPartitionStates, getPartitionState } from '../../lib/metadata/partition-state.js';
import type { ManifestEntry, TopicRef } from '../../lib/metadata/types.js';
import { createTestContext } from '../support/storage.js';

const topic: TopicRef = { name: 't', id: 'X' };

describe('spillItem', () => {
  it('covers the entries from the base: count, summed size, min/max timestamps, first object, the spill time', async () => {
    const ctx = { ...(await createTestContext()), now: () => 777 };
    const e1 = encodeEntry(ctx, { count: 2, objectKey: 'a', position: 5, size: 10, minTimestamp: 100, maxTimestamp: 200, createdAt: 150 });
    const e2 = encodeEntry(ctx, { count: 3, objectKey: 'b', position: 0, size: 20, minTimestamp: 50, maxTimestamp: 300, createdAt: 160 });
    expect(spillItem(ctx, 40, [e1, e2])).toEqual({
      baseOffset: 40,
      lastOffset: 44,
      count: 5,
      objectKey: 'a',
      position: 5,
      size: 30,
      minTimestamp: 50,
      maxTimestamp: 300,
      createdAt: 777,
      epoch: 0,
      entries: [e1, e2],
    });
  });
});

describe('spillTail (emulator)', () => {
  async function partitionWith(n: number, now = () => 1000) {
    const ctx = { ...(await createTestContext()), now };
    await createPartitionStates(ctx, topic, [0]);
    const entries: ManifestEntry[] = [];
    for (let i = 0; i < n; i++) {
      const entry = encodeEntry(ctx, { count: 2, objectKey: `obj-${i}`, position: 0, size: 10, minTimestamp: 1, maxTimestamp: 2, createdAt: 3 });
      entries.push(entry);
      await appendEntry(ctx, { topic, partition: 0, entry, count: 2, bytes: 10, maxTailEntries: 100 });
    }
    return { ctx, entries };
  }

  it('moves the oldest `max` entries into SEG#<tailBase> and advances tailBase', async () => {
    const { ctx, entries } = await partitionWith(5);
    const state = await getPartitionState(ctx, topic, 0);
    expect(await spillTail(ctx, topic, state, 3)).toBe(true);
    const after = await getPartitionState(ctx, topic, 0);
    expect(after.tailBase).toBe(6);
    expect(after.tail).toEqual(entries.slice(3));
    expect(after.logEndOffset).toBe(10);
    expect(after.segments).toBe(5 - 3 + 1);
    expect((await getSegmentItem(ctx, topic, 0, 0))?.entries).toEqual(entries.slice(0, 3));
    // the same view again: someone (we) spilled first; nothing moves
    expect(await spillTail(ctx, topic, state, 3)).toBe(false);
    expect((await getPartitionState(ctx, topic, 0)).tailBase).toBe(6);
    expect(await spillTail(ctx, topic, after, 0)).toBe(false);
  });

  it('adopts an existing item at tailBase (fewer entries) and removes exactly those', async () => {
    const { ctx, entries } = await partitionWith(4);
    const state = await getPartitionState(ctx, topic, 0);
    await putSpillItem(ctx, topic, 0, spillItem(ctx, 0, entries.slice(0, 1)));
    expect(await spillTail(ctx, topic, state)).toBe(true);
    const after = await getPartitionState(ctx, topic, 0);
    expect(after.tailBase).toBe(2);
    expect(after.tail).toEqual(entries.slice(1));
  });

  it('an old leftover item gets its createdAt moved to the adoption', async () => {
    let now = 1000;
    const { ctx, entries } = await partitionWith(2, () => now);
    await putSpillItem(ctx, topic, 0, spillItem(ctx, 0, entries.slice(0, 2)));
    now = 1000 + 60_000;
    expect(await spillTail(ctx, topic, await getPartitionState(ctx, topic, 0))).toBe(true);
    expect((await getSegmentItem(ctx, topic, 0, 0))?.createdAt).toBe(now);
  });
});
