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
  /** CPU ms per MiB moved, in this process (clients + handlers) and in the emulator process. */
  readonly sluiceCpu: CpuPerMiB;
  readonly rawCpu: CpuPerMiB;
}

export interface CpuPerMiB {
  readonly main: number;
  readonly emulators: number;
}

export interface ThroughputResult {
  readonly concurrency: number;
  readonly valueBytes: number;
  readonly partitions: number;
  readonly secondsPerSide: number;
  readonly rows: ThroughputRow[];
  readonly compaction: { readonly merges: number; readonly replacedItems: number; readonly rewrittenBytes: number };
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

/** What one side moved in one round. */
interface Moved {
  readonly bytes: number;
  readonly requests: number;
  readonly seconds: number;
}

interface Measured {
  readonly mbps: number;
  readonly requests: number;
  readonly cpu: CpuPerMiB;
}

/**
 * Alternates short rounds of each side (ROUNDS of them, `ms` in all per side), so load from other
 * processes on a shared machine hits every side alike; sums bytes, time and the CPU both
 * processes spent during each side's rounds.
 */
async function alternate(storage: BenchStorage, ms: number, sides: readonly ((ms: number) => Promise<Moved>)[]): Promise<Measured[]> {
  const ROUNDS = 4;
  const totals = sides.map(() => ({ bytes: 0, requests: 0, seconds: 0, mainMs: 0, emulatorMs: 0 }));
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < sides.length; i++) {
      const main0 = process.cpuUsage();
      const emu0 = await storage.emulatorCpuMs();
      const moved = await sides[i](ms / ROUNDS);
      const main = process.cpuUsage(main0);
      const t = totals[i];
      t.emulatorMs += (await storage.emulatorCpuMs()) - emu0;
      t.mainMs += (main.user + main.system) / 1000;
      t.bytes += moved.bytes;
      t.requests += moved.requests;
      t.seconds += moved.seconds;
    }
  }
  return totals.map((t) => ({
    mbps: t.bytes / MB / t.seconds,
    requests: t.requests,
    cpu: { main: t.mainMs / (t.bytes / MB), emulators: t.emulatorMs / (t.bytes / MB) },
  }));
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
  return { bytes: requests * REQUEST_BYTES, requests, seconds };
}

/** Where consumers of a topic are: the next offset per partition, kept across rounds. */
interface Consumers {
  readonly next: number[];
  readonly busy: boolean[];
  readonly ends: number[];
  cursor: number;
}

const consumersOf = (ends: number[]): Consumers => ({ next: ends.map(() => 0), busy: ends.map(() => false), ends, cursor: 0 });

/**
 * Consumers reading every partition from offset 0 with maxBytes 1 MiB, each worker taking the next
 * partition not being read; a partition read to its end starts over (a replay).
 */
async function fetchFor(url: string, topic: string, c: Consumers, ms: number, concurrency: number) {
  let bytes = 0;
  let requests = 0;
  const seconds = await runFor(ms, concurrency, async () => {
    let p = c.cursor++ % c.ends.length;
    for (let tries = 0; c.busy[p] && tries < c.ends.length; tries++) p = c.cursor++ % c.ends.length;
    c.busy[p] = true;
    const read = await call(`${url}/v1/topics/${topic}/partitions/${p}/records?offset=${c.next[p]}&maxBytes=${FETCH_MAX_BYTES}`, 'GET');
    for (const r of read.records as { value: string }[]) bytes += r.value.length; // ASCII values: chars = bytes
    c.next[p] = (read.nextOffset as number) >= c.ends[p] ? 0 : (read.nextOffset as number);
    c.busy[p] = false;
    requests++;
  });
  return { bytes, requests, seconds };
}

