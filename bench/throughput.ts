// End-to-end local throughput through the handlers (the local HTTP server of `npm start`, which
// routes to the same Lambda handlers as AWS) against the embedded emulators, beside raw S3 PUT and
// GET of the same bytes to the same emulator with the same concurrency: the ratio is the protocol's
// efficiency (JSON, validation, encoding, manifest and commit round trips, decoding). Raw GETs read
// ranges the size of one fetch (one partition's range of a produce object).
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { startServer } from '../lib/local/server.js';
import type { BenchStorage } from './storage.js';

export interface ThroughputResult {
  readonly partitions: number;
  readonly recordsPerRequest: number;
  readonly valueBytes: number;
  readonly concurrency: number;
  /** MB/s of record values. */
  readonly produceMBps: number;
  readonly rawPutMBps: number;
  readonly fetchMBps: number;
  readonly rawGetMBps: number;
  readonly produceRequests: number;
  readonly fetches: number;
}

const PARTITIONS = 16;
/** 4 MiB of values per request: what a client lingering for ~4 s at 1 MB/s sends (under Lambda's 6 MB payload). */
const RECORDS_PER_REQUEST = 4096;
const VALUE_BYTES = 1024;
const CONCURRENCY = 4;

/** Runs `worker` on `concurrency` loops until `ms` have passed or a worker returns false; returns seconds taken. */
async function runFor(ms: number, concurrency: number, worker: (i: number) => Promise<boolean>): Promise<number> {
  const start = performance.now();
  let i = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() - start < ms) if (!(await worker(i++))) return;
    }),
  );
  return (performance.now() - start) / 1000;
}

async function call(url: string, method: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export async function benchThroughput(storage: BenchStorage, seconds: number, progress: (step: string) => void): Promise<ThroughputResult> {
  const ctx = await storage.newContext();
  const server = await startServer({ context: ctx });
  try {
    await call(`${server.url}/v1/topics`, 'POST', { name: 'bench', partitions: PARTITIONS });
    const value = 'x'.repeat(VALUE_BYTES);
    const body = { records: Array.from({ length: RECORDS_PER_REQUEST }, (_, i) => ({ value, partition: i % PARTITIONS })) };
    const requestBytes = RECORDS_PER_REQUEST * VALUE_BYTES;
    const mb = (bytes: number, s: number) => bytes / 2 ** 20 / s;

    progress('produce through the handlers');
    await call(`${server.url}/v1/topics/bench/records`, 'POST', body); // cold: leases, topic cache
    let produced = 0;
    const produceSeconds = await runFor(seconds * 1000, CONCURRENCY, async () => {
      await call(`${server.url}/v1/topics/bench/records`, 'POST', body);
      produced++;
      return true;
    });

    progress('raw S3 PUT of the same bytes');
    const payload = Buffer.alloc(requestBytes, 120);
    let puts = 0;
    const putSeconds = await runFor((seconds * 1000) / 2, CONCURRENCY, async (i) => {
      await ctx.s3.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: `raw/${i}`, Body: payload, ContentLength: payload.length }));
      puts++;
      return true;
    });

    progress('fetch through the handlers');
    const next = new Array<number>(PARTITIONS).fill(0);
    const highWatermark = 1 + produced; // batches per partition; each has RECORDS_PER_REQUEST / PARTITIONS records
    const target = highWatermark * (RECORDS_PER_REQUEST / PARTITIONS);
    let fetchedBytes = 0;
    let fetches = 0;
    let partitionCursor = 0;
    const fetchSeconds = await runFor(seconds * 1000, CONCURRENCY, async () => {
      // Each worker takes the next partition not yet read to the end.
      for (let tries = 0; tries < PARTITIONS; tries++) {
        const p = partitionCursor++ % PARTITIONS;
        if (next[p] >= target || next[p] < 0) continue;
        const offset = next[p];
        next[p] = -1; // taken
        const read = await call(`${server.url}/v1/topics/bench/partitions/${p}/records?offset=${offset}&maxBytes=1048576`, 'GET');
        fetches++;
        for (const r of read.records as { value: string }[]) fetchedBytes += r.value.length;
        next[p] = read.nextOffset as number;
        return true;
      }
      return next.some((n) => n >= 0 && n < target) || next.some((n) => n === -1);
    });

    progress('raw S3 GET of the same bytes');
    const rangeBytes = requestBytes / PARTITIONS;
    let gotBytes = 0;
    const getSeconds = await runFor((seconds * 1000) / 2, CONCURRENCY, async (i) => {
      // The same bytes one fetch reads: one partition's range of a produce object.
      const out = await ctx.s3.send(
        new GetObjectCommand({ Bucket: ctx.bucket, Key: `raw/${i % Math.max(1, puts)}`, Range: `bytes=0-${rangeBytes - 1}` }),
      );
      gotBytes += (await out.Body!.transformToByteArray()).length;
      return true;
    });

    return {
      partitions: PARTITIONS,
      recordsPerRequest: RECORDS_PER_REQUEST,
      valueBytes: VALUE_BYTES,
      concurrency: CONCURRENCY,
      produceMBps: mb(produced * requestBytes, produceSeconds),
      rawPutMBps: mb(puts * requestBytes, putSeconds),
      fetchMBps: mb(fetchedBytes, fetchSeconds),
      rawGetMBps: mb(gotBytes, getSeconds),
      produceRequests: produced,
      fetches,
    };
  } finally {
    await server.close();
  }
}
