import { describe, expect, it } from 'vitest';
import { appendToPartitions } from '../../lib/log/append.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { createTestContext } from '../support/storage.js';
import { isCommit, observeSdk, timeoutError } from './sdk-faults.js';
import { readAll } from './read-all.js';

const batch = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ timestamp: i, key: null, value: Buffer.from(`${tag}${i}`) }));

describe('ambiguous commit outcome', () => {
  it('resolves a commit whose reply was lost by reading STATE, acknowledges it once and writes nothing twice', async () => {
    const ctx = await createTestContext();
    const sdk = observeSdk(ctx);
    await appendToPartitions(ctx, 't', [{ partition: 0, records: batch('a', 2) }]);

    let lost = 0;
    sdk.fault = (call) => (isCommit(call) && lost++ === 0 ? { when: 'after', error: timeoutError() } : undefined);
    sdk.calls.length = 0;
    const [result] = await appendToPartitions(ctx, 't', [{ partition: 0, records: batch('b', 3) }]);
    expect(result).toEqual({ partition: 0, baseOffset: 2, count: 3 });
    // Commit (applied, reply lost), then one consistent read of STATE decides; nothing re-sent.
    expect(sdk.calls.map((c) => c.command)).toEqual(['PutObject', 'UpdateItem', 'GetItem']);
    expect(sdk.calls[2].input.ConsistentRead).toBe(true);

    const [after] = await appendToPartitions(ctx, 't', [{ partition: 0, records: batch('c', 1) }]);
    expect(after).toEqual({ partition: 0, baseOffset: 5, count: 1 });
    const read = await readAll(ctx, 't', 0);
    expect(read.records.map((r) => r.value!.toString())).toEqual(['a0', 'a1', 'b0', 'b1', 'b2', 'c0']);
    expect((await getPartitionState(ctx, 't', 0)).segments).toBe(3);
  });

  it('re-sends the same batch at the same base when the commit timed out before reaching DynamoDB', async () => {
    const ctx = await createTestContext();
    const sdk = observeSdk(ctx);
    let failed = 0;
    sdk.fault = (call) => (isCommit(call) && failed++ === 0 ? { when: 'before', error: timeoutError() } : undefined);
    const [result] = await appendToPartitions(ctx, 't', [{ partition: 0, records: batch('a', 2) }]);
    expect(result).toEqual({ partition: 0, baseOffset: 0, count: 2 });
    const commits = sdk.calls.filter(isCommit);
    expect(commits).toHaveLength(2);
    const values = (i: number) => commits[i].input.ExpressionAttributeValues as Record<string, unknown>;
    expect(values(1)[':base']).toBe(values(0)[':base']);
    expect(values(1)[':next']).toBe(values(0)[':next']);
    expect(values(1)[':base']).toBe(0);
    // Only one object and one manifest item were written for the batch.
    expect(sdk.calls.filter((c) => c.command === 'PutObject')).toHaveLength(1);
    const read = await readAll(ctx, 't', 0);
    expect(read.records.map((r) => r.value!.toString())).toEqual(['a0', 'a1']);
  });

  it('when even the resolving read fails, reports a retriable error and fences the in-flight commit with a new epoch', async () => {
    const ctx = await createTestContext();
    const sdk = observeSdk(ctx);
    await appendToPartitions(ctx, 't', [{ partition: 0, records: batch('a', 1) }]);
    const epochBefore = (await getPartitionState(ctx, 't', 0)).epoch;
    let armed = true;
    sdk.fault = (call) => {
      if (!armed) return undefined;
      if (isCommit(call)) return { when: 'before', error: timeoutError() };
      if (call.command === 'GetItem') {
        armed = false;
        return { when: 'before', error: timeoutError() };
      }
      return undefined;
    };
    const [failed] = await appendToPartitions(ctx, 't', [{ partition: 0, records: batch('lost', 2) }]);
    expect(failed).toMatchObject({ partition: 0, error: { code: 'REQUEST_TIMED_OUT', retriable: true } });

    const [next] = await appendToPartitions(ctx, 't', [{ partition: 0, records: batch('b', 1) }]);
    expect(next).toEqual({ partition: 0, baseOffset: 1, count: 1 });
    expect((await getPartitionState(ctx, 't', 0)).epoch).toBe(epochBefore + 1);
    const read = await readAll(ctx, 't', 0);
    expect(read.records.map((r) => r.value!.toString())).toEqual(['a0', 'b0']);
  });
});
