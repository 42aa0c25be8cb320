// A produce request touching several partitions writes ONE intake object, then commits every
// partition on its own (one conditional UpdateItem each, in parallel): one partition's failure is
// reported as such while the others are acknowledged, and nothing of a failed partition is visible.
import { describe, expect, it } from 'vitest';
import { appendToPartitions } from '../../lib/log/append.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { createTestContext } from '../support/storage.js';
import { rangeAt, readValues } from './read-all.js';
import { type SdkCall, isCommit, isStateRead, observeSdk, partitionOf, serverError, throttlingError, timeoutError } from './sdk-faults.js';

const one = (value: string) => [{ timestamp: 0, key: null, value: Buffer.from(value) }];
const request = (tag: string, partitions = [0, 1, 2]) => partitions.map((partition) => ({ partition, records: one(`${tag}${partition}`) }));
const commitOf = (call: SdkCall, partition: number) => isCommit(call) && partitionOf(call) === partition;

describe('a produce request across partitions', () => {
  it('writes one intake object that every partition\'s entry points into, at its own byte range', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 3);
    const sdk = observeSdk(ctx);
    expect(await appendToPartitions(ctx, t, request('a'))).toEqual([0, 1, 2].map((partition) => ({ partition, baseOffset: 0, count: 1 })));
    expect(sdk.calls.map((c) => c.command)).toEqual(['PutObject', 'UpdateItem', 'UpdateItem', 'UpdateItem']);
    const ranges = await Promise.all([0, 1, 2].map((p) => rangeAt(ctx, t, p, 0)));
    expect(new Set(ranges.map((r) => r!.objectKey)).size).toBe(1);
    expect(ranges.map((r) => r!.position)).toEqual([0, ranges[0]!.size, ranges[0]!.size + ranges[1]!.size]);
    for (const p of [0, 1, 2]) expect(await readValues(ctx, t, p)).toEqual([`a${p}`]);
  });

  it('reports a persistently throttled commit for its partition only; nothing of it becomes visible', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 3);
    const sdk = observeSdk(ctx);
    sdk.fault = (call) => (commitOf(call, 1) ? { when: 'before', error: throttlingError() } : undefined);
    const results = await appendToPartitions(ctx, t, request('a'));
    expect(results.map((r) => ('error' in r ? r.error.code : r.baseOffset))).toEqual([0, 'THROTTLING', 0]);
    expect(results[1]).toMatchObject({ error: { retriable: true } });
    expect(sdk.calls.filter((c) => c.command === 'PutObject')).toHaveLength(1);
    expect((await getPartitionState(ctx, t, 1)).logEndOffset).toBe(0);

    sdk.fault = () => undefined;
    expect(await appendToPartitions(ctx, t, request('b'))).toEqual([
      { partition: 0, baseOffset: 1, count: 1 },
      { partition: 1, baseOffset: 0, count: 1 },
      { partition: 2, baseOffset: 1, count: 1 },
    ]);
    expect(await readValues(ctx, t, 0)).toEqual(['a0', 'b0']);
    expect(await readValues(ctx, t, 1)).toEqual(['b1']);
  });

  it('resolves one partition\'s lost commit reply by a consistent STATE read and acknowledges every partition once', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 3);
    await appendToPartitions(ctx, t, request('a'));
    const sdk = observeSdk(ctx);
    let lost = 0;
    sdk.fault = (call) => (commitOf(call, 2) && lost++ === 0 ? { when: 'after', error: timeoutError() } : undefined);
    expect(await appendToPartitions(ctx, t, request('b'))).toEqual([0, 1, 2].map((partition) => ({ partition, baseOffset: 1, count: 1 })));
    // One object, three commits, then the one resolving read; nothing re-sent.
    expect(sdk.calls.map((c) => c.command).sort()).toEqual(['GetItem', 'PutObject', 'UpdateItem', 'UpdateItem', 'UpdateItem']);
    expect(sdk.calls.find(isStateRead)!.input.ConsistentRead).toEqual(true);
    for (const p of [0, 1, 2]) expect(await readValues(ctx, t, p)).toEqual([`a${p}`, `b${p}`]);
  });

  it('a 5xx on one partition\'s commit is REQUEST_TIMED_OUT for it alone (not re-sent, not applied); the others are acknowledged', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 3);
    const sdk = observeSdk(ctx);
    sdk.fault = (call) => (commitOf(call, 0) ? { when: 'before', error: serverError(500) } : undefined);
    const results = await appendToPartitions(ctx, t, request('a'));
    expect(results.map((r) => ('error' in r ? r.error.code : r.baseOffset))).toEqual(['REQUEST_TIMED_OUT', 0, 0]);
    expect(sdk.calls.filter((c) => commitOf(c, 0))).toHaveLength(1);
    expect(await readValues(ctx, t, 0)).toEqual([]);
  });

  it('refuses an empty, repeated or unknown partition in its own result without failing the rest', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 2);
    const results = await appendToPartitions(ctx, t, [
      { partition: 0, records: one('a') },
      { partition: 1, records: [] },
      { partition: 0, records: one('again') },
      { partition: 7, records: one('nowhere') },
    ]);
    expect(results[0]).toEqual({ partition: 0, baseOffset: 0, count: 1 });
    expect(results[1]).toMatchObject({ partition: 1, error: { code: 'INVALID_REQUEST' } });
    expect(results[2]).toMatchObject({ partition: 0, error: { code: 'INVALID_REQUEST' } });
    expect(results[3]).toMatchObject({ partition: 7, error: { code: 'UNKNOWN_TOPIC_OR_PARTITION' } });
    expect(await readValues(ctx, t, 0)).toEqual(['a']);
  });
});
