// Sluice's EMF metrics and the per-invocation observer: what lands in the EMF document.
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../lib/observability/logger.js';
import { createMetrics, type SluiceMetrics } from '../../lib/observability/metrics.js';
import { observeInvocation } from '../../lib/observability/invocation.js';

type Emf = {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [metric: string]: unknown;
};

/** Captures each EMF document flush() would print, instead of writing it to stdout. */
function capture(metrics: SluiceMetrics): Emf[] {
  const published: Emf[] = [];
  vi.spyOn(metrics.emf, 'publishStoredMetrics').mockImplementation(() => {
    published.push(metrics.emf.serializeMetrics() as unknown as Emf);
    metrics.emf.clearMetrics();
    return metrics.emf;
  });
  return published;
}

describe('SluiceMetrics', () => {
  it('writes appends and fetches as EMF in the Sluice namespace with a service dimension', () => {
    const metrics = createMetrics({ enabled: true, serviceName: 'orders' });
    const published = capture(metrics);
    metrics.appended(3, 300, 12);
    metrics.fetched(2, 150);
    metrics.retentionDeleted(4, 4096);
    metrics.flush();

    expect(published).toHaveLength(1);
    const [emf] = published;
    const [directive] = emf._aws.CloudWatchMetrics;
    expect(directive.Namespace).toBe('Sluice');
    expect(directive.Dimensions).toEqual([['service']]);
    expect(emf.service).toBe('orders');
    expect(Object.fromEntries(directive.Metrics.map((m) => [m.Name, m.Unit]))).toEqual({
      RecordsIn: 'Count',
      BytesIn: 'Bytes',
      AppendLatency: 'Milliseconds',
      RecordsOut: 'Count',
      BytesOut: 'Bytes',
      RetentionDeletedSegments: 'Count',
      RetentionDeletedBytes: 'Bytes',
    });
    expect([emf.RecordsIn, emf.BytesIn, emf.RecordsOut, emf.RetentionDeletedSegments]).toEqual([3, 300, 2, 4]);
  });

  it('records nothing outside Lambda unless enabled', () => {
    const metrics = createMetrics({}, {});
    const published = capture(metrics);
    metrics.appended(1, 10, 1);
    metrics.flush();
    expect(metrics.enabled).toBe(false);
    expect(metrics.emf.hasStoredMetrics()).toBe(false);
    expect(published).toEqual([]);
  });
});

describe('observeInvocation', () => {
  const logger = createLogger({ logLevel: 'SILENT' });

  it('counts a 500 as a server error, a retriable 503 as a refusal, and flushes once per invocation', async () => {
    const metrics = createMetrics({ enabled: true });
    const published = capture(metrics);
    const result = await observeInvocation('produce', undefined, async () => {
      metrics.appended(1, 100, 5);
      return { status: 500 };
    }, { logger, metrics });
    expect(result.status).toBe(500);
    // An API Gateway v2 result reports its status as statusCode.
    await observeInvocation('fetch', undefined, async () => ({ statusCode: 503 }), { logger, metrics });
    expect(published).toHaveLength(2);
    expect(published[0].ServerErrors).toBe(1);
    expect(published[0].RecordsIn).toBe(1);
    expect(published[1].ServerErrors).toBeUndefined();
    expect(published[1].RetriableRefusals).toBe(1);
  });

  it('rethrows a failure after counting it and flushing', async () => {
    const metrics = createMetrics({ enabled: true });
    const published = capture(metrics);
    await expect(
      observeInvocation('fetch', undefined, async () => {
        throw new Error('boom');
      }, { logger, metrics }),
    ).rejects.toThrow('boom');
    expect(published.map((p) => p.ServerErrors)).toEqual([1]);
  });
});
