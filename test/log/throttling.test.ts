import { describe, expect, it } from 'vitest';
import { appendToPartitions } from '../../lib/log/append.js';
import { TAIL_MAX_RANGES } from '../../lib/log/partition-tail.js';
import { readRecords } from '../../lib/log/read.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { createTestContext } from '../support/storage.js';
import { isCommit, observeSdk, throttlingError } from './sdk-faults.js';
import { readAll } from './read-all.js';

const records = (tag: string) => [{ timestamp: 0, key: null, value: Buffer.from(tag) }];

async function values(ctx: Awaited<ReturnType<typeof createTestContext>>) {
  const read = await readAll(ctx, 't', 0);
  return read.records.map((r) => `${r.offset}:${r.value!.toString()}`);
}

describe('throttling', () => {
  it('absorbs a throttled commit: STATE is read, the same commit re-sent, the batch acknowledged once', async () => {
    const ctx = await createTestContext();
    const sdk = observeSdk(ctx);
    let throttled = 0;
    sdk.fault = (call) => (isCommit(call) && throttled++ === 0 ? { when: 'before', error: throttlingError() } : undefined);
    expect(await appendToPartitions(ctx, 't', [{ partition: 0, records: records('a') }])).toEqual([
      { partition: 0, baseOffset: 0, count: 1 },
    ]);
    expect(sdk.calls.filter(isCommit)).toHaveLength(2);
    expect(await values(ctx)).toEqual(['0:a']);
  });

  it('surfaces persistent throttling of DynamoDB or S3 as retriable errors that change nothing visible', async () => {
    const ctx = await createTestContext();
    const sdk = observeSdk(ctx);
    await appendToPartitions(ctx, 't', [{ partition: 0, records: records('a') }]);
    const faults = [
      { match: isCommit, error: throttlingError('ProvisionedThroughputExceededException'), code: 'THROTTLING' },
      { match: (c: { command: string }) => c.command === 'PutObject', error: Object.assign(new Error('Slow Down'), { name: 'SlowDown', $metadata: { httpStatusCode: 503 } }), code: 'THROTTLING' },
      { match: (c: { command: string }) => c.command === 'PutObject', error: Object.assign(new Error('We encountered an internal error'), { name: 'InternalError', $metadata: { httpStatusCode: 500 } }), code: 'UNKNOWN_SERVER_ERROR' },
    ];
    for (const fault of faults) {
      sdk.fault = (call) => (fault.match(call) ? { when: 'before', error: fault.error } : undefined);
      const [result] = await appendToPartitions(ctx, 't', [{ partition: 0, records: records('never') }]);
      expect(result).toMatchObject({ partition: 0, error: { code: fault.code, retriable: true } });
      expect((await getPartitionState(ctx, 't', 0)).nextOffset).toBe(1);
    }
    sdk.fault = () => undefined;
    expect(await appendToPartitions(ctx, 't', [{ partition: 0, records: records('b') }])).toEqual([
      { partition: 0, baseOffset: 1, count: 1 },
    ]);
    expect(await values(ctx)).toEqual(['0:a', '1:b']);

    // Fill STATE's tail: the next append spills it, and that put is throttled.
    const filled = ['0:a', '1:b'];
    for (let i = 2; i < TAIL_MAX_RANGES; i++) {
      await appendToPartitions(ctx, 't', [{ partition: 0, records: records(`f${i}`) }]);
      filled.push(`${i}:f${i}`);
    }
    sdk.fault = (call) => (call.command === 'PutItem' ? { when: 'before', error: throttlingError('ThrottlingException') } : undefined);
    const [spill] = await appendToPartitions(ctx, 't', [{ partition: 0, records: records('never') }]);
    expect(spill).toMatchObject({ partition: 0, error: { code: 'THROTTLING', retriable: true } });
    expect((await getPartitionState(ctx, 't', 0)).nextOffset).toBe(TAIL_MAX_RANGES);
    sdk.fault = () => undefined;
    expect(await appendToPartitions(ctx, 't', [{ partition: 0, records: records('c') }])).toEqual([
      { partition: 0, baseOffset: TAIL_MAX_RANGES, count: 1 },
    ]);
    expect(await values(ctx)).toEqual([...filled, `${TAIL_MAX_RANGES}:c`]);
  });

  it('reports a throttled read as retriable THROTTLING, never as data or an offset error', async () => {
    const ctx = await createTestContext();
    // Offset 0 ends up in a SEG item (the tail spilled), so a read makes all three kinds of request.
    for (let i = 0; i <= TAIL_MAX_RANGES; i++) await appendToPartitions(ctx, 't', [{ partition: 0, records: records(i ? `x${i}` : 'a') }]);
    const sdk = observeSdk(ctx);
    for (const command of ['GetItem', 'Query', 'GetObject']) {
      sdk.fault = (call) => (call.command === command ? { when: 'before', error: throttlingError('ThrottlingException') } : undefined);
      await expect(readRecords(ctx, 't', 0, { offset: 0, maxBytes: 1000 })).rejects.toMatchObject({
        code: 'THROTTLING',
        retriable: true,
      });
    }
  });
});
