// lib/log/delete-topic.ts: the topic item first, then every partition's STATE, manifest and objects.
import { describe, expect, it } from 'vitest';
import { deleteTopic } from '../../lib/log/delete-topic.js';
import { spillTail } from '../../lib/log/spill.js';
import { allSegmentItems } from '../../lib/metadata/manifest.js';
import { getPartitionState, readPartitionState } from '../../lib/metadata/partition-state.js';
import { createTopic, getTopic } from '../../lib/metadata/topics.js';
import { topicObjectPrefix } from '../../lib/log/segment-name.js';
import { createTestContext } from '../support/storage.js';
import { appendValues, bucketKeys, runOnce, withClock } from './maintenance-support.js';

describe('deleteTopic (emulator)', () => {
  it('removes the topic, every STATE and SEG item and the topic folder; a re-created topic starts empty', async () => {
    const ctx = withClock(await createTestContext() /* grace 1 s: a merge gives up past half of it */);
    const topic = await createTopic(ctx, 't', 3);
    for (const p of [0, 1, 2]) for (let i = 0; i < 3; i++) await appendValues(ctx, topic, [`p${p}-${i}`], ctx.now(), p);
    for (const p of [0, 1]) await spillTail(ctx, topic, await getPartitionState(ctx, topic, p));
    ctx.advance(10 * 60_000);
    await runOnce(ctx); // merged segments under the topic's folder
    expect((await bucketKeys(ctx, topicObjectPrefix(ctx.prefix, topic))).length).toBeGreaterThan(0);

    await deleteTopic(ctx, 't');
    expect(await getTopic(ctx, 't')).toBeUndefined();
    for (const p of [0, 1, 2]) {
      expect(await readPartitionState(ctx, topic, p)).toBeUndefined();
      const items = [];
      for await (const i of allSegmentItems(ctx, topic, p)) items.push(i);
      expect(items).toEqual([]);
    }
    expect(await bucketKeys(ctx, topicObjectPrefix(ctx.prefix, topic))).toEqual([]);
    await expect(deleteTopic(ctx, 't')).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
    const again = await createTopic(ctx, 't', 1);
    expect(again.id).not.toBe(topic.id);
    expect((await getPartitionState(ctx, again, 0)).logEndOffset).toBe(0);
  });
});
