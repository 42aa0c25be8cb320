// lib/metadata/partition-state.ts: parsing a STATE item, and the exact condition / update
// expressions of every write not covered by append-conditions.test.ts (creation, the leader
// lease, retention's logStartOffset, merge bookkeeping, idle producers), with what a refused
// condition means for each. One emulator test runs the lease's fencing for real.
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  acquirePartitionLease,
  advanceLogStartOffset,
  createPartitionStates,
  deletePartitionState,
  getPartitionState,
  partitionStateFromItem,
  readPartitionState,
  recordMerge,
  releasePartitionLease,
  removeIdleProducers,
  type PartitionLease,
} from '../../lib/metadata/partition-state.js';
import type { TopicRef } from '../../lib/metadata/types.js';
import { conditionFailed, mockedDdbContext } from '../support/mock-ddb.js';
import { createTestContext } from '../support/storage.js';

const topic: TopicRef = { name: 'my#topic', id: 'TID', };
const KEY = { pk: 'PART#my#topic#TID#3', sk: 'STATE' };
const item = (over: Record<string, unknown> = {}) => ({
  ...KEY,
  logEndOffset: 10,
  logStartOffset: 2,
  tailBase: 4,
  tail: ['e1'],
  epoch: 5,
  expiresAt: 99,
  bytes: 100,
  segments: 2,
  producers: {},
  producerBases: {},
  ...over,
});

describe('partitionStateFromItem', () => {
  it('takes topic, id and partition from the key (a topic name may contain #)', () => {
    const s = partitionStateFromItem(item({ owner: 'me' }));
    expect(s).toMatchObject({ topic: 'my#topic', topicId: 'TID', partition: 3, logEndOffset: 10, tailBase: 4, tail: ['e1'], owner: 'me', epoch: 5 });
    expect(partitionStateFromItem(item()).owner).toBeUndefined();
  });
  it('missing producer maps read as empty', () => {
    const { producers: _p, producerBases: _b, ...rest } = item();
    expect(partitionStateFromItem(rest)).toMatchObject({ producers: {}, producerBases: {} });
  });
  it.each([
    ['a malformed key', { pk: 'TOPICS' }, /malformed key/],
    ['a tail that is not a list of strings', { tail: [1] }, /tail/],
    ['a missing tail', { tail: undefined }, /tail/],
    ['a non-integer counter', { logEndOffset: '10' }, /logEndOffset/],
    ['a fractional counter', { bytes: 1.5 }, /bytes/],
    ['a missing epoch', { epoch: undefined }, /epoch/],
  ])('%s is a clear error', (_what, over, message) => {
    expect(() => partitionStateFromItem(item(over))).toThrow(message);
  });
});

describe('reads', () => {
  it('strongly consistent GetItem on the STATE key; missing = undefined / UNKNOWN_TOPIC_OR_PARTITION', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolvesOnce({ Item: item() }).resolves({});
    expect((await readPartitionState(ctx, topic, 3))?.logEndOffset).toBe(10);
    expect(mock.commandCalls(GetCommand)[0].args[0].input).toMatchObject({ Key: KEY, ConsistentRead: true, TableName: 'tbl' });
    expect(await readPartitionState(ctx, topic, 3)).toBeUndefined();
    await expect(getPartitionState(ctx, topic, 3)).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION', details: { topic: 'my#topic', partition: 3 } });
  });
});

describe('createPartitionStates', () => {
  it('puts every attribute the updates need, create-only; an existing item is left alone (retry-safe)', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(PutCommand).rejectsOnce(conditionFailed()).resolves({});
    await createPartitionStates(ctx, topic, [0, 1]);
    const puts = mock.commandCalls(PutCommand).map((c) => c.args[0].input);
    expect(puts).toHaveLength(2);
    for (const p of puts) {
      expect(p.ConditionExpression).toBe('attribute_not_exists(pk)');
      expect(p.Item).toMatchObject({ sk: 'STATE', logEndOffset: 0, logStartOffset: 0, tailBase: 0, tail: [], epoch: 0, expiresAt: 0, bytes: 0, segments: 0, producers: {}, producerBases: {} });
    }
  });
  it('any other failure reaches the caller', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(PutCommand).rejects(Object.assign(new Error('x'), { name: 'InternalServerError' }));
    await expect(createPartitionStates(ctx, topic, [0])).rejects.toMatchObject({ name: 'InternalServerError' });
  });
  it('writes at most 16 at a time', async () => {
    const { ctx, mock } = mockedDdbContext();
    let inFlight = 0;
    let peak = 0;
    mock.on(PutCommand).callsFake(async () => {
      peak = Math.max(peak, ++inFlight);
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
      return {};
    });
    await createPartitionStates(ctx, topic, Array.from({ length: 40 }, (_, i) => i));
    expect(mock.commandCalls(PutCommand)).toHaveLength(40);
    expect(peak).toBe(16);
  });
});

