// lib/client/topic-metadata.ts: the producer's per-topic metadata cache.
import { describe, expect, it, vi } from 'vitest';
import { TopicMetadataCache } from '../../lib/client/topic-metadata.js';
import type { SluiceApi } from '../../lib/client/wire.js';

function api(describe: (topic: string) => Promise<unknown>) {
  const calls: string[] = [];
  return { api: { describeTopic: (t: string) => (calls.push(t), describe(t)) } as unknown as SluiceApi, calls };
}
const desc = (partitions: number, config: Record<string, string> = {}) => ({ partitions: Array.from({ length: partitions }, (_, p) => ({ partition: p })), config });

describe('TopicMetadataCache', () => {
  it('partition count and max.message.bytes (default Kafka\'s when absent); concurrent lookups share one describe', async () => {
    const a = api(async (t) => (t === 'big' ? desc(3, { 'max.message.bytes': '2000000' }) : desc(2)));
    const cache = new TopicMetadataCache(a.api);
    const [x, y] = await Promise.all([cache.describe('big'), cache.describe('big')]);
    expect(x).toEqual({ partitions: 3, maxMessageBytes: 2_000_000 });
    expect(y).toBe(x);
    expect(await cache.describe('small')).toEqual({ partitions: 2, maxMessageBytes: 1_048_588 });
    expect(await cache.partitionCount('big')).toBe(3);
    expect(a.calls).toEqual(['big', 'small']);
  });
  it('expires after maxAgeMs; invalidate forces a new describe; failures are not cached', async () => {
    vi.useFakeTimers();
    try {
      let fail = true;
      const a = api(async () => (fail ? Promise.reject(new Error('x')) : desc(1)));
      const cache = new TopicMetadataCache(a.api, 1000);
      await expect(cache.describe('t')).rejects.toThrow('x');
      fail = false;
      await cache.describe('t');
      await cache.describe('t');
      expect(a.calls).toHaveLength(2);
      vi.advanceTimersByTime(1001);
      await cache.describe('t');
      expect(a.calls).toHaveLength(3);
      cache.invalidate('t');
      await cache.describe('t');
      expect(a.calls).toHaveLength(4);
    } finally {
      vi.useRealTimers();
    }
  });
});
