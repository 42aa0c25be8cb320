// Idempotent producers on the leaderless append path (docs/ARCHITECTURE.md rules 5 and 6): the producer's
// entry and base offset are set by the same conditional UpdateItem that appends the batch, and a
// refused update is decided by one consistent read: a resent batch is answered with its original
// offsets, a gap, an older batch, an old epoch and an unknown producer each get Kafka's error, and
// nothing is written for them. Producers never conflict with each other; a partition holds a capped
// number of producer entries (idle ones expire), so no input grows STATE past its 2 KB budget.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { appendToPartitions, type PartitionAppend, type PartitionAppendResult } from '../../lib/log/append.js';
import { PARTITION_LEADER_EPOCH } from '../../lib/log/batch-stamp.js';
import { MAX_PRODUCERS_PER_PARTITION, PRODUCER_ENTRY_IDLE_MS } from '../../lib/log/producer-sequence.js';
import { readBatches } from '../../lib/log/read.js';
import { TAIL_MAX_ENTRIES } from '../../lib/log/spill.js';
import { itemBytes } from '../../lib/metadata/item-size.js';
import { stateKey } from '../../lib/metadata/keys.js';
import { acquirePartitionLease, getPartitionState } from '../../lib/metadata/partition-state.js';
import { allocateProducerId } from '../../lib/metadata/producer-ids.js';
import { createTopic, MAX_TOPIC_NAME_LENGTH } from '../../lib/metadata/topics.js';
import type { TopicRef } from '../../lib/metadata/types.js';
import { readBatchHeader } from '../../lib/records/index.js';
import { startProcess } from '../proof/processes.js';
import { createTestContext } from '../support/storage.js';
import { readAll, readValues } from './read-all.js';
import { crashError, holdNext, isCommit, isSpillPut, isStateRead, observeSdk, timeoutError } from './sdk-faults.js';

const records = (tag: string, n: number, timestamp = 1000) =>
  Array.from({ length: n }, (_, i) => ({ timestamp, key: null, value: Buffer.from(`${tag}${i}`) }));

type Producer = { producerId: number; producerEpoch: number };

function producing(ctx: SluiceContext, topic: TopicRef, p: Producer) {
  return async (baseSequence: number, n = 1, tag = `s${baseSequence}-`, producerEpoch = p.producerEpoch): Promise<PartitionAppendResult> => {
    const [result] = await appendToPartitions(ctx, topic, [{ partition: 0, records: records(tag, n), producer: { ...p, producerEpoch, baseSequence } }]);
    return result;
  };
}

const code = (r: PartitionAppendResult) => ('error' in r ? r.error.code : 'ok');

