// The warm topic cache runs on the injected clock (ctx.now), not Date.now: a test (or a process
// whose clock is moved) sees entries expire exactly when ctx.now says so, with no real waiting.
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { topicKey } from '../../lib/metadata/keys.js';
import { TOPIC_CACHE_MS, createTopic, getTopicCached } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';

describe('topic cache clock', () => {
  it('expires by ctx.now: frozen, the entry stays; moved past TOPIC_CACHE_MS, the table is read again', async () => {
    let t = 1_000_000;
    const ctx: SluiceContext = { ...(await createTestContext()), now: () => t };
    await createTopic(ctx, 'clocked', 1);
    expect((await getTopicCached(ctx, 'clocked')).partitions).toBe(1);
    // Removed behind the cache's back (no invalidation), then real time passes while ctx.now stands still.
    await ctx.ddb.send(new DeleteCommand({ TableName: ctx.table, Key: topicKey('clocked') }));
    await new Promise((r) => setTimeout(r, 50));
    expect((await getTopicCached(ctx, 'clocked')).partitions).toBe(1);
    t += TOPIC_CACHE_MS - 1;
    expect((await getTopicCached(ctx, 'clocked')).partitions).toBe(1);
    t += 1;
    await expect(getTopicCached(ctx, 'clocked')).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
  });
});
