// The gateway's metrics: per-API counts in memory, published as EMF lines with an `api`
// dimension (what the long-running gateway writes every minute).
import { describe, expect, it, vi } from 'vitest';
import { GatewayMetrics } from '../../lib/kafka/gateway-metrics.js';
import { createMetrics } from '../../lib/observability/metrics.js';

describe('GatewayMetrics', () => {
  it('counts requests, errors and latency per API and connections', () => {
    const m = new GatewayMetrics(createMetrics({ enabled: false }));
    m.connectionOpened();
    m.connectionOpened();
    m.connectionClosed();
    m.request('Produce', 10, false);
    m.request('Produce', 30, true);
    m.request('Metadata', 2, false);
    expect(m.stats()).toEqual({
      connections: 1,
      connectionsOpened: 2,
      apis: {
        Produce: { requests: 2, errors: 1, totalLatencyMs: 40, maxLatencyMs: 30 },
        Metadata: { requests: 1, errors: 0, totalLatencyMs: 2, maxLatencyMs: 2 },
      },
    });
  });

  it('publishes EMF lines with the api dimension, then starts a new interval', () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const m = new GatewayMetrics(createMetrics({ enabled: true, namespace: 'SluiceTest', serviceName: 'gw' }));
      m.connectionOpened();
      m.request('Produce', 10, false);
      m.request('Produce', 30, true);
      m.publish();
      const emf = lines.join('').split('\n').filter((l) => l.includes('_aws')).map((l) => JSON.parse(l) as Record<string, unknown>);
      const produce = emf.filter((e) => e.api === 'Produce');
      expect(produce.map((e) => [Object.keys(e).find((k) => k.startsWith('Kafka')), e[Object.keys(e).find((k) => k.startsWith('Kafka'))!]]).sort()).toEqual([
        ['KafkaRequestErrors', 1],
        ['KafkaRequestLatency', 20],
        ['KafkaRequests', 2],
      ]);
      expect(emf.find((e) => 'KafkaConnections' in e)!.KafkaConnections).toBe(1);
      lines.length = 0;
      m.publish();
      expect(lines.join('')).not.toContain('"api":"Produce"');
      expect(m.stats().apis.Produce!.requests).toBe(2); // totals stay
    } finally {
      spy.mockRestore();
    }
  });
});
