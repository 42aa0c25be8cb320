// lib/log/partition-snapshot.ts: what maintenance decides on. Leftovers of an interrupted swap are
// told apart from the chain; the segment count STATE should hold; bounded concurrency that reports
// the first failure only after all settle; conditional deletes against the emulator.
import { describe, expect, it } from 'vitest';
import {
  deleteItemsIfUnchanged,
  expectedSegmentCount,
  forEachLimited,
  itemsBelowTail,
  readPartitionSnapshot,
  splitLeftovers,
  type PartitionSnapshot,
} from '../../lib/log/partition-snapshot.js';
import { allSegmentItems, putSpillItem } from '../../lib/metadata/manifest.js';
import { createPartitionStates } from '../../lib/metadata/partition-state.js';
import type { ManifestEntry, PartitionState, SegmentItem, SpilledItem } from '../../lib/metadata/types.js';
import { createTestContext } from '../support/storage.js';

const item = (baseOffset: number, lastOffset: number, objectKey = `o${baseOffset}-${lastOffset}`): SpilledItem => ({
  baseOffset,
  lastOffset,
  count: lastOffset - baseOffset + 1,
  objectKey,
  position: 0,
  size: 1,
  minTimestamp: 0,
  maxTimestamp: 0,
  createdAt: 0,
  epoch: 0,
  entries: [`1,0,1,0,0,0,k${objectKey}` as ManifestEntry],
});
const snapshot = (items: SegmentItem[], state: Partial<PartitionState>): PartitionSnapshot => ({
  topic: { name: 't', id: 'X' },
  partition: 0,
  items,
  state: { tailBase: 0, logStartOffset: 0, tail: [], ...state } as PartitionState,
});

describe('pure parts', () => {
  it('splitLeftovers: items inside an earlier item\'s range are leftovers of a swap', () => {
    const merged = item(0, 29);
    const { chain, leftovers } = splitLeftovers([merged, item(10, 19), item(20, 29), item(30, 39)]);
    expect(chain.map((i) => i.baseOffset)).toEqual([0, 30]);
    expect(leftovers.map((l) => [l.item.baseOffset, l.coveredBy.baseOffset])).toEqual([[10, 0], [20, 0]]);
    expect(splitLeftovers([])).toEqual({ chain: [], leftovers: [] });
  });
  it('itemsBelowTail: only items wholly below tailBase', () => {
    expect(itemsBelowTail(snapshot([item(0, 9), item(10, 19), item(20, 29)], { tailBase: 20 })).map((i) => i.baseOffset)).toEqual([0, 10]);
    expect(itemsBelowTail(snapshot([item(0, 9), item(10, 19)], { tailBase: 15 })).map((i) => i.baseOffset)).toEqual([0]);
  });
  it('expectedSegmentCount: chain items from the log start below the tail, plus tail entries', () => {
    const s = snapshot([item(0, 9), item(10, 19), item(10, 14, 'leftover'), item(20, 29), item(30, 39)], { tailBase: 30, logStartOffset: 12, tail: ['e1', 'e2'] as ManifestEntry[] });
    // chain below tail: [0-9] (below log start: not counted), [10-19], [20-29]; leftover not counted; [30-39] is a pending spill
    expect(expectedSegmentCount(s)).toBe(2 + 2);
  });
  it('forEachLimited: at most `limit` in flight, every input run, the first failure thrown after all settle', async () => {
    let inFlight = 0;
    let peak = 0;
    const done: number[] = [];
    const failure = await forEachLimited([1, 2, 3, 4, 5, 6, 7], 3, async (n, index) => {
      peak = Math.max(peak, ++inFlight);
      await new Promise((r) => setTimeout(r, 2));
      inFlight--;
      expect(index).toBe(n - 1);
      done.push(n);
      if (n === 2 || n === 5) throw new Error(`fail ${n}`);
    }).catch((e: Error) => e);
    expect(peak).toBe(3);
    expect(done.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe('fail 2');
    await expect(forEachLimited([], 3, async () => undefined)).resolves.toBeUndefined();
  });
});

describe('against the emulator', () => {
  it('reads STATE then items in offset order; deletes only items still exactly as seen', async () => {
    const ctx = await createTestContext();
    const topic = { name: 't', id: 'X' };
    await createPartitionStates(ctx, topic, [0]);
    for (const i of [item(20, 29), item(0, 9), item(10, 19)]) await putSpillItem(ctx, topic, 0, i);
    const snap = await readPartitionSnapshot(ctx, topic, 0);
    expect(snap.items.map((i) => i.baseOffset)).toEqual([0, 10, 20]);
    expect(snap.state.logEndOffset).toBe(0);
    const changed = { ...snap.items[1], objectKey: 'not-what-is-stored' };
    expect(await deleteItemsIfUnchanged(ctx, topic, 0, [snap.items[0], changed, snap.items[2]])).toBe(2);
    const left: number[] = [];
    for await (const i of allSegmentItems(ctx, topic, 0)) left.push(i.baseOffset);
    expect(left).toEqual([10]);
    await expect(readPartitionSnapshot(ctx, topic, 1)).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
  });
});
