// The fetch loop of one partition, against a fake host: failures are reported and backed off,
// including a failed OFFSET_OUT_OF_RANGE reset (once swallowed, the loop then spun without pause).
import { describe, expect, it } from 'vitest';
import { SluiceClientError } from '../../lib/client/errors.js';
import { PartitionFetcher, type FetcherHost } from '../../lib/client/partition-fetcher.js';
import type { SluiceApi } from '../../lib/client/wire.js';

function host(fetch: () => Promise<never>, resetOffset: FetcherHost['resetOffset']) {
  const errors: SluiceClientError[] = [];
  let fetches = 0;
  const h: FetcherHost = {
    api: { fetch: () => (fetches++, fetch()) } as unknown as SluiceApi,
    wireFormat: 'json',
    maxWaitMs: 10,
    maxBytes: 1024,
    maxDecompressedBatchBytes: 1024,
    position: async () => 0,
    seekVersion: () => 0,
    isPaused: () => false,
    waitForResume: async () => undefined,
    resetOffset,
    process: async () => undefined,
    onError: (_tp, e) => void errors.push(e),
  };
  return { h, errors, fetches: () => fetches };
}

const outOfRange = () => Promise.reject(new SluiceClientError('OFFSET_OUT_OF_RANGE', 'below logStartOffset', { details: {} })) as Promise<never>;

describe('partition fetcher', () => {
  it('reports a failed offset reset and backs off instead of spinning', async () => {
    const { h, errors, fetches } = host(outOfRange, async () => {
      throw new SluiceClientError('THROTTLING', 'listOffsets throttled', { retriable: true, status: 429 });
    });
    const fetcher = new PartitionFetcher(h, { topic: 't', partition: 0 });
    fetcher.start();
    await new Promise((r) => setTimeout(r, 500));
    await fetcher.stop();
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e.code === 'THROTTLING')).toBe(true);
    expect(fetches()).toBeLessThan(20); // backoff starts at up to 200 ms and grows
  });

  it('backs off a position that keeps falling out of range after a successful reset', async () => {
    const { h, fetches } = host(outOfRange, async () => undefined);
    const fetcher = new PartitionFetcher(h, { topic: 't', partition: 0 });
    fetcher.start();
    await new Promise((r) => setTimeout(r, 500));
    await fetcher.stop();
    expect(fetches()).toBeGreaterThanOrEqual(2); // the first reset refetches at once
    expect(fetches()).toBeLessThan(20);
  });
});
