// Requests that reach DynamoDB long after their sender started them (a stalled process, a request
// stuck in the network after its sender timed out and the SDK retried): the append protocol stays
// correct whenever they land (docs/ARCHITECTURE.md rules 2, 3, 4 and 1).
//   - Concurrent spillers of one tail settle on ONE SEG item: the first put wins, a later one fails
//     attribute_not_exists and adopts the item as it is (even when it lists fewer entries than its
//     own view), and removes exactly those entries only if tailBase is unchanged.
//   - A late spill put whose item is already there (its own SDK retry, another spiller, or a
//     merge's item replacing it) is refused: the item is never overwritten.
//   - A late spill put landing after retention deleted the item at its base lands below
//     logStartOffset, where no reader looks; the next retention run deletes it.
//   - A writer stalled across a topic's deletion and re-creation never lands anything in the new
//     topic: its commit and its spill put carry the old topic id.
import { describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { deleteTopic } from '../../lib/log/delete-topic.js';
import { readPartitionSnapshot } from '../../lib/log/partition-snapshot.js';
import { readRecords } from '../../lib/log/read.js';
import { applyRetention } from '../../lib/log/retention.js';
import { spillTail, TAIL_MAX_ENTRIES } from '../../lib/log/spill.js';
import { allSegmentItems, deleteSegmentItem, getSegmentItem, replaceSegmentItem } from '../../lib/metadata/manifest.js';
import { stampRange } from '../../lib/log/batch-stamp.js';
import { rangesOf } from '../../lib/log/manifest-entry.js';
import { putObject } from '../../lib/log/object-store.js';
import { getObjectRange } from '../../lib/log/segment-fetch.js';
import { newSegmentId, segmentObjectKey } from '../../lib/log/segment-name.js';
import { acquirePartitionLease, getPartitionState, readPartitionState } from '../../lib/metadata/partition-state.js';
import { createTopic } from '../../lib/metadata/topics.js';
import type { SegmentItem, TopicRef } from '../../lib/metadata/types.js';
import { checkManifest } from '../proof/invariants.js';
import { startProcess } from '../proof/processes.js';
import { createTestContext } from '../support/storage.js';
import { readValues } from './read-all.js';
import { holdNext, keyOf, isCommit, isSpillPut, isSpillRemove, observeSdk, timeoutError } from './sdk-faults.js';

const one = (value: string) => [{ timestamp: 1000, key: null, value: Buffer.from(value) }];

async function append(ctx: SluiceContext, topic: TopicRef, value: string): Promise<number> {
  const [r] = await appendToPartitions(ctx, topic, [{ partition: 0, records: one(value) }]);
  if ('error' in r) throw r.error;
  return r.baseOffset;
}

async function items(ctx: SluiceContext, topic: TopicRef): Promise<SegmentItem[]> {
  const all: SegmentItem[] = [];
  for await (const item of allSegmentItems(ctx, topic, 0)) all.push(item);
  return all;
}

/** `n` appends whose own spills fail (as if each appender died right after its commit): a full tail, no SEG item. */
async function fillTailUnspilled(shared: SluiceContext, topic: TopicRef, tag: string, n = TAIL_MAX_ENTRIES): Promise<string[]> {
  const filler = startProcess(shared);
  observeSdk(filler).fault = (call) => (isSpillPut(call) ? { when: 'before', error: Object.assign(new Error('died'), { name: 'SimulatedCrash' }) } : undefined);
  const values: string[] = [];
  for (let i = 0; i < n; i++) {
    await append(filler, topic, `${tag}${i}`);
    values.push(`${tag}${i}`);
  }
  return values;
}

describe('concurrent spillers', () => {
  it('settle on one SEG item: a held spill put lands after another spiller finished, is refused, adopts the item, removes nothing', async () => {
    const shared = await createTestContext();
    const topic = await createTopic(shared, 't', 1);
    const expected = await fillTailUnspilled(shared, topic, 'a');
    const a = startProcess(shared);
    const b = startProcess(shared);
    const state = await getPartitionState(a, topic, 0);
    const sdkA = observeSdk(a);
    const heldPut = holdNext(sdkA, isSpillPut);
    const spillA = spillTail(a, topic, state);
    await heldPut.reached;
    // B spills the same tail, then appends until it spills again.
    expect(await spillTail(b, topic, await getPartitionState(b, topic, 0))).toBe(true);
    const first = (await getSegmentItem(b, topic, 0, 0))!;
    for (let i = 0; i < TAIL_MAX_ENTRIES + 2; i++) {
      await append(b, topic, `b${i}`);
      expected.push(`b${i}`);
    }
    heldPut.release();
    expect(await spillA).toBe(false);
    // A's put was refused (the item exists), A read it, and its removal was refused (tailBase moved).
    expect(sdkA.calls.filter(isSpillPut).map((c) => c.outcome)).toEqual(['refused']);
    expect(sdkA.calls.filter((c) => c.command === 'GetItem')).toHaveLength(1);
    expect(sdkA.calls.filter(isSpillRemove).map((c) => c.outcome)).toEqual(['refused']);
    expect(await getSegmentItem(shared, topic, 0, 0)).toEqual(first);
    expect((await items(shared, topic)).map((i) => [i.baseOffset, i.entries?.length])).toEqual([
      [0, TAIL_MAX_ENTRIES],
      [TAIL_MAX_ENTRIES, TAIL_MAX_ENTRIES],
    ]);
    await checkManifest(shared, topic, 0);
    expect(await readValues(shared, topic)).toEqual(expected);
  });

  it('a spiller whose view is longer adopts a shorter spill at the same base and removes exactly its entries', async () => {
    const shared = await createTestContext();
    const topic = await createTopic(shared, 't', 1);
    const expected = await fillTailUnspilled(shared, topic, 'a');
    const a = startProcess(shared);
    const b = startProcess(shared);
    const full = await getPartitionState(a, topic, 0);
    // B (say, the partition leader spilling an idle tail) spills only the 3 oldest entries, and stalls before its removal.
    const sdkB = observeSdk(b);
    const heldRemove = holdNext(sdkB, isSpillRemove);
    const spillB = spillTail(b, topic, full, 3);
    await heldRemove.reached;
    // A, with the full tail in view, meets B's item: adopts its 3 entries, removes exactly those.
    expect(await spillTail(a, topic, full)).toBe(true);
    heldRemove.release();
    expect(await spillB).toBe(false); // tailBase moved: B's removal refused, nothing removed twice
    const state = await getPartitionState(shared, topic, 0);
    expect(state.tailBase).toBe(3);
    expect(state.tail).toEqual(full.tail.slice(3));
    expect((await items(shared, topic)).map((i) => [i.baseOffset, i.entries])).toEqual([[0, full.tail.slice(0, 3)]]);
    expected.push('c');
    await append(a, topic, 'c');
    await checkManifest(shared, topic, 0);
    expect(await readValues(shared, topic)).toEqual(expected);
  });
});

describe('a spill put that lands late', () => {
  it('finds its item already there (its own SDK retry went through first) and changes nothing', async () => {
    const shared = await createTestContext();
    const topic = await createTopic(shared, 't', 1);
    const expected = await fillTailUnspilled(shared, topic, 'a', TAIL_MAX_ENTRIES - 1);
    const a = startProcess(shared);
    const sdk = observeSdk(a);
    // The spill put of the append that fills the tail times out while the request is still on
    // its way; the SDK retries it at once, and that attempt lands first.
    const late = holdNext(sdk, isSpillPut, timeoutError());
    expect(await append(a, topic, 'full')).toBe(TAIL_MAX_ENTRIES - 1);
    expected.push('full');
    const spilled = (await getSegmentItem(shared, topic, 0, 0))!;
    expect(spilled.entries).toHaveLength(TAIL_MAX_ENTRIES);
    // Other spills and appends go on; then the first attempt lands: attribute_not_exists refuses it.
    for (let i = 0; i < TAIL_MAX_ENTRIES; i++) {
      await append(a, topic, `b${i}`);
      expected.push(`b${i}`);
    }
    expect(sdk.detached).toHaveLength(1);
    const putsAtZero = () => sdk.calls.filter((c) => isSpillPut(c) && keyOf(c).sk === 'SEG#00000000000000000000').map((c) => c.outcome);
    expect(putsAtZero()).toEqual([undefined, 'applied']);
    late.release();
    await Promise.all(sdk.detached);
    expect(putsAtZero()).toEqual(['refused', 'applied']);
    expect(await getSegmentItem(shared, topic, 0, 0)).toEqual(spilled);
    await checkManifest(shared, topic, 0);
    expect(await readValues(shared, topic)).toEqual(expected);
  });

  it('after a merge replaced the item at its base, is refused and adopts nothing (a merged item lists no entries)', async () => {
    const shared = await createTestContext();
    const topic = await createTopic(shared, 't', 1);
    const expected = await fillTailUnspilled(shared, topic, 'a', TAIL_MAX_ENTRIES - 1);
    const a = startProcess(shared);
    const b = startProcess(shared);
    const sdkA = observeSdk(a);
    const heldPut = holdNext(sdkA, isSpillPut);
    const stalled = appendToPartitions(a, topic, [{ partition: 0, records: one('full') }]);
    await heldPut.reached;
    expected.push('full');
    for (let i = 0; i < TAIL_MAX_ENTRIES + 3; i++) {
      await append(b, topic, `b${i}`);
      expected.push(`b${i}`);
    }
    // A merge's swap (merge.ts): SEG#0 and SEG#8 become one merged item at 0, over a copy of their bytes.
    const [first, second] = await items(shared, topic);
    const ranges = [...rangesOf(b, first), ...rangesOf(b, second)];
    const bytes = Buffer.concat(await Promise.all(ranges.map((r) => getObjectRange(b, { objectKey: r.objectKey, start: r.position, end: r.position + r.size }))));
    ranges.reduce((at, r) => (stampRange(r, bytes.subarray(at, at + r.size)), at + r.size), 0);
    const objectKey = segmentObjectKey(b.prefix, topic, 0, 0, newSegmentId(1), '.log');
    await putObject(b, objectKey, bytes);
    const { entries: _entries, ...summary } = first;
    const merged: SegmentItem = { ...summary, lastOffset: second.lastOffset, count: second.lastOffset + 1, objectKey, position: 0, size: bytes.length, createdAt: b.now(), epoch: 1 };
    expect(await replaceSegmentItem(b, topic, 0, merged, first)).toBe(true);
    expect(await deleteSegmentItem(b, topic, 0, second.baseOffset, second)).toBe(true);

    heldPut.release();
    expect(await stalled).toEqual([{ partition: 0, baseOffset: TAIL_MAX_ENTRIES - 1, count: 1 }]);
    expect(sdkA.calls.filter(isSpillPut).map((c) => c.outcome)).toEqual(['refused']);
    expect(sdkA.calls.filter(isSpillRemove)).toEqual([]);
    expect(await getSegmentItem(shared, topic, 0, 0)).toEqual(merged);
    await checkManifest(shared, topic, 0);
    expect(await readValues(shared, topic)).toEqual(expected);
  });

  it('after retention deleted the item at its base, lands below logStartOffset: invisible, and the next retention run deletes it', async () => {
    const shared = await createTestContext();
    const topic = await createTopic(shared, 't', 1);
    await fillTailUnspilled(shared, topic, 'a', TAIL_MAX_ENTRIES - 1);
    const a = startProcess(shared);
    const b = startProcess(shared);
    const sdkA = observeSdk(a);
    const heldPut = holdNext(sdkA, isSpillPut);
    // A fills the tail and stalls in its spill put (at base 0).
    const stalled = appendToPartitions(a, topic, [{ partition: 0, records: one('full') }]);
    await heldPut.reached;
    // B spills that tail itself and writes on; retention then retires everything below the tail.
    for (let i = 0; i < TAIL_MAX_ENTRIES + 3; i++) await append(b, topic, `b${i}`);
    const leader = await acquirePartitionLease(b, topic, 0);
    expect(leader).toBeDefined();
    const retained = await applyRetention(b, leader!.lease, await readPartitionSnapshot(b, topic, 0), { retentionMs: -1, retentionBytes: 0 });
    const { logStartOffset, tailBase } = await getPartitionState(shared, topic, 0);
    expect(retained.logStartOffset).toBe(logStartOffset);
    expect(logStartOffset).toBe(tailBase);
    expect(logStartOffset).toBeGreaterThan(TAIL_MAX_ENTRIES);
    expect(await getSegmentItem(shared, topic, 0, 0)).toBeUndefined();

    // A's put lands now: SEG#0 recreated, wholly below logStartOffset.
    heldPut.release();
    expect(await stalled).toEqual([{ partition: 0, baseOffset: TAIL_MAX_ENTRIES - 1, count: 1 }]);
    const late = await getSegmentItem(shared, topic, 0, 0);
    expect(late?.lastOffset).toBeLessThan(logStartOffset);
    // Invisible: offsets below logStartOffset are out of range, the rest reads as before.
    await expect(readRecords(shared, topic, 0, { offset: 0, maxBytes: 1000 })).rejects.toMatchObject({ code: 'OFFSET_OUT_OF_RANGE' });
    const visible = await readRecords(shared, topic, 0, { offset: logStartOffset, maxBytes: 1 << 20 });
    expect(visible.records[0].offset).toBe(logStartOffset);
    await checkManifest(shared, topic, 0);

    // The next retention run deletes every item wholly below logStartOffset: the late one too.
    const next = await acquirePartitionLease(b, topic, 0);
    const again = await applyRetention(b, next!.lease, await readPartitionSnapshot(b, topic, 0), { retentionMs: -1, retentionBytes: -1 });
    expect(again.removedItems).toBeGreaterThanOrEqual(1);
    expect(await getSegmentItem(shared, topic, 0, 0)).toBeUndefined();
  });
});

describe('a writer stalled across a topic\'s deletion and re-creation', () => {
  it('cannot commit into the new topic: its update carries the old topic id', async () => {
    const shared = await createTestContext();
    const old = await createTopic(shared, 't', 1);
    await append(shared, old, 'old');
    const stale = startProcess(shared);
    const sdk = observeSdk(stale);
    const heldCommit = holdNext(sdk, isCommit);
    const pending = appendToPartitions(stale, old, [{ partition: 0, records: one('stale') }]);
    await heldCommit.reached;
    await deleteTopic(shared, 't');
    const fresh = await createTopic(shared, 't', 1);
    expect(fresh.id).not.toBe(old.id);
    await append(shared, fresh, 'new');
    heldCommit.release();
    expect(await pending).toMatchObject([{ partition: 0, error: { code: 'UNKNOWN_TOPIC_OR_PARTITION' } }]);
    expect(await readValues(shared, fresh)).toEqual(['new']);
    expect(await readPartitionState(shared, old, 0)).toBeUndefined();
  });

  it('cannot spill into the new topic: a late spill put lands under the old id, where nothing reads', async () => {
    const shared = await createTestContext();
    const old = await createTopic(shared, 't', 1);
    await fillTailUnspilled(shared, old, 'a', TAIL_MAX_ENTRIES - 1);
    const stale = startProcess(shared);
    const heldPut = holdNext(observeSdk(stale), isSpillPut);
    const pending = appendToPartitions(stale, old, [{ partition: 0, records: one('full') }]);
    await heldPut.reached;
    await deleteTopic(shared, 't');
    const fresh = await createTopic(shared, 't', 1);
    for (let i = 0; i < 3; i++) await append(shared, fresh, `new${i}`);
    heldPut.release();
    await pending;
    expect(await items(shared, fresh)).toEqual([]);
    expect(await readValues(shared, fresh)).toEqual(['new0', 'new1', 'new2']);
    await checkManifest(shared, fresh, 0);
    // What landed is keyed by the old id only.
    expect((await items(shared, old)).map((i) => i.baseOffset)).toEqual([0]);
  });
});