describe('acquirePartitionLease', () => {
  it('free, expired by my clock, or mine: owner, epoch + 1, expiry = now + leaseMs', async () => {
    const { ctx, mock } = mockedDdbContext({ leaseMs: 500, now: () => 1000 });
    mock.on(UpdateCommand).resolves({ Attributes: item({ owner: ctx.ownerId, epoch: 6, expiresAt: 1500 }) });
    const got = await acquirePartitionLease(ctx, topic, 3);
    expect(got?.lease).toEqual({ topic, partition: 3, epoch: 6, expiresAt: 1500 });
    const input = mock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(input.Key).toEqual(KEY);
    expect(input.ConditionExpression).toBe('attribute_exists(pk) AND (attribute_not_exists(#owner) OR #expiresAt < :now OR #owner = :me)');
    expect(input.UpdateExpression).toBe('SET #owner = :me, #epoch = #epoch + :one, #expiresAt = :exp');
    expect(input.ExpressionAttributeValues).toEqual({ ':me': ctx.ownerId, ':now': 1000, ':exp': 1500, ':one': 1 });
    expect(input.ReturnValues).toBe('ALL_NEW');
  });
  it('an explicit lease length overrides the context\'s', async () => {
    const { ctx, mock } = mockedDdbContext({ leaseMs: 500, now: () => 1000 });
    mock.on(UpdateCommand).resolves({ Attributes: item() });
    await acquirePartitionLease(ctx, topic, 3, 20);
    expect(mock.commandCalls(UpdateCommand)[0].args[0].input.ExpressionAttributeValues).toMatchObject({ ':exp': 1020 });
  });
  it('refused (someone else holds it): undefined; other failures are thrown', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(UpdateCommand).rejectsOnce(conditionFailed()).rejects(Object.assign(new Error('x'), { name: 'InternalServerError' }));
    expect(await acquirePartitionLease(ctx, topic, 3)).toBeUndefined();
    await expect(acquirePartitionLease(ctx, topic, 3)).rejects.toMatchObject({ name: 'InternalServerError' });
  });
});

describe('leader updates are conditioned on my epoch and owner id', () => {
  const lease: PartitionLease = { topic, partition: 3, epoch: 7, expiresAt: 0 };

  it('advanceLogStartOffset: only forward and never past tailBase; bytes decremented', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(UpdateCommand).resolves({});
    expect(await advanceLogStartOffset(ctx, lease, 40, 1234)).toBe(true);
    const input = mock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(input.Key).toEqual(KEY);
    expect(input.ConditionExpression).toBe('#epoch = :epoch AND #owner = :me AND #logStartOffset < :start AND #tailBase >= :start');
    expect(input.UpdateExpression).toBe('SET #logStartOffset = :start, #bytes = #bytes - :removed');
    expect(input.ExpressionAttributeNames).toEqual({ '#epoch': 'epoch', '#owner': 'owner', '#logStartOffset': 'logStartOffset', '#tailBase': 'tailBase', '#bytes': 'bytes' });
    expect(input.ExpressionAttributeValues).toEqual({ ':epoch': 7, ':me': ctx.ownerId, ':start': 40, ':removed': 1234 });
  });

  it('recordMerge: segments -= replaced - 1', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(UpdateCommand).resolves({});
    expect(await recordMerge(ctx, lease, 4)).toBe(true);
    const input = mock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(input.ConditionExpression).toBe('#epoch = :epoch AND #owner = :me');
    expect(input.UpdateExpression).toBe('SET #segments = #segments - :surplus');
    expect(input.ExpressionAttributeValues).toEqual({ ':epoch': 7, ':me': ctx.ownerId, ':surplus': 3 });
  });

  it('releasePartitionLease: REMOVE #owner under the same fence', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(UpdateCommand).resolves({});
    await releasePartitionLease(ctx, lease);
    const input = mock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(input.UpdateExpression).toBe('REMOVE #owner');
    expect(input.ConditionExpression).toBe('#epoch = :epoch AND #owner = :me');
  });

  it('fenced (refused): false, and release swallows it; other failures are thrown', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(UpdateCommand).rejects(conditionFailed());
    expect(await advanceLogStartOffset(ctx, lease, 40, 1)).toBe(false);
    expect(await recordMerge(ctx, lease, 2)).toBe(false);
    await expect(releasePartitionLease(ctx, lease)).resolves.toBeUndefined();
    mock.on(UpdateCommand).rejects(Object.assign(new Error('x'), { name: 'InternalServerError' }));
    await expect(recordMerge(ctx, lease, 2)).rejects.toMatchObject({ name: 'InternalServerError' });
  });
});

