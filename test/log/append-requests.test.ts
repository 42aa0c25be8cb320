// appendRequests (lib/log/append.ts): several produce requests of any topics in ONE intake object
// and one conditional STATE update per partition, each request answered as if alone: consecutive
// offsets in arrival order, duplicates with their original offsets, a sequence error only for its
// own request, the producer cap exact (a combined update refused for it falls back batch by batch).
// And the lifecycle of an intake object shared by two topics: deleting one topic, merging and
// sweeping never remove bytes the other still references.
import { describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { type AppendRequest, type PartitionAppendResult, appendRequests, appendToPartitions } from '../../lib/log/append.js';
import { deleteTopic } from '../../lib/log/delete-topic.js';
import { MAX_PRODUCERS_PER_PARTITION } from '../../lib/log/producer-sequence.js';
import { intakeFolder } from '../../lib/log/segment-name.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { allocateProducerId } from '../../lib/metadata/producer-ids.js';
import { createTopic } from '../../lib/metadata/topics.js';
import type { TopicRef } from '../../lib/metadata/types.js';
import { createTestContext } from '../support/storage.js';
import { bucketKeys, expectConsistentPartition, referencedObjectKeys, runOnce, withClock } from './maintenance-support.js';
import { readValues } from './read-all.js';
import { isCommit, observeSdk, timeoutError } from './sdk-faults.js';

const records = (tag: string, n = 1, timestamp = 1000) =>
  Array.from({ length: n }, (_, i) => ({ timestamp: timestamp + i, key: null, value: Buffer.from(`${tag}.${i}`) }));

const ok = (r: PartitionAppendResult) => {
  if ('error' in r) throw r.error;
  return r;
};
const code = (r: PartitionAppendResult) => ('error' in r ? r.error.code : 'ok');

async function intakeObjects(ctx: SluiceContext): Promise<string[]> {
  return bucketKeys(ctx, intakeFolder(ctx.prefix));
}

describe('appendRequests', () => {
  it('packs requests of two topics into one intake object and one update per partition, offsets in arrival order', async () => {
    const ctx = await createTestContext();
    const a = await createTopic(ctx, 'a', 2);
    const b = await createTopic(ctx, 'b', 1);
    await appendToPartitions(ctx, a, [{ partition: 0, records: records('before') }]);
    const sdk = observeSdk(ctx);
    const requests: AppendRequest[] = [
      { topic: a, appends: [{ partition: 0, records: records('r0-a0', 2) }, { partition: 1, records: records('r0-a1') }] },
      { topic: b, appends: [{ partition: 0, records: records('r1-b0', 3) }] },
      { topic: a, appends: [{ partition: 0, records: records('r2-a0') }] },
      { topic: b, appends: [{ partition: 0, records: records('r3-b0') }] },
      { topic: a, appends: [{ partition: 0, records: records('r4-a0', 2) }] },
    ];
    const results = await appendRequests(ctx, requests);
    expect(results).toEqual([
      [{ partition: 0, baseOffset: 1, count: 2 }, { partition: 1, baseOffset: 0, count: 1 }],
      [{ partition: 0, baseOffset: 0, count: 3 }],
      [{ partition: 0, baseOffset: 3, count: 1 }],
      [{ partition: 0, baseOffset: 3, count: 1 }],
      [{ partition: 0, baseOffset: 4, count: 2 }],
    ]);
    // One PUT, then one UpdateItem per partition (a-0, a-1, b-0), nothing else.
    expect(sdk.calls.map((c) => c.command).sort()).toEqual(['PutObject', 'UpdateItem', 'UpdateItem', 'UpdateItem']);
    expect(await intakeObjects(ctx)).toHaveLength(2);
    // A partition's batches are consecutive in the object: one manifest entry lists them.
    expect((await getPartitionState(ctx, a, 0)).tail).toHaveLength(2);
    expect((await getPartitionState(ctx, b, 0)).tail).toHaveLength(1);
    expect(await readValues(ctx, a, 0)).toEqual(['before.0', 'r0-a0.0', 'r0-a0.1', 'r2-a0.0', 'r4-a0.0', 'r4-a0.1']);
    expect(await readValues(ctx, a, 1)).toEqual(['r0-a1.0']);
    expect(await readValues(ctx, b, 0)).toEqual(['r1-b0.0', 'r1-b0.1', 'r1-b0.2', 'r3-b0.0']);
  });

  it('answers each request alone: bad input, an unknown partition, a duplicate and a sequence gap fail only their own', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    const gone: TopicRef = { name: 'gone', id: 'AAAAAAAAAAAAAAAAAAAAAA' };
    const p = await allocateProducerId(ctx);
    const q = await allocateProducerId(ctx);
    const first = ok((await appendToPartitions(ctx, t, [{ partition: 0, records: records('p0', 2), producer: { ...p, baseSequence: 0 } }]))[0]);
    expect(first.baseOffset).toBe(0);
    const results = await appendRequests(ctx, [
      { topic: t, appends: [{ partition: 0, records: records('plain1') }] },
      // The producer's last batch again (a client retry): its original offsets, nothing written.
      { topic: t, appends: [{ partition: 0, records: records('p0', 2), producer: { ...p, baseSequence: 0 } }] },
      { topic: t, appends: [{ partition: 0, records: [] }] },
      { topic: gone, appends: [{ partition: 0, records: records('nowhere') }] },
      // A gap for producer q: its own error.
      { topic: t, appends: [{ partition: 0, records: records('q5'), producer: { ...q, baseSequence: 5 } }] },
      { topic: t, appends: [{ partition: 0, records: records('plain2', 2) }] },
    ]);
    expect(results.map((r) => r.map(code))).toEqual([['ok'], ['ok'], ['INVALID_REQUEST'], ['UNKNOWN_TOPIC_OR_PARTITION'], ['UNKNOWN_PRODUCER_ID'], ['ok']]);
    expect(results[1][0]).toEqual({ partition: 0, baseOffset: 0, count: 2, duplicate: true });
    expect(results[0][0]).toEqual({ partition: 0, baseOffset: 2, count: 1 });
    expect(results[5][0]).toEqual({ partition: 0, baseOffset: 3, count: 2 });
    expect(await readValues(ctx, t, 0)).toEqual(['p0.0', 'p0.1', 'plain1.0', 'plain2.0', 'plain2.1']);
  });

  it("sets every idempotent producer's entry and base in the one update; a producer's second batch waits for its first", async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    const [p, q] = [await allocateProducerId(ctx), await allocateProducerId(ctx)];
    const sdk = observeSdk(ctx);
    const results = await appendRequests(ctx, [
      { topic: t, appends: [{ partition: 0, records: records('plain', 2) }] },
      { topic: t, appends: [{ partition: 0, records: records('p0', 3), producer: { ...p, baseSequence: 0 } }] },
      { topic: t, appends: [{ partition: 0, records: records('q0', 1), producer: { ...q, baseSequence: 0 } }] },
      { topic: t, appends: [{ partition: 0, records: records('p3', 2), producer: { ...p, baseSequence: 3 } }] },
    ]);
    expect(results.map((r) => r[0])).toEqual([
      { partition: 0, baseOffset: 0, count: 2 },
      { partition: 0, baseOffset: 2, count: 3 },
      { partition: 0, baseOffset: 5, count: 1 },
      { partition: 0, baseOffset: 6, count: 2 },
    ]);
    expect(sdk.calls.map((c) => c.command)).toEqual(['PutObject', 'UpdateItem', 'UpdateItem']);
    const state = await getPartitionState(ctx, t, 0);
    expect(state.producerBases).toEqual({ [p.producerId]: 6, [q.producerId]: 5 });
    expect(state.producers[String(q.producerId)]).toMatchObject({ baseSequence: 0, lastSequence: 0, count: 1 });
    expect(state.producers[String(p.producerId)]).toMatchObject({ baseSequence: 3, lastSequence: 4, count: 2 });
    // Retries of the last batches are recognised with their offsets, even batched together again.
    const retried = await appendRequests(ctx, [
      { topic: t, appends: [{ partition: 0, records: records('q0', 1), producer: { ...q, baseSequence: 0 } }] },
      { topic: t, appends: [{ partition: 0, records: records('p3', 2), producer: { ...p, baseSequence: 3 } }] },
      { topic: t, appends: [{ partition: 0, records: records('after') }] },
    ]);
    expect(retried.map((r) => r[0])).toEqual([
      { partition: 0, baseOffset: 5, count: 1, duplicate: true },
      { partition: 0, baseOffset: 6, count: 2, duplicate: true },
      { partition: 0, baseOffset: 8, count: 1 },
    ]);
    expect(await readValues(ctx, t, 0)).toEqual(['plain.0', 'plain.1', 'p0.0', 'p0.1', 'p0.2', 'q0.0', 'p3.0', 'p3.1', 'after.0']);
  });

  it('keeps the producer cap exact: two new producers past it in one window, one lands and one waits (THROTTLING)', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    const ids = Array.from({ length: MAX_PRODUCERS_PER_PARTITION + 1 }, (_, i) => ({ producerId: 7000 + i, producerEpoch: 0 }));
    for (const p of ids.slice(0, MAX_PRODUCERS_PER_PARTITION - 1)) ok((await appendToPartitions(ctx, t, [{ partition: 0, records: records('x'), producer: { ...p, baseSequence: 0 } }]))[0]);
    const [last, extra] = ids.slice(MAX_PRODUCERS_PER_PARTITION - 1);
    const results = await appendRequests(ctx, [
      { topic: t, appends: [{ partition: 0, records: records('last'), producer: { ...last, baseSequence: 0 } }] },
      { topic: t, appends: [{ partition: 0, records: records('plain') }] },
      { topic: t, appends: [{ partition: 0, records: records('extra'), producer: { ...extra, baseSequence: 0 } }] },
    ]);
    expect(results.map((r) => code(r[0]))).toEqual(['ok', 'ok', 'THROTTLING']);
    const state = await getPartitionState(ctx, t, 0);
    expect(Object.keys(state.producers)).toHaveLength(MAX_PRODUCERS_PER_PARTITION);
    expect(state.logEndOffset).toBe(MAX_PRODUCERS_PER_PARTITION + 1);
    expect((await readValues(ctx, t, 0)).slice(-2)).toEqual(['last.0', 'plain.0']);
  });

  it('a combined update whose reply was lost is found in the tail; one never sent is REQUEST_TIMED_OUT for every request in it', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    const p = await allocateProducerId(ctx);
    const sdk = observeSdk(ctx);
    const window = (tag: string, baseSequence: number): AppendRequest[] => [
      { topic: t, appends: [{ partition: 0, records: records(`${tag}-plain`) }] },
      { topic: t, appends: [{ partition: 0, records: records(`${tag}-p`, 2), producer: { ...p, baseSequence } }] },
    ];
    // Applied, reply lost: both acknowledged where the entry landed.
    sdk.fault = (call) => (isCommit(call) ? { when: 'after', error: timeoutError() } : undefined);
    const landed = await appendRequests(ctx, window('a', 0));
    expect(landed.map((r) => r[0])).toEqual([{ partition: 0, baseOffset: 0, count: 1 }, { partition: 0, baseOffset: 1, count: 2 }]);
    expect(sdk.calls.filter(isCommit)).toHaveLength(1);
    // Never sent: nothing can be said, so each request gets the retriable REQUEST_TIMED_OUT.
    sdk.fault = (call) => (isCommit(call) ? { when: 'before', error: timeoutError() } : undefined);
    const unknown = await appendRequests(ctx, window('b', 2));
    expect(unknown.map((r) => code(r[0]))).toEqual(['REQUEST_TIMED_OUT', 'REQUEST_TIMED_OUT']);
    // The idempotent producer's resend then lands exactly once.
    sdk.fault = () => undefined;
    expect((await appendRequests(ctx, window('b', 2)))[1][0]).toEqual({ partition: 0, baseOffset: 4, count: 2 });
    expect(await readValues(ctx, t, 0)).toEqual(['a-plain.0', 'a-p.0', 'a-p.1', 'b-plain.0', 'b-p.0', 'b-p.1']);
  });

  it('splits a large window into entries of about MAX_ENTRY_BYTES, still in one update', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1, { 'max.message.bytes': 1_000_000 });
    const big = (tag: string) => [{ timestamp: 1, key: null, value: Buffer.alloc(400_000, tag) }];
    const sdk = observeSdk(ctx);
    const results = await appendRequests(ctx, ['a', 'b', 'c', 'd'].map((tag) => ({ topic: t, appends: [{ partition: 0, records: big(tag) }] })));
    expect(results.map((r) => ok(r[0]).baseOffset)).toEqual([0, 1, 2, 3]);
    expect(sdk.calls.filter((c) => c.command === 'UpdateItem')).toHaveLength(1);
    expect((await getPartitionState(ctx, t, 0)).tail).toHaveLength(2);
    expect((await readValues(ctx, t, 0)).map((v) => v![0])).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('an intake object shared by two topics', () => {
  it('deleting one topic, then merges and sweeps, never remove what the other references; the object goes once neither does', async () => {
    const ctx = withClock(await createTestContext());
    const a = await createTopic(ctx, 'a', 2);
    const b = await createTopic(ctx, 'b', 1);
    const expected = new Map<number, string>();
    for (let i = 0; i < 3; i++) {
      const [ra, rb] = await appendRequests(ctx, [
        { topic: a, appends: [0, 1].map((partition) => ({ partition, records: [{ timestamp: ctx.now(), key: null, value: Buffer.from(`a${partition}.${i}`) }] })) },
        { topic: b, appends: [{ partition: 0, records: [{ timestamp: ctx.now(), key: null, value: Buffer.from(`b.${i}`) }] }] },
      ]);
      ra.forEach(ok);
      expected.set(ok(rb[0]).baseOffset, `b.${i}`);
    }
    const shared = await intakeObjects(ctx);
    expect(shared).toHaveLength(3);
    expect(new Set(await referencedObjectKeys(ctx, b))).toEqual(new Set(shared));

    await deleteTopic(ctx, 'a');
    // Old enough for every sweep rule, and swept twice (mark, then delete): B still references them.
    for (let run = 0; run < 2; run++) {
      ctx.advance(ctx.graceMs * 3);
      const report = await runOnce(ctx);
      expect(report.errors).toEqual([]);
    }
    const afterDeletion = await intakeObjects(ctx);
    const referenced = new Set(await referencedObjectKeys(ctx, b));
    for (const key of shared) expect(afterDeletion.includes(key) || !referenced.has(key), key).toBe(true);
    await expectConsistentPartition(ctx, b, expected);

    // B's ranges are merged into its own segment; then nothing references the shared objects.
    for (let run = 0; run < 4; run++) {
      ctx.advance(61_000 + ctx.graceMs);
      expect((await runOnce(ctx)).errors).toEqual([]);
      await expectConsistentPartition(ctx, b, expected, { settled: false });
    }
    expect(await intakeObjects(ctx)).toEqual([]);
    await expectConsistentPartition(ctx, b, expected);
    expect(await readValues(ctx, b, 0)).toEqual(['b.0', 'b.1', 'b.2']);
  });
});
