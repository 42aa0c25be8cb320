// Two maintenance runs overlapping (separate processes: a scheduled run that outlived its
// schedule, and the next one, whose clock sees the first one's leases as expired): each takes the
// partition leader leases with a new epoch, the STATE writes of the fenced one are refused, and
// the conditions on every item seen keep their SEG writes apart. Readers running throughout and
// the manifest afterwards see every acknowledged record exactly once, at its offset.
import { describe, expect, it } from 'vitest';
import { appendToPartitions } from '../../lib/log/append.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { createTopic } from '../../lib/metadata/topics.js';
import type { SluiceContext } from '../../lib/context.js';
import type { TopicRef } from '../../lib/metadata/types.js';
import { SluiceError } from '../../lib/errors.js';
import { createTestContext } from '../support/storage.js';
import { expectConsistentPartition, expectKafkaSegments, otherProcess, readAll, runOnce } from './maintenance-support.js';

/** Everything from the log start (read again when retention moves it meanwhile). */
async function readFromLogStart(ctx: SluiceContext, topic: TopicRef, partition: number) {
  for (let attempt = 0; ; attempt++) {
    const { logStartOffset } = await getPartitionState(ctx, topic, partition);
    try {
      return (await readAll(ctx, topic, partition, logStartOffset)).records;
    } catch (e) {
      if (!(e instanceof SluiceError && e.code === 'OFFSET_OUT_OF_RANGE') || attempt > 3) throw e;
    }
  }
}

describe('overlapping maintenance runs', () => {
  it('stay safe: no record lost, duplicated or moved, counters right once a run completes alone', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 'overlap', 3, { 'retention.bytes': 4000 });
    const expected = [0, 1, 2].map(() => new Map<number, string>());
    let skew = 0;
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 12; i++) {
        const results = await appendToPartitions(
          otherProcess(ctx, skew),
          topic,
          [0, 1, 2].map((p) => ({ partition: p, records: [{ timestamp: Date.now() + skew, key: null, value: Buffer.from(`${round}.${i}.${p}.${'z'.repeat(60)}`) }] })),
        );
        for (const res of results) {
          if ('error' in res) throw res.error;
          expected[res.partition].set(res.baseOffset, `${round}.${i}.${res.partition}.${'z'.repeat(60)}`);
        }
      }
      skew += 61_000 + ctx.graceMs;
      const first = otherProcess(ctx, skew);
      // The second sees the first's job lease (60 s) and partition leases (30 s) as expired.
      const second = otherProcess(ctx, skew + 61_000);
      let reading = true;
      const reader = (async () => {
        let reads = 0;
        while (reading || reads === 0) {
          for (const p of [0, 1, 2]) {
            const records = await readFromLogStart(ctx, topic, p);
            for (const r of records) expect(r.value!.toString()).toBe(expected[p].get(r.offset));
          }
          reads++;
        }
      })();
      const reports = await Promise.all([runOnce(first), runOnce(second)]);
      reading = false;
      await reader;
      for (const report of reports) expect(report.outcome).toBe('complete');
      skew += 61_000;
      // A run alone settles what the overlap left (leftovers, counters).
      const settle = await runOnce(otherProcess(ctx, skew + 61_000 + ctx.graceMs));
      expect(settle.errors).toEqual([]);
      skew += 61_000 + ctx.graceMs;
      for (const p of [0, 1, 2]) await expectConsistentPartition(ctx, topic, expected[p], { partition: p });
    }
    expect((await expectKafkaSegments(ctx)).segments).toBeGreaterThan(3);
  });
});