describe('idempotent producer', () => {
  it('sets the producer entry and its base offset in the one conditional update that appends the batch', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 1);
    const p = await allocateProducerId(ctx);
    await appendToPartitions(ctx, topic, [{ partition: 0, records: records('plain', 3) }]);
    const sdk = observeSdk(ctx);
    expect(await producing(ctx, topic, p)(0, 2)).toEqual({ partition: 0, baseOffset: 3, count: 2 });
    expect(sdk.calls.map((c) => c.command)).toEqual(['PutObject', 'UpdateItem']);
    const state = await getPartitionState(ctx, topic, 0);
    expect(state.producers[String(p.producerId)]).toMatchObject({ producerEpoch: 0, baseSequence: 0, lastSequence: 1, count: 2 });
    expect(state.producerBases[String(p.producerId)]).toBe(3);
  });

  it('answers a resent batch with its original offsets and writes nothing, also after other appends', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 1);
    const p = await allocateProducerId(ctx);
    const send = producing(ctx, topic, p);
    expect(await send(0, 2, 'a')).toEqual({ partition: 0, baseOffset: 0, count: 2 });
    await appendToPartitions(ctx, topic, [{ partition: 0, records: records('plain', 1) }]);
    const sdk = observeSdk(ctx);
    expect(await send(0, 2, 'a')).toEqual({ partition: 0, baseOffset: 0, count: 2, duplicate: true });
    // The refused update, then the one consistent read that decides; nothing appended.
    expect(sdk.calls.filter(isCommit).map((c) => c.outcome)).toEqual(['refused']);
    expect(sdk.calls.filter(isStateRead)).toHaveLength(1);
    expect(await send(2, 1, 'b')).toEqual({ partition: 0, baseOffset: 3, count: 1 });
    expect(await readValues(ctx, topic)).toEqual(['a0', 'a1', 'plain0', 'b0']);
    expect((await getPartitionState(ctx, topic, 0)).logEndOffset).toBe(4);
  });

  it('refuses a gap, an older batch, an old epoch and an unknown producer, each with Kafka\'s error, changing nothing', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 1);
    const p = await allocateProducerId(ctx);
    const send = producing(ctx, topic, p);
    // Unknown producer (no entry on this partition) with a sequence other than 0.
    expect(code(await send(3))).toBe('UNKNOWN_PRODUCER_ID');
    expect(await send(0, 2)).toEqual({ partition: 0, baseOffset: 0, count: 2 });
    expect(await send(2, 2)).toEqual({ partition: 0, baseOffset: 2, count: 2 });
    expect(await send(4, 2)).toEqual({ partition: 0, baseOffset: 4, count: 2 });
    // A gap: sequence 6 expected.
    expect(await send(7)).toMatchObject({ error: { code: 'OUT_OF_ORDER_SEQUENCE_NUMBER', retriable: false } });
    // An older batch than the last one (sequence 2 or 0): already written, its offsets forgotten.
    expect(code(await send(2, 2))).toBe('DUPLICATE_SEQUENCE_NUMBER');
    expect(code(await send(0, 2))).toBe('DUPLICATE_SEQUENCE_NUMBER');
    // A new epoch must start at 0; once it has, the old epoch is fenced.
    expect(code(await send(6, 1, 'x', 1))).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER');
    expect(await send(0, 1, 'e1-', 1)).toEqual({ partition: 0, baseOffset: 6, count: 1 });
    expect(code(await send(6, 1))).toBe('INVALID_PRODUCER_EPOCH');
    expect(code(await send(0, 1))).toBe('INVALID_PRODUCER_EPOCH');
    expect((await getPartitionState(ctx, topic, 0)).logEndOffset).toBe(7);
    expect(await readValues(ctx, topic)).toEqual(['s0-0', 's0-1', 's2-0', 's2-1', 's4-0', 's4-1', 'e1-0']);
  });

  it('a resend after a lost commit reply whose search failed too gets the original offsets, not a second copy', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 1);
    const p = await allocateProducerId(ctx);
    const sdk = observeSdk(ctx);
    let armed = true;
    sdk.fault = (call) => {
      if (!armed) return undefined;
      if (isCommit(call)) return { when: 'after', error: timeoutError() };
      if (isStateRead(call)) {
        armed = false;
        return { when: 'before', error: crashError('the search read failed') };
      }
      return undefined;
    };
    const batch: PartitionAppend = { partition: 0, records: records('a', 3), producer: { ...p, baseSequence: 0 } };
    const [failed] = await appendToPartitions(ctx, topic, [batch]);
    expect(failed).toMatchObject({ partition: 0, error: { retriable: true } });
    expect(await appendToPartitions(ctx, topic, [batch])).toEqual([{ partition: 0, baseOffset: 0, count: 3, duplicate: true }]);
    expect(await readValues(ctx, topic)).toEqual(['a0', 'a1', 'a2']);
  });

  it('two producers (two processes) writing one partition at once never conflict: every batch acknowledged first time, in sequence order', async () => {
    const shared = await createTestContext();
    const topic = await createTopic(shared, 't', 1);
    const producers = await Promise.all([allocateProducerId(shared), allocateProducerId(shared)]);
    const BATCHES = 12;
    const acked = await Promise.all(
      producers.map(async (p, w) => {
        const ctx = startProcess(shared);
        const send = producing(ctx, topic, p);
        const results: PartitionAppendResult[] = [];
        for (let b = 0; b < BATCHES; b++) results.push(await send(2 * b, 2, `w${w}b${b}-`));
        return results;
      }),
    );
    for (const results of acked) {
      for (const r of results) expect(r).not.toHaveProperty('error');
      for (const r of results) expect(r).not.toHaveProperty('duplicate');
      const bases = results.map((r) => ('baseOffset' in r ? r.baseOffset : -1));
      expect([...bases].sort((a, b) => a - b)).toEqual(bases);
    }
    const { records: read } = await readAll(shared, topic, 0);
    expect(read).toHaveLength(2 * BATCHES * 2);
    const byOffset = new Map(read.map((r) => [r.offset, r.value!.toString()]));
    acked.forEach((results, w) =>
      results.forEach((r, b) => {
        if (!('baseOffset' in r)) throw new Error('not acked');
        expect([byOffset.get(r.baseOffset), byOffset.get(r.baseOffset + 1)]).toEqual([`w${w}b${b}-0`, `w${w}b${b}-1`]);
      }),
    );
  });

  it('caps producer entries per partition: a new producer is refused retriably until idle entries can expire (injected clock)', async () => {
    const base = await createTestContext();
    const clock = { now: 1_700_000_000_000 };
    const ctx: SluiceContext = { ...base, now: () => clock.now };
    const topic = await createTopic(ctx, 't', 1);
    const ids = Array.from({ length: MAX_PRODUCERS_PER_PARTITION + 1 }, (_, i) => ({ producerId: 5000 + i, producerEpoch: 0 }));
    // Half the producers write at T, the other half a minute before they would count as idle.
    const half = MAX_PRODUCERS_PER_PARTITION / 2;
    for (const p of ids.slice(0, half)) expect(code(await producing(ctx, topic, p)(0))).toBe('ok');
    clock.now += PRODUCER_ENTRY_IDLE_MS - 60_000;
    for (const p of ids.slice(half, MAX_PRODUCERS_PER_PARTITION)) expect(code(await producing(ctx, topic, p)(0))).toBe('ok');

    const newcomer = producing(ctx, topic, ids[MAX_PRODUCERS_PER_PARTITION]);
    const refused = await newcomer(0);
    expect(refused).toMatchObject({ error: { code: 'THROTTLING', retriable: true } });
    expect((await getPartitionState(ctx, topic, 0)).logEndOffset).toBe(MAX_PRODUCERS_PER_PARTITION);
    // Known producers continue while the cap holds.
    expect(code(await producing(ctx, topic, ids[0])(1))).toBe('ok');

    // Past the idle time of the first half (except ids[0], which just wrote): they are expired to make room.
    clock.now += 60_001;
    expect(await newcomer(0)).toEqual({ partition: 0, baseOffset: MAX_PRODUCERS_PER_PARTITION + 1, count: 1 });
    const state = await getPartitionState(ctx, topic, 0);
    const held = Object.keys(state.producers).map(Number).sort();
    expect(held).toEqual([ids[0], ...ids.slice(half)].map((p) => p.producerId).sort());
    expect(Object.keys(state.producerBases).map(Number).sort()).toEqual(held);
    // An expired producer continuing its sequence is unknown now (Kafka: UNKNOWN_PRODUCER_ID).
    expect(code(await producing(ctx, topic, ids[1])(1))).toBe('UNKNOWN_PRODUCER_ID');
  });

  it('no input grows STATE past 2 KB: the producer cap reached with maximal entries, a full tail of maximal entries, a leader lease', async () => {
    const ctx = await createTestContext();
    const { largest, producers } = await fillStateToTheBrim(ctx, 'orders.eu-west-1.payments-v2');
    expect(producers).toBe(MAX_PRODUCERS_PER_PARTITION);
    expect(largest, `largest STATE seen: ${largest} bytes`).toBeLessThanOrEqual(2048);
  });

  // The topic name is in STATE's key only (PART#<topic>#<id>#<p>), so Kafka's longest legal name
  // (249 characters) still fits the budget.
  it('no input grows STATE past 2 KB, even under the longest topic name Kafka allows', async () => {
    const ctx = await createTestContext();
    const { largest } = await fillStateToTheBrim(ctx, 'x'.repeat(MAX_TOPIC_NAME_LENGTH));
    expect(largest, `largest STATE seen: ${largest} bytes`).toBeLessThanOrEqual(2048);
  });

  it('keeps the batch header fields Kafka consumers check; a fetch stamps the base offset and the partition leader epoch', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 1);
    const p = await allocateProducerId(ctx);
    await appendToPartitions(ctx, topic, [{ partition: 0, records: records('plain', 2) }]);
    await appendToPartitions(ctx, topic, [{ partition: 0, records: records('a', 1), producer: { ...p, producerEpoch: 3, baseSequence: 0 } }]);
    const read = await readBatches(ctx, topic, 0, { offset: 2, maxBytes: 1 << 20 });
    const header = readBatchHeader(read.batches[0]);
    expect(header).toMatchObject({ baseOffset: 2, producerId: p.producerId, producerEpoch: 3, baseSequence: 0, partitionLeaderEpoch: PARTITION_LEADER_EPOCH });
  });
});

