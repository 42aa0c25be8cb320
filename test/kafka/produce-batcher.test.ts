// The gateway's produce batching (lib/kafka/produce-batcher.ts): requests of many connections within
// one linger window become ONE intake object and one update per partition; each request gets its
// own answer once committed; `batch bytes` closes a window early; windows are written in order, so
// a partition's batches keep their arrival order across windows; close() writes what is pending.
import { describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { ProduceBatcher } from '../../lib/kafka/produce-batcher.js';
import type { PartitionAppendResult } from '../../lib/log/append.js';
import { intakeFolder } from '../../lib/log/segment-name.js';
import { createTopic } from '../../lib/metadata/topics.js';
import type { TopicRef } from '../../lib/metadata/types.js';
import { bucketKeys } from '../log/maintenance-support.js';
import { readValues } from '../log/read-all.js';
import { createTestContext } from '../support/storage.js';

const one = (tag: string) => [{ timestamp: 1000, key: Buffer.from(tag), value: Buffer.from(`v-${tag}`) }];

async function values(ctx: SluiceContext, topic: TopicRef, partition: number): Promise<string[]> {
  return (await readValues(ctx, topic, partition)).map((v) => v!);
}

const ok = (r: PartitionAppendResult) => {
  if ('error' in r) throw r.error;
  return r;
};

describe('ProduceBatcher', () => {
  it('writes the requests of 8 producers within one linger window as one intake object, each answered with its own offsets', async () => {
    const ctx = await createTestContext();
    const a = await createTopic(ctx, 'a', 3);
    const b = await createTopic(ctx, 'b', 1);
    const batcher = new ProduceBatcher(ctx, { lingerMs: 200 });
    const appended: string[] = [];
    batcher.onAppended((topic, partition, end) => appended.push(`${topic.name}-${partition}@${end}`));
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        batcher.append([
          { topic: a, appends: [{ partition: i % 3, records: one(`a${i}`) }] },
          { topic: b, appends: [{ partition: 0, records: one(`b${i}`) }] },
        ]),
      ),
    );
    expect(await bucketKeys(ctx, intakeFolder(ctx.prefix))).toHaveLength(1);
    expect(batcher.stats).toMatchObject({ windows: 1, requests: 16, partitions: 4, records: 16 });
    // Offsets follow arrival order in each partition.
    expect(answers.map(([ra]) => ok(ra[0]).baseOffset)).toEqual([0, 0, 0, 1, 1, 1, 2, 2]);
    expect(answers.map(([, rb]) => ok(rb[0]).baseOffset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(await values(ctx, a, 1)).toEqual(['v-a1', 'v-a4', 'v-a7']);
    expect(await values(ctx, b, 0)).toEqual(Array.from({ length: 8 }, (_, i) => `v-b${i}`));
    expect(appended).toContain('b-0@8');
  });

  it('closes a window at batch bytes without waiting for the linger, and keeps a partition in arrival order across windows', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    const batcher = new ProduceBatcher(ctx, { lingerMs: 60_000, batchBytes: 100 });
    const started = Date.now();
    const big = (tag: string) => [{ timestamp: 1000, key: null, value: Buffer.alloc(120, tag) }];
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((tag) => batcher.append([{ topic: t, appends: [{ partition: 0, records: big(tag) }] }])));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(answers.map(([r]) => ok(r[0]).baseOffset)).toEqual([0, 1, 2, 3]);
    expect(batcher.stats.windows).toBe(4);
    expect((await values(ctx, t, 0)).map((v) => v[0])).toEqual(['a', 'b', 'c', 'd']);
  });

  it('answers each request alone inside a window: one to a partition that does not exist fails, the others land', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    const batcher = new ProduceBatcher(ctx, { lingerMs: 100 });
    const [good, bad] = await Promise.all([
      batcher.append([{ topic: t, appends: [{ partition: 0, records: one('x') }] }]),
      batcher.append([{ topic: t, appends: [{ partition: 5, records: one('y') }] }]),
    ]);
    expect(good[0][0]).toEqual({ partition: 0, baseOffset: 0, count: 1, logStartOffset: 0 });
    expect(bad[0][0]).toMatchObject({ partition: 5, error: { code: 'UNKNOWN_TOPIC_OR_PARTITION' } });
  });

  it('close() writes the pending window at once and refuses later requests retriably', async () => {
    const ctx = await createTestContext();
    const t = await createTopic(ctx, 't', 1);
    const batcher = new ProduceBatcher(ctx, { lingerMs: 60_000 });
    const pending = batcher.append([{ topic: t, appends: [{ partition: 0, records: one('last') }] }]);
    await batcher.close();
    expect((await pending)[0][0]).toEqual({ partition: 0, baseOffset: 0, count: 1, logStartOffset: 0 });
    await expect(batcher.append([{ topic: t, appends: [{ partition: 0, records: one('late') }] }])).rejects.toMatchObject({ code: 'REQUEST_TIMED_OUT' });
  });
});
