// Where the CPU of a 1 MiB produce and of a 1 MiB fetch goes: the same work measured at three
// depths, in this process and in the emulator process, per MiB of record values —
//   1. log layer: appendToPartitions / readRecords on Buffers (the storage protocol, codec, SDK);
//   2. + handler: handleHttp in process (JSON parse, validation, value conversions, JSON response);
//   3. + HTTP: the full local server over loopback with the Sluice client's HTTP exchange
//      (node:http with keep-alive, lib/client/http-request.ts; what section (c) measures).
// The differences between rows are what each layer adds. Each path is measured twice: with the
// JSON contract, then with the record-batches body (lib/records/batch-frames.ts) at the same three depths
// (log layer: appendToPartitions of the client's encoded batch / readBatches; + handler: handleHttp
// with the bytes the Lambda adapter hands it; + HTTP: the binary body over the local server, which
// passes it base64 as API Gateway does). The client's encoding is done once, before measuring, as
// section (c) does; a fetched batch is CRC-checked and decoded at every depth, as a consumer must.
import type { SluiceContext } from '../lib/context.js';
import { handleHttp } from '../lib/api/router.js';
import { NEXT_OFFSET_HEADER, RECORD_BATCHES_MEDIA_TYPE, encodeBatchFrames } from '../lib/records/batch-frames.js';
import { decodeFetchedBatches } from '../lib/client/consumed-message.js';
import { createAgents, exchange } from '../lib/client/http-request.js';
import { appendToPartitions } from '../lib/log/append.js';
import { readBatches, readRecords } from '../lib/log/read.js';
import { createTopic } from '../lib/metadata/topics.js';
import { startServer } from '../lib/local/server.js';
import { type RecordInput, encodeRecordBatch } from '../lib/records/index.js';
import type { BenchStorage } from './storage.js';

export interface BreakdownRow {
  readonly path: 'produce' | 'fetch';
  /** The request body: the JSON contract, or record batches. */
  readonly body: 'json' | 'batches';
  readonly depth: string;
  readonly mbps: number;
  /** CPU ms per MiB of record values. */
  readonly mainCpu: number;
  readonly emulatorCpu: number;
}

const PARTITIONS = 16;
const RECORDS = 1024;
const VALUE_BYTES = 1024;
const MIB = 2 ** 20;

async function measure(storage: BenchStorage, ms: number, concurrency: number, op: (i: number) => Promise<number>) {
  const main0 = process.cpuUsage();
  const emu0 = await storage.emulatorCpuMs();
  const start = performance.now();
  let bytes = 0;
  let i = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() - start < ms) {
        // Not `bytes += await op()`: that reads `bytes` before the await and loses other workers' updates.
        const moved = await op(i++);
        bytes += moved;
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const main = process.cpuUsage(main0);
  const emulatorMs = (await storage.emulatorCpuMs()) - emu0;
  const mib = bytes / MIB;
  return { mbps: mib / seconds, mainCpu: (main.user + main.system) / 1000 / mib, emulatorCpu: emulatorMs / mib };
}

const ok = (status: number, body: string) => {
  if (status !== 200) throw new Error(`status ${status}: ${body.slice(0, 200)}`);
  return body;
};

const agents = createAgents();
/** An HTTP request as the Sluice client sends it (node:http, keep-alive). */
const request = (url: string, method: string, headers: Record<string, string> = {}, body?: string | Buffer) =>
  exchange(agents, { method, url: new URL(url), headers, body, timeoutMs: 60_000 });