async function rawPutFor(ctx: SluiceContext, prefix: string, objects: number, payload: Buffer, ms: number, concurrency: number) {
  const size = payload.length;
  let requests = 0;
  const seconds = await runFor(ms, concurrency, async (i) => {
    await ctx.s3.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: `${prefix}/${i % objects}`, Body: payload, ContentLength: size }));
    requests++;
  });
  return { bytes: requests * size, requests, seconds };
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
  return { bytes, requests, seconds };
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
  const row = (path: string, shape: string, raw: string, sluice: Measured, rawSide: Measured): ThroughputRow => ({
    path,
    shape,
    raw,
    sluiceMBps: sluice.mbps,
    rawMBps: rawSide.mbps,
    sluiceRequests: sluice.requests,
    rawRequests: rawSide.requests,
    sluiceCpu: sluice.cpu,
    rawCpu: rawSide.cpu,
  });
  try {
    const value = 'x'.repeat(VALUE_BYTES);
    const keyed = JSON.stringify({ records: Array.from({ length: RECORDS_PER_REQUEST }, (_, i) => ({ key: `key-${i}`, value })) });
    const keyless = JSON.stringify({ records: Array.from({ length: RECORDS_PER_REQUEST }, () => ({ value })) });
    for (const topic of ['keyed', 'keyless']) {
      await call(`${server.url}/v1/topics`, 'POST', JSON.stringify({ name: topic, partitions: PARTITIONS }));
      // Warm up: leases of every partition, topic cache, JIT.
      for (let i = 0; i < PARTITIONS; i++) await call(`${server.url}/v1/topics/${topic}/records`, 'POST', topic === 'keyed' ? keyed : keyless);
    }
    const RAW_OBJECTS = 64;
    const payload = Buffer.alloc(REQUEST_BYTES, 120);
    for (let i = 0; i < RAW_OBJECTS; i++) await ctx.s3.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: `raw/${i}`, Body: payload }));

    progress(`produce 1 MiB requests (keyed over ${PARTITIONS} partitions; keyless sticky) vs raw PUT of 1 MiB, ${concurrency} clients each, alternating`);
    const [put, pk, pl] = await alternate(storage, ms, [
      (t) => rawPutFor(ctx, 'raw', RAW_OBJECTS, payload, t, concurrency),
      (t) => produceFor(server.url, 'keyed', keyed, t, concurrency),
      (t) => produceFor(server.url, 'keyless', keyless, t, concurrency),
    ]);
    rows.push(row('produce, keyed', `1 MiB request: ${RECORDS_PER_REQUEST} × 1 KiB records over all ${PARTITIONS} partitions`, 'PUT 1 MiB object', pk, put));
    rows.push(row('produce, keyless (sticky)', `1 MiB request: ${RECORDS_PER_REQUEST} × 1 KiB records to one partition`, 'PUT 1 MiB object', pl, put));

    progress('fetch from the tail (uncompacted produce objects) vs raw ranged GETs of the same sizes, alternating');
    const tailKeyless = consumersOf(await highWatermarks(server.url, 'keyless'));
    const tailKeyed = consumersOf(await highWatermarks(server.url, 'keyed'));
    const [get1m, ftl, get64k, ftk] = await alternate(storage, ms, [
      (t) => rawGetFor(ctx, 'raw', RAW_OBJECTS, FETCH_MAX_BYTES, t, concurrency),
      (t) => fetchFor(server.url, 'keyless', tailKeyless, t, concurrency),
      (t) => rawGetFor(ctx, 'raw', RAW_OBJECTS, REQUEST_BYTES / PARTITIONS, t, concurrency),
      (t) => fetchFor(server.url, 'keyed', tailKeyed, t, concurrency),
    ]);
    rows.push(row('fetch tail, keyless', 'maxBytes 1 MiB; one produce range = 1 MiB', 'ranged GET 1 MiB', ftl, get1m));
    rows.push(row('fetch tail, keyed', 'maxBytes 1 MiB; one produce range ≈ 64 KiB', 'ranged GET 64 KiB', ftk, get64k));

    progress('compacting both topics into segments (maintenance run)');
    const maintenance = await runMaintenance(ctx, { timeLeftMs: () => 600_000, reserveMs: 0, concurrency: 2 });
    const merged = maintenance.compaction;
    progress(`compacted: ${merged.merges} merges of ${merged.replacedItems} items, ${(merged.rewrittenBytes / MB).toFixed(0)} MiB rewritten`);
    progress('fetch compacted segments vs raw ranged GET of 1 MiB, alternating');
    const compacted = consumersOf(await highWatermarks(server.url, 'keyed'));
    const [get1mAgain, fc] = await alternate(storage, ms, [
      (t) => rawGetFor(ctx, 'raw', RAW_OBJECTS, FETCH_MAX_BYTES, t, concurrency),
      (t) => fetchFor(server.url, 'keyed', compacted, t, concurrency),
    ]);
    rows.push(row('fetch compacted', 'maxBytes 1 MiB from merged segments', 'ranged GET 1 MiB', fc, get1mAgain));
    return { concurrency, valueBytes: VALUE_BYTES, partitions: PARTITIONS, secondsPerSide: seconds, rows, compaction: merged };
  } finally {
    await server.close();
  }
}
