// A real local Sluice (startServer on the test emulators) for client tests, plus transport
// wrappers that observe or disturb the traffic the way a network would: count requests, hold them
// at a gate, fail before sending, or lose the reply after the server has acted.
import { randomBytes } from 'node:crypto';
import { startServer, type LocalServer } from '../../lib/local/server.js';
import { HttpTransport } from '../../lib/client/transport-http.js';
import type { SluiceRequest, Transport } from '../../lib/client/transport.js';
import { SluiceClientError } from '../../lib/client/errors.js';
import { SluiceApi } from '../../lib/client/wire.js';
import { decodeRecordBatch } from '../../lib/records/index.js';
import { createTestContext } from '../support/storage.js';

export interface Harness {
  readonly server: LocalServer;
  readonly url: string;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const ctx = await createTestContext();
  const server = await startServer({ context: ctx, port: 0, host: '127.0.0.1' });
  return { server, url: server.url, close: () => server.close() };
}

export function topicName(prefix = 't'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

type Interceptor = (request: SluiceRequest, forward: () => Promise<unknown>) => Promise<unknown>;

/** Passes requests to a real HTTP transport, recording each and letting a test step in. */
export class RecordingTransport implements Transport {
  readonly requests: SluiceRequest[] = [];
  private readonly inner: Transport;
  intercept?: Interceptor;

  constructor(endpoint: string) {
    this.inner = new HttpTransport({ endpoint });
  }

  request<T>(request: SluiceRequest): Promise<T> {
    this.requests.push(request);
    const forward = () => this.inner.request<T>(request);
    return (this.intercept ? this.intercept(request, forward) : forward()) as Promise<T>;
  }

  /** Produce requests seen so far (optionally for one topic), record batches decoded to the JSON body's shape. */
  produces(topic?: string): { topic: string; records: { partition?: number; value: string | null }[] }[] {
    return this.requests
      .filter((r) => r.op === 'produce' && (topic === undefined || r.params?.topic === topic))
      .map((r) => ({ topic: String(r.params?.topic), records: r.batches ? recordsOfFrames(r.batches) : (r.body as { records: { partition?: number; value: string | null }[] }).records }));
  }
}

/** The records of a record-batches produce body, with their partitions, values as UTF-8. */
export function recordsOfFrames(body: Buffer): { partition: number; value: string | null }[] {
  const out: { partition: number; value: string | null }[] = [];
  for (let position = 0; position < body.length; ) {
    const partition = body.readInt32BE(position);
    const batch = decodeRecordBatch(body, position + 4);
    for (const r of batch.records) out.push({ partition, value: r.value === null ? null : r.value.toString('utf8') });
    position += 4 + batch.header.sizeInBytes;
  }
  return out;
}

/** A gate that holds produce requests until opened. */
export function produceGate(): { interceptor: Interceptor; open: () => void; held: () => number } {
  let release!: () => void;
  const opened = new Promise<void>((resolve) => (release = resolve));
  let held = 0;
  return {
    interceptor: async (request, forward) => {
      if (request.op === 'produce') {
        held++;
        await opened;
      }
      return forward();
    },
    open: () => release(),
    held: () => held,
  };
}

export function retriableError(code = 'THROTTLING'): SluiceClientError {
  return new SluiceClientError(code, `injected ${code}`, { retriable: true, status: 429 });
}

/** Every record of a topic, per partition in offset order, read straight from the fetch API. */
export async function readTopic(
  transport: Transport,
  topic: string,
): Promise<Map<number, { offset: number; key: string | null; value: string | null }[]>> {
  const api = new SluiceApi(transport);
  const { partitions } = await api.describeTopic(topic);
  const out = new Map<number, { offset: number; key: string | null; value: string | null }[]>();
  for (const p of partitions) {
    const records: { offset: number; key: string | null; value: string | null }[] = [];
    let offset = p.logStartOffset;
    while (offset < p.highWatermark) {
      const reply = await api.fetch(topic, p.partition, { offset });
      for (const r of reply.records) records.push({ offset: r.offset, key: r.key, value: r.value });
      if (reply.nextOffset <= offset) break;
      offset = reply.nextOffset;
    }
    out.set(p.partition, records);
  }
  return out;
}
