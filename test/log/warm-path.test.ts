import { describe, expect, it } from 'vitest';
import { appendToPartitions } from '../../lib/log/append.js';
import { TAIL_MAX_RANGES } from '../../lib/log/partition-tail.js';
import { getSegmentItem } from '../../lib/metadata/manifest.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { countStorageRequests } from '../../bench/request-counter.js';
import { createTestContext } from '../support/storage.js';
import { rangeAt, readValues } from './read-all.js';
import { observeSdk } from './sdk-faults.js';

const records = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({ timestamp: 1000 + i, key: null, value: Buffer.from(`${tag}-${i}`) }));

const partitions = (n: number, tag: string) => Array.from({ length: n }, (_, p) => ({ partition: p, records: records(2, `${tag}p${p}`) }));

describe('warm append path', () => {
  it('takes the lease once, then costs exactly PutObject followed by UpdateItem(STATE), with no reads; a full tail adds one PutItem', async () => {
    const ctx = await createTestContext({ leaseMs: 60_000 });
    const sdk = observeSdk(ctx);

    await appendToPartitions(ctx, 't', [{ partition: 0, records: records(3, 'cold') }]);
    expect(sdk.calls.map((c) => c.command)).toEqual(['UpdateItem', 'PutObject', 'UpdateItem']);

    // The tail holds TAIL_MAX_RANGES ranges: the appends up to there are one write each.
    for (let i = 0; i < TAIL_MAX_RANGES - 1; i++) {
      sdk.calls.length = 0;
      sdk.events.length = 0;
      const [result] = await appendToPartitions(ctx, 't', [{ partition: 0, records: records(2, `warm${i}`) }]);
      expect(result).toEqual({ partition: 0, baseOffset: 3 + 2 * i, count: 2 });
      expect(sdk.events).toEqual(['start PutObject', 'end PutObject', 'start UpdateItem', 'end UpdateItem']);
      // A single-partition request writes a Kafka-named segment; one batch has no index entries, so no .index PUT.
      expect(String(sdk.calls[0].input.Key)).toMatch(/^t\/0\/\d{20}-\d+-[0-9a-f]{16}\.log$/);
      expect(sdk.calls[1].input.UpdateExpression).toContain('#tail = :tail');
    }
    // The next one spills the tail into one SEG item, in flight with the object; then the commit.
    sdk.calls.length = 0;
    sdk.events.length = 0;
    await appendToPartitions(ctx, 't', [{ partition: 0, records: records(2, 'spill') }]);
    expect(sdk.calls.map((c) => `${c.client}:${c.command}`)).toEqual(['s3:PutObject', 'ddb:PutItem', 'ddb:UpdateItem']);
    expect(sdk.events.slice(0, 2).sort()).toEqual(['start PutItem', 'start PutObject']);
    expect(sdk.events.slice(2, 4).sort()).toEqual(['end PutItem', 'end PutObject']);
    expect(sdk.events.slice(4)).toEqual(['start UpdateItem', 'end UpdateItem']);
    const spilled = await getSegmentItem(ctx, 't', 0, 0);
    expect(spilled).toMatchObject({ baseOffset: 0, lastOffset: 2 + 2 * (TAIL_MAX_RANGES - 1) });
    expect(spilled!.ranges).toHaveLength(TAIL_MAX_RANGES);
    const state = await getPartitionState(ctx, 't', 0);
    expect(state.tail).toHaveLength(1);
    expect(await readValues(ctx, 't', 0)).toHaveLength(3 + 2 * TAIL_MAX_RANGES);
  });

  it('writes one object for a request touching 8 partitions: ≤ 2 S3 PUTs counted at the endpoint, two round trips', async () => {
    const ctx = await createTestContext({ leaseMs: 60_000 });
    const counter = countStorageRequests(ctx);
    await appendToPartitions(ctx, 't', partitions(8, 'cold'));
    // Cold: 8 lease acquisitions, then the same two round trips as warm.
    expect(counter.byKind()).toEqual({ 'ddb:UpdateItem': 16, 's3:PutObject': 1 });

    const sdk = observeSdk(ctx);
    counter.reset();
    const results = await appendToPartitions(ctx, 't', partitions(8, 'warm'));
    expect(results).toEqual(Array.from({ length: 8 }, (_, p) => ({ partition: p, baseOffset: 2, count: 2 })));
    expect(counter.total('s3:PutObject')).toBeLessThanOrEqual(2);
    expect(counter.byKind()).toEqual({ 'ddb:UpdateItem': 8, 's3:PutObject': 1 });
    // Round trip 1: the object; round trip 2: the 8 commits, in flight together.
    expect(sdk.events.slice(0, 2)).toEqual(['start PutObject', 'end PutObject']);
    expect(sdk.events.slice(2, 10)).toEqual(Array(8).fill('start UpdateItem'));

    // Every partition's range (in its STATE tail) is its own byte range of the one shared object, back to back.
    const objectKey = String(sdk.calls.find((c) => c.command === 'PutObject')!.input.Key);
    expect(objectKey).toMatch(/^_produce\/\d{4}-\d\d-\d\dT\d\d\/\d+-[0-9a-f]{16}\.log$/);
    const ranges = await Promise.all(Array.from({ length: 8 }, (_, p) => rangeAt(ctx, 't', p, 2)));
    let position = 0;
    for (const range of ranges) {
      expect(range).toMatchObject({ objectKey, position, baseOffset: 2, lastOffset: 3 });
      position += range!.size;
    }
    expect(counter.putBytes).toBe(position);
    for (let p = 0; p < 8; p++) expect(await readValues(ctx, 't', p)).toEqual([`coldp${p}-0`, `coldp${p}-1`, `warmp${p}-0`, `warmp${p}-1`]);
  });

  it('serializes overlapping requests per partition without deadlock, whatever order they name partitions in', async () => {
    const ctx = await createTestContext({ leaseMs: 60_000 });
    const orders = [[0, 1, 2], [2, 1, 0], [1, 2], [2, 0], [0], [1, 0, 2], [2, 1], [0, 2, 1]];
    const results = await Promise.all(
      orders.map((order, i) => appendToPartitions(ctx, 't', order.map((p) => ({ partition: p, records: records(1, `r${i}`) })))),
    );
    for (let p = 0; p < 3; p++) {
      const bases = results.flatMap((r) => r.filter((x) => x.partition === p).map((x) => ('baseOffset' in x ? x.baseOffset : -1)));
      expect(bases.sort((a, b) => a - b)).toEqual(Array.from({ length: bases.length }, (_, i) => i));
      expect(await readValues(ctx, 't', p)).toHaveLength(bases.length);
    }
  });
});