/**
 * Makes STATE as large as inputs can: MAX_PRODUCERS_PER_PARTITION producers with the largest ids and
 * epoch, batches with extreme timestamps (entries store them as deltas from their creation time),
 * a tail filled to TAIL_MAX_ENTRIES (the moment before its filler spills it: the spill put is held
 * back), and a partition leader's lease. Returns the largest STATE size seen after any write.
 */
async function fillStateToTheBrim(shared: SluiceContext, name: string): Promise<{ largest: number; producers: number }> {
  const topic = await createTopic(shared, name, 1);
  const ctx = startProcess(shared);
  let largest = 0;
  const measure = async () => void (largest = Math.max(largest, await stateBytes(shared, topic)));
  const extreme = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ timestamp: i === 0 ? 0 : 8_640_000_000_000_000, key: null, value: Buffer.from('v') }));
  await acquirePartitionLease(shared, topic, 0);
  for (let i = 0; i < MAX_PRODUCERS_PER_PARTITION; i++) {
    const p = { producerId: Number.MAX_SAFE_INTEGER - i, producerEpoch: 32767 };
    for (const baseSequence of [0, 1000]) {
      const [r] = await appendToPartitions(ctx, topic, [{ partition: 0, records: extreme(1000), producer: { ...p, baseSequence } }]);
      expect(r).not.toHaveProperty('error');
      await measure();
    }
  }
  // Fill the tail to the brim: the filler's spill is held until STATE has been measured full.
  const sdk = observeSdk(ctx);
  const spill = holdNext(sdk, isSpillPut);
  for (let i = 0; (await getPartitionState(shared, topic, 0)).tail.length < TAIL_MAX_ENTRIES; i++) {
    const pending = appendToPartitions(ctx, topic, [{ partition: 0, records: extreme(1000) }]);
    await Promise.race([pending, spill.reached]);
    await measure();
    if (spill.caught) {
      spill.release();
      await pending;
      break;
    }
    await pending;
  }
  expect(spill.caught).toBe(true);
  return { largest, producers: Object.keys((await getPartitionState(shared, topic, 0)).producers).length };
}

/** STATE's size by DynamoDB's rules (what every append is billed for). */
async function stateBytes(ctx: SluiceContext, topic: TopicRef): Promise<number> {
  const got = await ctx.ddb.send(new GetCommand({ TableName: ctx.table, Key: stateKey(topic, 0), ConsistentRead: true }));
  return itemBytes(got.Item!);
}
