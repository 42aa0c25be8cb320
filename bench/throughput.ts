// End-to-end local throughput through the handlers (the local HTTP server of `npm start`, which
// routes to the same Lambda handlers as AWS) against the embedded emulators, beside raw S3 PUT and
// GET of the same bytes to the same emulator with the same concurrency: the ratio is the protocol's
// efficiency (HTTP + JSON, validation, encoding, manifest and commit round trips, decoding).
//
// Fairness: the emulators run in their own child process (storage.ts) for both sides; both sides'
// clients run in this process with the same number of concurrent workers; the Sluice side also runs
// the handlers here (as one Lambda would run them), the raw side has nothing in between.
// Realistic request sizes (1 MiB), both producer shapes:
//   - keyed: records spread over 16 partitions by key, so each request touches all 16;
//   - keyless: Kafka's sticky partitioner, so each request is one partition's batch.
// Fetches of 1 MiB (maxBytes) from the tail (uncompacted produce objects: one fetch answers from
// one manifest item, i.e. one produce request's range of that partition) and from compacted segments.
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import type { SluiceContext } from '../lib/context.js';
import { runMaintenance } from '../lib/log/maintenance.js';
import { startServer } from '../lib/local/server.js';
import type { BenchStorage } from './storage.js';

export interface ThroughputRow {
  readonly path: string;
  /** What one Sluice request carries, and what one raw request moves. */
  readonly shape: string;
  readonly raw: string;
  /** MB/s of record values through the handlers / of object bytes raw. */
  readonly sluiceMBps: number;
  readonly rawMBps: number;
  readonly sluiceRequests: number;
  readonly rawRequests: number;
}

export interface ThroughputResult {
  readonly concurrency: number;
  readonly valueBytes: number;
  readonly partitions: number;
  readonly secondsPerSide: number;
  readonly rows: ThroughputRow[];
}

const PARTITIONS = 16;
const VALUE_BYTES = 1024;
/** 1 MiB of record values per produce request. */
const RECORDS_PER_REQUEST = 1024;
const REQUEST_BYTES = RECORDS_PER_REQUEST * VALUE_BYTES;
const FETCH_MAX_BYTES = 2 ** 20;
const MB = 2 ** 20;

/** Runs `worker` on `concurrency` loops for `ms`; returns seconds taken (the last requests included). */
async function runFor(ms: number, concurrency: number, worker: (i: number) => Promise<void>): Promise<number> {
  const start = performance.now();
  let i = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() - start < ms) await worker(i++);
    }),
  );
  return (performance.now() - start) / 1000;
}

async function call(url: string, method: string, body?: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Produces the same request body over and over; returns MB/s of record values. */
async function produceFor(url: string, topic: string, body: string, ms: number, concurrency: number) {
  let requests = 0;
  const seconds = await runFor(ms, concurrency, async () => {
    await call(`${url}/v1/topics/${topic}/records`, 'POST', body);
    requests++;
  });
  return { mbps: (requests * REQUEST_BYTES) / MB / seconds, requests };
}

/**
 * Consumers reading every partition from offset 0 with maxBytes 1 MiB, each worker taking the next
 * partition not being read; a partition read to its end starts over (a replay).
 */
async function fetchFor(url: string, topic: string, ends: number[], ms: number, concurrency: number) {
  const next = new Array<number>(ends.length).fill(0);
  const busy = new Array<boolean>(ends.length).fill(false);
  let cursor = 0;
  let bytes = 0;
  let requests = 0;
  const seconds = await runFor(ms, concurrency, async () => {
    let p = cursor++ % ends.length;
    for (let tries = 0; busy[p] && tries < ends.length; tries++) p = cursor++ % ends.length;
    busy[p] = true;
    const read = await call(`${url}/v1/topics/${topic}/partitions/${p}/records?offset=${next[p]}&maxBytes=${FETCH_MAX_BYTES}`, 'GET');
    for (const r of read.records as { value: string }[]) bytes += r.value.length; // ASCII values: chars = bytes
    next[p] = (read.nextOffset as number) >= ends[p] ? 0 : (read.nextOffset as number);
    busy[p] = false;
    requests++;
  });
  return { mbps: bytes / MB / seconds, requests };
}

async function rawPutFor(ctx: SluiceContext, prefix: string, size: number, ms: number, concurrency: number) {
  const payload = Buffer.alloc(size, 120);
  let requests = 0;
  const seconds = await runFor(ms, concurrency, async (i) => {
    await ctx.s3.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: `${prefix}/${i}`, Body: payload, ContentLength: size }));
    requests++;
  });
  return { mbps: (requests * size) / MB / seconds, requests, objects: requests };
}

async function rawGetFor(ctx: SluiceContext, prefix: string, objects: number, rangeBytes: number, ms: number, concurrency: number) {
  let bytes = 0;
  let requests = 0;
  const seconds = await runFor(ms, concurrency, async (i) => {
    const out = await ctx.s3.send(
      new GetObjectCommand({ Bucket: ctx.bucket, Key: `${prefix}/${i % objects}`, Range: `bytes=0-${rangeBytes - 1}` }),
    );
    bytes += (await out.Body!.transformToByteArray()).length;
    requests++;
  });
  return { mbps: bytes / MB / seconds, requests };
}

