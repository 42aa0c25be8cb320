// A produce request touching several partitions writes one object, but every partition commits on
// its own: one partition's failure is reported as such while the others are acknowledged.
import { describe, expect, it } from 'vitest';
import { createContext } from '../../lib/context.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { createTestContext, emulatorClients } from '../support/storage.js';
import { rangeAt, readValues } from './read-all.js';
import { isCommit, observeSdk, throttlingError, timeoutError, type SdkCall } from './sdk-faults.js';

const one = (value: string) => [{ timestamp: 0, key: null, value: Buffer.from(value) }];
const request = (tag: string, partitions = [0, 1, 2]) => partitions.map((partition) => ({ partition, records: one(`${tag}${partition}`) }));
const commitOf = (call: SdkCall, partition: number) =>
  isCommit(call) && String((call.input.Key as { pk: string }).pk).endsWith(`#${partition}`);

describe('a produce request across partitions', () => {
  it('reports a partition whose lease another writer holds as NOT_LEADER_OR_FOLLOWER and commits the others in one object', async () => {
    const ctx = await createTestContext({ leaseWaitMs: 100 });
    const other = createContext(emulatorClients(), { bucket: ctx.bucket, table: ctx.table, leaseMs: 60_000 });
    await appendToPartitions(other, 't', [{ partition: 1, records: one('other') }]);

    const results = await appendToPartitions(ctx, 't', request('a'));
    expect(results[0]).toEqual({ partition: 0, baseOffset: 0, count: 1 });
    expect(results[1]).toMatchObject({ partition: 1, error: { code: 'NOT_LEADER_OR_FOLLOWER', retriable: true } });
    expect(results[2]).toEqual({ partition: 2, baseOffset: 0, count: 1 });
    const [item0, item2] = await Promise.all([rangeAt(ctx, 't', 0, 0), rangeAt(ctx, 't', 2, 0)]);
    expect(item0!.objectKey).toBe(item2!.objectKey);
    expect(await readValues(ctx, 't', 1)).toEqual(['other']);
  });

  it('reports a persistently throttled commit for its partition only; nothing of it becomes visible', async () => {
    const ctx = await createTestContext();
    const sdk = observeSdk(ctx);
    sdk.fault = (call) => (commitOf(call, 1) ? { when: 'before', error: throttlingError() } : undefined);
    const results = await appendToPartitions(ctx, 't', request('a'));
    expect(results.map((r) => ('error' in r ? r.error.code : r.baseOffset))).toEqual([0, 'THROTTLING', 0]);
    expect(sdk.calls.filter((c) => c.command === 'PutObject')).toHaveLength(1);

    sdk.fault = () => undefined;
    expect(await appendToPartitions(ctx, 't', request('b'))).toEqual([
      { partition: 0, baseOffset: 1, count: 1 },
      { partition: 1, baseOffset: 0, count: 1 },
      { partition: 2, baseOffset: 1, count: 1 },
    ]);
    expect(await readValues(ctx, 't', 0)).toEqual(['a0', 'b0']);
    expect(await readValues(ctx, 't', 1)).toEqual(['b1']);
  });

  it('resolves one partition’s lost commit reply by a consistent STATE read and acknowledges every partition once', async () => {
    const ctx = await createTestContext();
    await appendToPartitions(ctx, 't', request('a'));
    const sdk = observeSdk(ctx);
    let lost = 0;
    sdk.fault = (call) => (commitOf(call, 2) && lost++ === 0 ? { when: 'after', error: timeoutError() } : undefined);
    expect(await appendToPartitions(ctx, 't', request('b'))).toEqual([0, 1, 2].map((partition) => ({ partition, baseOffset: 1, count: 1 })));
    // One object, three commits, then the one resolving read; nothing re-sent.
    expect(sdk.calls.map((c) => c.command).sort()).toEqual(['GetItem', 'PutObject', 'UpdateItem', 'UpdateItem', 'UpdateItem']);
    expect(sdk.calls.find((c) => c.command === 'GetItem')!.input.ConsistentRead).toBe(true);
    for (const p of [0, 1, 2]) expect(await readValues(ctx, 't', p)).toEqual([`a${p}`, `b${p}`]);
  });

  it('refuses an empty or repeated partition in its own result without failing the rest', async () => {
    const ctx = await createTestContext();
    const results = await appendToPartitions(ctx, 't', [
      { partition: 0, records: one('a') },
      { partition: 1, records: [] },
      { partition: 0, records: one('again') },
    ]);
    expect(results[0]).toEqual({ partition: 0, baseOffset: 0, count: 1 });
    expect(results[1]).toMatchObject({ partition: 1, error: { code: 'INVALID_REQUEST' } });
    expect(results[2]).toMatchObject({ partition: 0, error: { code: 'INVALID_REQUEST' } });
    expect(await readValues(ctx, 't', 0)).toEqual(['a']);
  });
});