export async function benchBreakdown(storage: BenchStorage, seconds: number, concurrency: number): Promise<BreakdownRow[]> {
  const ctx: SluiceContext = await storage.newContext();
  // A keyless request's one batch holds 1 MiB of values plus framing: over Kafka's default
  // max.message.bytes (1 MiB + 12), which applies to a client's batch as a whole (as in section (c)).
  const topic = await createTopic(ctx, 'b', PARTITIONS, { 'max.message.bytes': 2 * MIB });
  const server = await startServer({ context: ctx });
  const ms = seconds * 1000;
  const value = 'x'.repeat(VALUE_BYTES);
  const body = JSON.stringify({ records: Array.from({ length: RECORDS }, () => ({ value })) });
  const records: RecordInput[] = Array.from({ length: RECORDS }, () => ({ timestamp: Date.now(), key: null, value: Buffer.from(value), headers: [] }));
  const rows: BreakdownRow[] = [];
  try {
    const produceDepths: [string, (i: number) => Promise<number>][] = [
      ['log layer (appendToPartitions)', async (i) => {
        await appendToPartitions(ctx, topic, [{ partition: i % PARTITIONS, records }]);
        return RECORDS * VALUE_BYTES;
      }],
      ['+ handler (handleHttp in process)', async () => {
        const r = await handleHttp(ctx, { method: 'POST', path: '/v1/topics/b/records', body });
        ok(r.status, r.body);
        return RECORDS * VALUE_BYTES;
      }],
      ['+ HTTP (local server, Sluice client HTTP)', async () => {
        const res = await request(`${server.url}/v1/topics/b/records`, 'POST', { 'content-type': 'application/json' }, body);
        JSON.parse(ok(res.status, res.body.toString()));
        return RECORDS * VALUE_BYTES;
      }],
    ];
    for (const [depth, op] of produceDepths) rows.push({ path: 'produce', body: 'json', depth, ...(await measure(storage, ms, concurrency, op)) });

    // The same records as one RecordBatch (keyless: one partition per request, moving round-robin).
    const batch = encodeRecordBatch(records, { baseOffset: 0 });
    const minTimestamp = records[0].timestamp;
    const frames = Array.from({ length: PARTITIONS }, (_, p) => encodeBatchFrames([{ partition: p, batch }]));
    const batchHeaders = { 'content-type': RECORD_BATCHES_MEDIA_TYPE };
    const batchDepths: [string, (i: number) => Promise<number>][] = [
      ['log layer (appendToPartitions, encoded batch)', async (i) => {
        // Each append gets its own bytes, as the handler's decoded body is its own: the a fetch stamps them in place.
        const bytes = Buffer.from(batch);
        await appendToPartitions(ctx, topic, [{ partition: i % PARTITIONS, batch: { bytes, count: RECORDS, minTimestamp } }]);
        return RECORDS * VALUE_BYTES;
      }],
      ['+ handler (handleHttp in process, batches body)', async (i) => {
        // A fresh body per request, as the Lambda adapter's decoded event body is (produce stamps batches in it).
        const body = Buffer.from(frames[i % PARTITIONS]);
        const r = await handleHttp(ctx, { method: 'POST', path: '/v1/topics/b/records', headers: batchHeaders, body });
        ok(r.status, r.body);
        return RECORDS * VALUE_BYTES;
      }],
      ['+ HTTP (local server, Sluice client HTTP, batches body)', async (i) => {
        const res = await request(`${server.url}/v1/topics/b/records`, 'POST', batchHeaders, frames[i % PARTITIONS]);
        JSON.parse(ok(res.status, res.body.toString()));
        return RECORDS * VALUE_BYTES;
      }],
    ];
    for (const [depth, op] of batchDepths) rows.push({ path: 'produce', body: 'batches', depth, ...(await measure(storage, ms, concurrency, op)) });

    // Every partition now holds many 1 MiB produce ranges; readers cycle over its first four (a spilled
    // SEG item once the partition had TAIL_MAX_ENTRIES appends, else STATE's tail) from offset 0.
    const end = RECORDS * 4;
    const next = new Array<number>(PARTITIONS).fill(0);
    const take = (i: number) => {
      const p = i % PARTITIONS;
      const offset = next[p];
      next[p] = (offset + RECORDS) % end;
      return { p, offset };
    };
    const fetchDepths: [string, (i: number) => Promise<number>][] = [
      ['log layer (readRecords)', async (i) => {
        const { p, offset } = take(i);
        const read = await readRecords(ctx, topic, p, { offset, maxBytes: MIB });
        return read.records.reduce((n, r) => n + (r.value?.length ?? 0), 0);
      }],
      ['+ handler (handleHttp in process)', async (i) => {
        const { p, offset } = take(i);
        const r = await handleHttp(ctx, { method: 'GET', path: `/v1/topics/b/partitions/${p}/records`, query: { offset: String(offset), maxBytes: String(MIB) } });
        const json = JSON.parse(ok(r.status, r.body)) as { records: { value: string }[] };
        return json.records.reduce((n, x) => n + x.value.length, 0);
      }],
      ['+ HTTP (local server, Sluice client HTTP)', async (i) => {
        const { p, offset } = take(i);
        const res = await request(`${server.url}/v1/topics/b/partitions/${p}/records?offset=${offset}&maxBytes=${MIB}`, 'GET');
        const json = JSON.parse(ok(res.status, res.body.toString())) as { records: { value: string }[] };
        return json.records.reduce((n, x) => n + x.value.length, 0);
      }],
    ];
    for (const [depth, op] of fetchDepths) rows.push({ path: 'fetch', body: 'json', depth, ...(await measure(storage, ms, concurrency, op)) });

    // As a consumer does with record batches: CRC-check and decode every batch, skip records below the offset.
    const valueBytesOf = (bytes: Buffer, offset: number) => decodeFetchedBatches(bytes, offset).reduce((n, m) => n + (m.value?.length ?? 0), 0);
    const fetchBatchDepths: [string, (i: number) => Promise<number>][] = [
      ['log layer (readBatches, decoded)', async (i) => {
        const { p, offset } = take(i);
        const read = await readBatches(ctx, topic, p, { offset, maxBytes: MIB });
        return valueBytesOf(Buffer.concat(read.batches), offset);
      }],
      ['+ handler (handleHttp in process, batches answer)', async (i) => {
        const { p, offset } = take(i);
        const r = await handleHttp(ctx, {
          method: 'GET',
          path: `/v1/topics/b/partitions/${p}/records`,
          query: { offset: String(offset), maxBytes: String(MIB) },
          headers: { accept: RECORD_BATCHES_MEDIA_TYPE },
        });
        ok(r.status, r.body);
        return valueBytesOf(Buffer.from(r.body, 'base64'), offset);
      }],
      ['+ HTTP (local server, Sluice client HTTP, batches answer)', async (i) => {
        const { p, offset } = take(i);
        const res = await request(`${server.url}/v1/topics/b/partitions/${p}/records?offset=${offset}&maxBytes=${MIB}`, 'GET', {
          accept: RECORD_BATCHES_MEDIA_TYPE,
        });
        ok(res.status, res.status === 200 ? '' : res.body.toString());
        if (res.headers[NEXT_OFFSET_HEADER] === undefined) throw new Error('record-batches answer without its next offset');
        return valueBytesOf(res.body, offset);
      }],
    ];
    for (const [depth, op] of fetchBatchDepths) rows.push({ path: 'fetch', body: 'batches', depth, ...(await measure(storage, ms, concurrency, op)) });
    return rows;
  } finally {
    await server.close();
  }
}
