// The leaderless append path (lib/log/append.ts): what each append costs in requests, how
// concurrent writers (separate contexts = separate processes, each its own SDK clients and owner
// id) share a partition, full tails spilled by whoever meets them, and topic ids fencing a deleted
// topic's writers.
import { describe, expect, it } from 'vitest';
import { appendToPartitions } from '../../lib/log/append.js';
import { TAIL_MAX_ENTRIES } from '../../lib/log/spill.js';
import { allSegmentItems } from '../../lib/metadata/manifest.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { deleteTopic } from '../../lib/log/delete-topic.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { startProcess } from '../proof/processes.js';
import { createTestContext } from '../support/storage.js';
import { readAll, readValues } from './read-all.js';
import { observeSdk } from './sdk-faults.js';

const records = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({ timestamp: 1000 + i, key: null, value: Buffer.from(`${tag}-${i}`) }));

describe('leaderless append', () => {
  it('costs one PutObject then one UpdateItem per partition, cold or warm, with no read and no lease', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 4);
    const sdk = observeSdk(ctx);
    for (let i = 0; i < 3; i++) {
      sdk.calls.length = 0;
      sdk.events.length = 0;
      const results = await appendToPartitions(ctx, topic, [0, 1, 2, 3].map((p) => ({ partition: p, records: records(2, `r${i}p${p}`) })));
      expect(results.map((r) => ('baseOffset' in r ? r.baseOffset : r.error.code))).toEqual([2 * i, 2 * i, 2 * i, 2 * i]);
      expect(sdk.calls.map((c) => `${c.client}:${c.command}`)).toEqual(['s3:PutObject', ...Array(4).fill('ddb:UpdateItem')]);
      expect(sdk.events.slice(0, 2)).toEqual(['start PutObject', 'end PutObject']);
      expect(String(sdk.calls[0].input.Key)).toMatch(/^_intake\/\d{4}-\d\d-\d\dT\d\d\/\d+-[0-9a-f]{16}\.log$/);
      for (const c of sdk.calls.slice(1)) expect(String(c.input.UpdateExpression)).toContain('list_append');
    }
    for (const p of [0, 1, 2, 3]) expect(await readValues(ctx, topic, p)).toEqual([0, 1, 2].flatMap((i) => [`r${i}p${p}-0`, `r${i}p${p}-1`]));
  });

  it('fetch stamps each batch with its base offset (outside the CRC) although the intake object holds base 0', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 1);
    await appendToPartitions(ctx, topic, [{ partition: 0, records: records(3, 'a') }]);
    await appendToPartitions(ctx, topic, [{ partition: 0, records: records(2, 'b') }]);
    const { records: read } = await readAll(ctx, topic, 0);
    expect(read.map((r) => [r.offset, r.value?.toString()])).toEqual([
      [0, 'a-0'],
      [1, 'a-1'],
      [2, 'a-2'],
      [3, 'b-0'],
      [4, 'b-1'],
    ]);
  });

  it('the writer that fills the tail spills it into one SEG item; reads span items and tail', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 't', 1);
    for (let i = 0; i < TAIL_MAX_ENTRIES * 2 + 3; i++) await appendToPartitions(ctx, topic, [{ partition: 0, records: records(2, `r${i}`) }]);
    const state = await getPartitionState(ctx, topic, 0);
    expect(state.tail.length).toBeLessThan(TAIL_MAX_ENTRIES);
    const items = [];
    for await (const item of allSegmentItems(ctx, topic, 0)) items.push(item);
    expect(items.map((i) => [i.baseOffset, i.entries?.length])).toEqual([
      [0, TAIL_MAX_ENTRIES],
      [2 * TAIL_MAX_ENTRIES, TAIL_MAX_ENTRIES],
    ]);
    expect(state.tailBase).toBe(4 * TAIL_MAX_ENTRIES);
    expect(state.logEndOffset).toBe(2 * (TAIL_MAX_ENTRIES * 2 + 3));
    const values = await readValues(ctx, topic, 0);
    expect(values).toEqual(Array.from({ length: TAIL_MAX_ENTRIES * 2 + 3 }, (_, i) => [`r${i}-0`, `r${i}-1`]).flat());
  });

  it('many processes appending to one partition at once all succeed first time, densely, each batch once', async () => {
    const shared = await createTestContext();
    const topic = await createTopic(shared, 't', 2);
    const processes = Array.from({ length: 4 }, () => startProcess(shared));
    const acked = await Promise.all(
      processes.flatMap((ctx, w) =>
        Array.from({ length: 12 }, async (_, i) => {
          const [r] = await appendToPartitions(ctx, topic, [{ partition: 0, records: records(3, `w${w}i${i}`) }]);
          return r;
        }),
      ),
    );
    for (const r of acked) expect(r).not.toHaveProperty('error');
    const { records: read } = await readAll(shared, topic, 0);
    expect(read).toHaveLength(4 * 12 * 3);
    // Each acknowledged batch sits exactly at its acknowledged offsets.
    const byOffset = new Map(read.map((r) => [r.offset, r.value!.toString()]));
    acked.forEach((r, n) => {
      const tag = `w${Math.floor(n / 12)}i${n % 12}`;
      if (!('baseOffset' in r)) throw new Error('not acked');
      for (let k = 0; k < 3; k++) expect(byOffset.get(r.baseOffset + k)).toBe(`${tag}-${k}`);
    });
  });

  it('a writer holding a deleted topic cannot land anything in its re-created successor', async () => {
    const ctx = await createTestContext();
    const old = await createTopic(ctx, 't', 1);
    await appendToPartitions(ctx, old, [{ partition: 0, records: records(1, 'old') }]);
    await deleteTopic(ctx, 't');
    const fresh = await createTopic(ctx, 't', 1);
    expect(fresh.id).not.toBe(old.id);
    const [stale] = await appendToPartitions(ctx, old, [{ partition: 0, records: records(1, 'stale') }]);
    expect(stale).toMatchObject({ error: { code: 'UNKNOWN_TOPIC_OR_PARTITION' } });
    expect(await readValues(ctx, fresh, 0)).toEqual([]);
  });
});
