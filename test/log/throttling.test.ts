// Throttling (and S3's 5xx) on the append and fetch paths. The SDK observer sits inside the SDK's
// retry loop, so these tests see the SDK's own behaviour: a throttled attempt is a definite
// refusal (nothing applied), which the SDK retries and the unknown-outcome guard lets through; when
// it persists, the caller gets a retriable error and nothing changes.
import { describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { readRecords } from '../../lib/log/read.js';
import { TAIL_MAX_ENTRIES, TAIL_ROOM_ENTRIES } from '../../lib/log/spill.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { createTopic } from '../../lib/metadata/topics.js';
import type { TopicRef } from '../../lib/metadata/types.js';
import { createTestContext } from '../support/storage.js';
import { readAll } from './read-all.js';
import { isCommit, isSpillPut, isSpillRemove, observeSdk, serverError, throttlingError } from './sdk-faults.js';

const records = (tag: string) => [{ timestamp: 0, key: null, value: Buffer.from(tag) }];

async function values(ctx: SluiceContext, topic: TopicRef) {
  const read = await readAll(ctx, topic, 0);
  return read.records.map((r) => `${r.offset}:${r.value!.toString()}`);
}

describe('throttling', () => {
  it('absorbs a throttled commit: the SDK re-sends it (nothing was applied) and the batch is acknowledged once', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    const sdk = observeSdk(ctx);
    let throttled = 0;
    sdk.fault = (call) => (isCommit(call) && throttled++ === 0 ? { when: 'before', error: throttlingError() } : undefined);
    expect(await appendToPartitions(ctx, t, [{ partition: 0, records: records('a') }])).toEqual([{ partition: 0, baseOffset: 0, count: 1 }]);
    expect(sdk.calls.filter(isCommit)).toHaveLength(2);
    expect(sdk.calls.filter(isCommit)[0].outcome).toBeUndefined(); // never reached DynamoDB
    expect(await values(ctx, t)).toEqual(['0:a']);
  });

  it('surfaces persistent throttling of DynamoDB or S3 (and S3 5xx) as retriable errors that change nothing visible', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    const sdk = observeSdk(ctx);
    await appendToPartitions(ctx, t, [{ partition: 0, records: records('a') }]);
    const faults = [
      { match: isCommit, error: throttlingError('ProvisionedThroughputExceededException'), code: 'THROTTLING' },
      { match: isCommit, error: throttlingError('ThrottlingException'), code: 'THROTTLING' },
      { match: (c: { command: string }) => c.command === 'PutObject', error: serverError(503, 'SlowDown'), code: 'THROTTLING' },
      { match: (c: { command: string }) => c.command === 'PutObject', error: serverError(500, 'InternalError'), code: 'UNKNOWN_SERVER_ERROR' },
    ];
    for (const fault of faults) {
      sdk.calls.length = 0;
      sdk.fault = (call) => (fault.match(call) ? { when: 'before', error: fault.error } : undefined);
      const [result] = await appendToPartitions(ctx, t, [{ partition: 0, records: records('never') }]);
      expect(result).toMatchObject({ partition: 0, error: { code: fault.code, retriable: true } });
      // The SDK tried as often as it may (3 attempts), then gave up; a failed PutObject stops the append before any commit.
      expect(sdk.calls.filter(fault.match)).toHaveLength(3);
      expect(sdk.calls.filter(isCommit)).toHaveLength(fault.match === isCommit ? 3 : 0);
      expect((await getPartitionState(ctx, t, 0)).logEndOffset).toBe(1);
    }
    sdk.fault = () => undefined;
    expect(await appendToPartitions(ctx, t, [{ partition: 0, records: records('b') }])).toEqual([{ partition: 0, baseOffset: 1, count: 1 }]);
    expect(await values(ctx, t)).toEqual(['0:a', '1:b']);
  });

  it('a throttled spill does not fail the append that filled the tail; once the room is used up appends fail retriably; then the next append spills and lands', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    const sdk = observeSdk(ctx);
    const expected: string[] = [];
    for (let i = 0; i < TAIL_MAX_ENTRIES - 1; i++) {
      await appendToPartitions(ctx, t, [{ partition: 0, records: records(`f${i}`) }]);
      expected.push(`${i}:f${i}`);
    }
    // The appends bringing the tail to TAIL_MAX_ENTRIES and to TAIL_ROOM_ENTRIES spill it after
    // their commits: throttled away. Acknowledged anyway, and the room beyond takes the others.
    sdk.fault = (call) => (isSpillPut(call) ? { when: 'before', error: throttlingError('ThrottlingException') } : undefined);
    for (let i = TAIL_MAX_ENTRIES - 1; i < TAIL_ROOM_ENTRIES; i++) {
      expect(await appendToPartitions(ctx, t, [{ partition: 0, records: records(`r${i}`) }])).toEqual([{ partition: 0, baseOffset: i, count: 1 }]);
      expected.push(`${i}:r${i}`);
    }
    expect(sdk.calls.filter(isSpillPut).length).toBeGreaterThanOrEqual(2);
    expect((await getPartitionState(ctx, t, 0)).tail).toHaveLength(TAIL_ROOM_ENTRIES);
    // Still throttled: the next append meets the full tail, cannot spill, fails retriably, changes nothing.
    const [refused] = await appendToPartitions(ctx, t, [{ partition: 0, records: records('never') }]);
    expect(refused).toMatchObject({ partition: 0, error: { code: 'THROTTLING', retriable: true } });
    expect((await getPartitionState(ctx, t, 0)).logEndOffset).toBe(TAIL_ROOM_ENTRIES);
    // Throttling over: spill (put, remove), then the commit.
    sdk.fault = () => undefined;
    sdk.calls.length = 0;
    expect(await appendToPartitions(ctx, t, [{ partition: 0, records: records('c') }])).toEqual([{ partition: 0, baseOffset: TAIL_ROOM_ENTRIES, count: 1 }]);
    expect(sdk.calls.filter(isSpillPut)).toHaveLength(1);
    expect(sdk.calls.filter(isSpillRemove)).toHaveLength(1);
    expect(await values(ctx, t)).toEqual([...expected, `${TAIL_ROOM_ENTRIES}:c`]);
  });

  it('reports a throttled read as retriable THROTTLING, never as data or an offset error', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    // Offset 0 ends up in a SEG item (the tail spilled), so a read makes all three kinds of request.
    for (let i = 0; i <= TAIL_MAX_ENTRIES; i++) await appendToPartitions(ctx, t, [{ partition: 0, records: records(i ? `x${i}` : 'a') }]);
    expect((await getPartitionState(ctx, t, 0)).tailBase).toBeGreaterThan(0);
    const sdk = observeSdk(ctx);
    for (const command of ['GetItem', 'Query', 'GetObject']) {
      sdk.fault = (call) => (call.command === command ? { when: 'before', error: throttlingError('ThrottlingException') } : undefined);
      await expect(readRecords(ctx, t, 0, { offset: 0, maxBytes: 1000 })).rejects.toMatchObject({ code: 'THROTTLING', retriable: true });
    }
    sdk.fault = () => undefined;
    expect((await readRecords(ctx, t, 0, { offset: 0, maxBytes: 1000 })).records[0].value!.toString()).toBe('a');
  });
});