describe('removeIdleProducers', () => {
  it('nothing idle: no request', async () => {
    const { ctx, mock } = mockedDdbContext();
    expect(await removeIdleProducers(ctx, topic, 3, [])).toBe(true);
    expect(mock.calls()).toHaveLength(0);
  });
  it('each entry removed (with its base) only if its lastUpdated is still the one seen', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(UpdateCommand).resolves({});
    expect(await removeIdleProducers(ctx, topic, 3, [{ producerId: '111', lastUpdated: 5 }, { producerId: '222', lastUpdated: 6 }])).toBe(true);
    const input = mock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(input.ConditionExpression).toBe('attribute_exists(pk) AND #producers.#p0.#t = :t0 AND #producers.#p1.#t = :t1');
    expect(input.UpdateExpression).toBe('REMOVE #producers.#p0, #bases.#p0, #producers.#p1, #bases.#p1');
    expect(input.ExpressionAttributeNames).toEqual({ '#producers': 'producers', '#bases': 'producerBases', '#t': 't', '#p0': '111', '#p1': '222' });
    expect(input.ExpressionAttributeValues).toEqual({ ':t0': 5, ':t1': 6 });
  });
  it('refused (a producer wrote meanwhile): false', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(UpdateCommand).rejects(conditionFailed());
    expect(await removeIdleProducers(ctx, topic, 3, [{ producerId: '1', lastUpdated: 1 }])).toBe(false);
  });
});

describe('deletePartitionState', () => {
  it('an unconditional DeleteItem of the STATE key (topic deletion goes first through it)', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(DeleteCommand).resolves({});
    await deletePartitionState(ctx, topic, 3);
    const input = mock.commandCalls(DeleteCommand)[0].args[0].input;
    expect(input.Key).toEqual(KEY);
    expect(input.ConditionExpression).toBeUndefined();
  });
});

describe('against the emulator', () => {
  it('the lease fences an earlier holder: a second owner waits for expiry, then the first one\'s writes are refused', async () => {
    let now = 10_000;
    const base = await createTestContext({ leaseMs: 1000 });
    const a = { ...base, ownerId: 'A', now: () => now };
    const b = { ...base, ownerId: 'B', now: () => now };
    const t: TopicRef = { name: 't', id: 'X' };
    await createPartitionStates(a, t, [0]);
    await createPartitionStates(a, t, [0]); // harmless repeat
    const first = await acquirePartitionLease(a, t, 0);
    expect(first?.lease.epoch).toBe(1);
    expect(await acquirePartitionLease(b, t, 0)).toBeUndefined();
    now += 1001;
    const second = await acquirePartitionLease(b, t, 0);
    expect(second?.lease.epoch).toBe(2);
    expect(await recordMerge(a, first!.lease, 2)).toBe(false);
    expect(await recordMerge(b, second!.lease, 1)).toBe(true);
    // retention cannot pass tailBase (0 here)
    expect(await advanceLogStartOffset(b, second!.lease, 1, 0)).toBe(false);
    await releasePartitionLease(b, second!.lease);
    const state = await getPartitionState(b, t, 0);
    expect(state.owner).toBeUndefined();
    expect(state.epoch).toBe(2);
    // a missing partition: no lease
    expect(await acquirePartitionLease(a, t, 1)).toBeUndefined();
    // deleted: appends and the lease find no item
    await deletePartitionState(a, t, 0);
    expect(await readPartitionState(a, t, 0)).toBeUndefined();
    expect(await acquirePartitionLease(a, t, 0)).toBeUndefined();
  });
});