async function highWatermarks(url: string, topic: string): Promise<number[]> {
  return Promise.all(
    Array.from({ length: PARTITIONS }, async (_, p) => (await call(`${url}/v1/topics/${topic}/partitions/${p}/offsets?at=latest`, 'GET')).offset as number),
  );
}

export async function benchThroughput(
  storage: BenchStorage,
  seconds: number,
  concurrency: number,
  progress: (step: string) => void,
): Promise<ThroughputResult> {
  const ctx = await storage.newContext();
  const server = await startServer({ context: ctx });
  const ms = seconds * 1000;
  const rows: ThroughputRow[] = [];
  try {
    const value = 'x'.repeat(VALUE_BYTES);
    const keyed = JSON.stringify({ records: Array.from({ length: RECORDS_PER_REQUEST }, (_, i) => ({ key: `key-${i}`, value })) });
    const keyless = JSON.stringify({ records: Array.from({ length: RECORDS_PER_REQUEST }, () => ({ value })) });
    for (const topic of ['keyed', 'keyless']) {
      await call(`${server.url}/v1/topics`, 'POST', JSON.stringify({ name: topic, partitions: PARTITIONS }));
      // Warm up: leases of every partition, topic cache, JIT.
      for (let i = 0; i < PARTITIONS; i++) await call(`${server.url}/v1/topics/${topic}/records`, 'POST', topic === 'keyed' ? keyed : keyless);
    }

    progress(`raw S3 PUT of 1 MiB objects, ${concurrency} clients`);
    const put = await rawPutFor(ctx, 'raw', REQUEST_BYTES, ms, concurrency);
    const rawPut = { raw: 'PUT 1 MiB object', rawMBps: put.mbps, rawRequests: put.requests };
    progress(`produce, keyed over ${PARTITIONS} partitions (1 MiB requests), ${concurrency} clients`);
    const pk = await produceFor(server.url, 'keyed', keyed, ms, concurrency);
    rows.push({ path: 'produce, keyed', shape: `1 MiB request: ${RECORDS_PER_REQUEST} × 1 KiB records over all ${PARTITIONS} partitions`, sluiceMBps: pk.mbps, sluiceRequests: pk.requests, ...rawPut });
    progress(`produce, keyless sticky (1 MiB to one partition), ${concurrency} clients`);
    const pl = await produceFor(server.url, 'keyless', keyless, ms, concurrency);
    rows.push({ path: 'produce, keyless (sticky)', shape: `1 MiB request: ${RECORDS_PER_REQUEST} × 1 KiB records to one partition`, sluiceMBps: pl.mbps, sluiceRequests: pl.requests, ...rawPut });

    progress('raw S3 ranged GETs of 1 MiB and of 64 KiB');
    const get1m = await rawGetFor(ctx, 'raw', put.objects, FETCH_MAX_BYTES, ms, concurrency);
    const get64k = await rawGetFor(ctx, 'raw', put.objects, REQUEST_BYTES / PARTITIONS, ms, concurrency);

    progress('fetch from the tail, keyless topic (1 MiB produce ranges)');
    const ftl = await fetchFor(server.url, 'keyless', await highWatermarks(server.url, 'keyless'), ms, concurrency);
    rows.push({ path: 'fetch tail, keyless', shape: 'maxBytes 1 MiB; one produce range = 1 MiB', sluiceMBps: ftl.mbps, sluiceRequests: ftl.requests, raw: 'ranged GET 1 MiB', rawMBps: get1m.mbps, rawRequests: get1m.requests });
    progress('fetch from the tail, keyed topic (64 KiB produce ranges)');
    const ftk = await fetchFor(server.url, 'keyed', await highWatermarks(server.url, 'keyed'), ms, concurrency);
    rows.push({ path: 'fetch tail, keyed', shape: 'maxBytes 1 MiB; one produce range ≈ 64 KiB', sluiceMBps: ftk.mbps, sluiceRequests: ftk.requests, raw: 'ranged GET 64 KiB', rawMBps: get64k.mbps, rawRequests: get64k.requests });

    progress('compacting the keyed topic into segments');
    const compaction = await runMaintenance(ctx, { timeLeftMs: () => 600_000, reserveMs: 0, concurrency: 2 });
    progress(`compacted: ${compaction.compaction.merges} merges, ${(compaction.compaction.rewrittenBytes / MB).toFixed(0)} MiB rewritten`);
    const fc = await fetchFor(server.url, 'keyed', await highWatermarks(server.url, 'keyed'), ms, concurrency);
    rows.push({ path: 'fetch compacted, keyed', shape: 'maxBytes 1 MiB from merged segments', sluiceMBps: fc.mbps, sluiceRequests: fc.requests, raw: 'ranged GET 1 MiB', rawMBps: get1m.mbps, rawRequests: get1m.requests });
    return { concurrency, valueBytes: VALUE_BYTES, partitions: PARTITIONS, secondsPerSide: seconds, rows };
  } finally {
    await server.close();
  }
}
