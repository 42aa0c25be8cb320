// The producer's topic metadata cache takes an injectable clock: entries expire when that clock
// says maxAgeMs passed (it used Date.now directly, so only real waiting or global fake timers could).
import { describe, expect, it } from 'vitest';
import { TopicMetadataCache } from '../../lib/client/topic-metadata.js';
import type { SluiceApi } from '../../lib/client/wire.js';

describe('TopicMetadataCache clock', () => {
  it('expires by the injected clock', async () => {
    let describes = 0;
    const api = { describeTopic: async () => (describes++, { partitions: [{ partition: 0 }], config: {} }) } as unknown as SluiceApi;
    let t = 0;
    const cache = new TopicMetadataCache(api, 1000, () => t);
    await cache.describe('t');
    t = 999;
    await cache.describe('t');
    expect(describes).toBe(1);
    t = 1000;
    await cache.describe('t');
    expect(describes).toBe(2);
  });
});
