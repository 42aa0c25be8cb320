// The gateway's metrics: per-API counts in memory, published as EMF lines with an `api`
// dimension (what the long-running gateway writes every minute); and the produce batching
// windows a running gateway writes, in stats() and as EMF per-window means.
import { describe, expect, it, vi } from 'vitest';
import { GatewayMetrics } from '../../lib/kafka/gateway-metrics.js';
import { ApiKey, type ProduceResponse } from '../../lib/kafka/protocol/messages.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createMetrics } from '../../lib/observability/metrics.js';
import { encodeRecordBatch } from '../../lib/records/index.js';
import { createTestContext } from '../support/storage.js';
import { rawCall } from './raw-call.js';
import { startTestGateway } from './support.js';

/** Captures what is written to stdout (where EMF goes) while `f` runs; returns the EMF documents. */
async function emfWhile(f: () => void | Promise<void>): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    await f();
  } finally {
    spy.mockRestore();
  }
  return lines.join('').split('\n').filter((l) => l.includes('_aws')).map((l) => JSON.parse(l) as Record<string, unknown>);
}

const valueOf = (emf: Record<string, unknown>[], name: string) => emf.find((e) => name in e)?.[name];

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
      tlsHandshakeErrors: 0,
      apis: {
        Produce: { requests: 2, errors: 1, totalLatencyMs: 40, maxLatencyMs: 30 },
        Metadata: { requests: 1, errors: 0, totalLatencyMs: 2, maxLatencyMs: 2 },
      },
      produceWindows: { windows: 0, requests: 0, partitions: 0, bytes: 0, records: 0, totalLatencyMs: 0, maxLatencyMs: 0 },
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
      m.tlsHandshakeError();
      m.publish();
      const emf = lines.join('').split('\n').filter((l) => l.includes('_aws')).map((l) => JSON.parse(l) as Record<string, unknown>);
      const produce = emf.filter((e) => e.api === 'Produce');
      expect(produce.map((e) => [Object.keys(e).find((k) => k.startsWith('Kafka')), e[Object.keys(e).find((k) => k.startsWith('Kafka'))!]]).sort()).toEqual([
        ['KafkaRequestErrors', 1],
        ['KafkaRequestLatency', 20],
        ['KafkaRequests', 2],
      ]);
      expect(emf.find((e) => 'KafkaConnections' in e)!.KafkaConnections).toBe(1);
      expect(emf.find((e) => 'KafkaTlsHandshakeErrors' in e)!.KafkaTlsHandshakeErrors).toBe(1);
      lines.length = 0;
      m.publish();
      expect(lines.join('')).not.toContain('"api":"Produce"');
      expect(lines.join('')).not.toContain('KafkaTlsHandshakeErrors');
      expect(m.stats().apis.Produce!.requests).toBe(2); // totals stay
    } finally {
      spy.mockRestore();
    }
  });

  it('sums the produce windows written and publishes their per-window means, then starts a new interval', async () => {
    const m = new GatewayMetrics(createMetrics({ enabled: true, namespace: 'SluiceTest', serviceName: 'gw' }));
    m.produceWindow({ requests: 8, partitions: 3, bytes: 4000, records: 40, latencyMs: 30 });
    m.produceWindow({ requests: 2, partitions: 1, bytes: 1000, records: 10, latencyMs: 50 });
    expect(m.stats().produceWindows).toEqual({ windows: 2, requests: 10, partitions: 4, bytes: 5000, records: 50, totalLatencyMs: 80, maxLatencyMs: 50 });
    const emf = await emfWhile(() => m.publish());
    expect(
      Object.fromEntries(
        ['KafkaProduceWindows', 'KafkaProduceWindowRequests', 'KafkaProduceWindowPartitions', 'KafkaProduceWindowBytes', 'KafkaProduceWindowRecords', 'KafkaProduceWindowLatency'].map((n) => [
          n,
          valueOf(emf, n),
        ]),
      ),
    ).toEqual({
      KafkaProduceWindows: 2,
      KafkaProduceWindowRequests: 5,
      KafkaProduceWindowPartitions: 2,
      KafkaProduceWindowBytes: 2500,
      KafkaProduceWindowRecords: 25,
      KafkaProduceWindowLatency: 40,
    });
    // No window in the next interval: nothing about windows is published; the totals stay.
    expect(valueOf(await emfWhile(() => m.publish()), 'KafkaProduceWindows')).toBeUndefined();
    expect(m.stats().produceWindows.windows).toBe(2);
  });

  it("a running gateway counts its batcher's windows in stats() and publishes them with its other metrics", async () => {
    const base = await createTestContext();
    const ctx = { ...base, metrics: createMetrics({ enabled: true, namespace: 'SluiceTest', serviceName: 'gw' }) };
    const kafka = await startTestGateway({ ctx, produceLingerMs: 200, metricsIntervalMs: 100 });
    try {
      await createTopic(ctx, 'metered', 2);
      const batch = (n: number) => encodeRecordBatch(Array.from({ length: n }, (_, i) => ({ timestamp: 1000, key: null, value: Buffer.from(`v${i}`) })), { baseOffset: 0 });
      const batches = [batch(3), batch(2), batch(4)];
      const produce = (partitionData: { index: number; records: Buffer }[]) =>
        rawCall<ProduceResponse>(kafka.gateway.port, ApiKey.Produce, 7, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 'metered', partitionData }] });
      const emf = await emfWhile(async () => {
        // Two requests within one linger window: 2 requests, 2 distinct partitions, 9 records.
        const answers = await Promise.all([
          produce([
            { index: 0, records: batches[0] },
            { index: 1, records: batches[1] },
          ]),
          produce([{ index: 0, records: batches[2] }]),
        ]);
        for (const a of answers) for (const p of a.responses![0].partitionResponses!) expect(p.errorCode).toBe(0);
        await vi.waitFor(() => expect(kafka.gateway.stats().produceWindows.windows).toBe(1));
        await new Promise((resolve) => setTimeout(resolve, 300)); // a publish interval or more
        await kafka.close();
      });
      const windows = kafka.gateway.stats().produceWindows;
      expect(windows).toMatchObject({ windows: 1, requests: 2, partitions: 2, records: 9, bytes: batches.reduce((n, b) => n + b.length, 0) });
      expect(windows.totalLatencyMs).toBeGreaterThan(0);
      expect(windows.maxLatencyMs).toBe(windows.totalLatencyMs);
      expect(valueOf(emf, 'KafkaProduceWindows')).toBe(1);
      expect(valueOf(emf, 'KafkaProduceWindowRecords')).toBe(9);
      expect(valueOf(emf, 'KafkaProduceWindowPartitions')).toBe(2);
      expect(valueOf(emf, 'KafkaProduceWindowLatency')).toBeCloseTo(windows.totalLatencyMs, 6);
      expect(emf.some((e) => e.api === 'Produce' && e.KafkaRequests === 2)).toBe(true);
    } finally {
      await kafka.close();
    }
  });
});
