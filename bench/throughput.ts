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
// Fetches of 1 MiB (maxBytes) by consumers AT THE TAIL (each reads the newest batches of its
// partition, the ranges STATE's tail lists: one fetch answers from up to two of them, one intake
// object GET each) and, after a maintenance run merged them, from merged segments.
// Every Sluice row is measured twice: with the JSON contract, and with record batches
// (application/vnd.sluice.record-batches: the client encodes RecordBatches and decodes + CRC-checks
// fetched ones, as Kafka clients do; lib/records/batch-frames.ts).
// Both sides' clients speak node:http with keep-alive: the raw side through the AWS SDK, the Sluice
// side through the Sluice client's own HTTP exchange (lib/client/http-request.ts), not fetch().
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { RECORD_BATCHES_MEDIA_TYPE, NEXT_OFFSET_HEADER, encodeBatchFrames } from '../lib/records/batch-frames.js';
import { decodeFetchedBatches } from '../lib/client/consumed-message.js';
import { createAgents, exchange } from '../lib/client/http-request.js';
import type { SluiceContext } from '../lib/context.js';
import { partitionForKey } from '../lib/partitioners/index.js';
import { type RecordInput, encodeRecordBatch } from '../lib/records/index.js';
import { runMaintenance } from '../lib/log/maintenance.js';
import { getPartitionState } from '../lib/metadata/partition-state.js';
import { requireTopic } from '../lib/metadata/topics.js';
import { startServer } from '../lib/local/server.js';
import { countStorageRequests, type RequestCounter } from './request-counter.js';
import { pastGrace, type BenchStorage } from './storage.js';

export interface ThroughputRow {
  readonly path: string;
  /** What one Sluice request carries, and what one raw request moves. */
  readonly shape: string;
  readonly raw: string;
  /** MB/s of record values through the handlers / of object bytes raw. */
  readonly sluiceMBps: number;
  readonly rawMBps: number;
  /** Raw GET rows: the raw MB/s as runs before this fix counted it (see rawGetFor). */
  readonly rawMBpsRacy?: number;
  readonly sluiceRequests: number;
  readonly rawRequests: number;
  /** Storage requests the handlers made per Sluice request, by kind (counted at the SDK). */
  readonly storagePerRequest: Record<string, number>;
  /** Bytes moved per request (record values for Sluice, object bytes raw). */
  readonly sluiceBytesPerRequest: number;
  readonly rawBytesPerRequest: number;
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
  /** Which rows reach half of raw I/O (issue #8's bar). */
  readonly headline: string;
  readonly merge: {
    readonly runs: number;
    readonly merges: number;
    readonly replacedItems: number;
    readonly replacedRanges: number;
    readonly rewrittenBytes: number;
    readonly intakeObjectsRead: number;
  };
  /** Tail consumers: the tail entries each partition had when they read (min, max over partitions). */
  readonly tailEntries: { readonly keyed: readonly [number, number]; readonly keyless: readonly [number, number] };
}

const PARTITIONS = 16;
const VALUE_BYTES = 1024;
/** 1 MiB of record values per produce request. */
const RECORDS_PER_REQUEST = 1024;
const REQUEST_BYTES = RECORDS_PER_REQUEST * VALUE_BYTES;
const FETCH_MAX_BYTES = 2 ** 20;
const MB = 2 ** 20;

/** Marks the rows measured with the record-batches body. */
const BATCHES = '— record batches';

/** Issue #8's bar: local end-to-end throughput at least half of raw emulator I/O. */
function headlineOf(rows: readonly ThroughputRow[]): string {
  const pct = (r: ThroughputRow) => `${r.path} ${Math.round((100 * r.sluiceMBps) / r.rawMBps)}%`;
  const reach = rows.filter((r) => r.sluiceMBps >= r.rawMBps / 2);
  const miss = rows.filter((r) => r.sluiceMBps < r.rawMBps / 2);
  return [
    `Reach ≥ 50% of raw I/O (${reach.length} of ${rows.length} rows): ${reach.map(pct).join('; ') || 'none'}.`,
    `Below 50%: ${miss.map(pct).join('; ') || 'none'}.`,
  ].join('\n');
}

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
  /** Raw GETs: the bytes as earlier runs counted them (with a lost-update race). */
  readonly racyBytes?: number;
  readonly requests: number;
  readonly seconds: number;
}

interface Measured {
  readonly mbps: number;
  /** MB/s by `racyBytes` (raw GET sides only). */
  readonly racyMbps?: number;
  readonly requests: number;
  readonly bytes: number;
  /** Storage requests counted during this side's rounds, by kind. */
  readonly storage: Record<string, number>;
  readonly cpu: CpuPerMiB;
}

/**
 * Alternates short rounds of each side (ROUNDS of them, `ms` in all per side), so load from other
 * processes on a shared machine hits every side alike; sums bytes, time and the CPU both
 * processes spent during each side's rounds.
 */
async function alternate(
  storage: BenchStorage,
  counter: RequestCounter,
  ms: number,
  sides: readonly ((ms: number) => Promise<Moved>)[],
): Promise<Measured[]> {
  const ROUNDS = 4;
  const totals = sides.map(() => ({ bytes: 0, racyBytes: undefined as number | undefined, requests: 0, seconds: 0, mainMs: 0, emulatorMs: 0, storage: {} as Record<string, number> }));
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < sides.length; i++) {
      counter.reset();
      const main0 = process.cpuUsage();
      const emu0 = await storage.emulatorCpuMs();
      const moved = await sides[i](ms / ROUNDS);
      const main = process.cpuUsage(main0);
      const t = totals[i];
      t.emulatorMs += (await storage.emulatorCpuMs()) - emu0;
      t.mainMs += (main.user + main.system) / 1000;
      t.bytes += moved.bytes;
      if (moved.racyBytes !== undefined) t.racyBytes = (t.racyBytes ?? 0) + moved.racyBytes;
      t.requests += moved.requests;
      for (const [kind, n] of counter.counts) t.storage[kind] = (t.storage[kind] ?? 0) + n;
      t.seconds += moved.seconds;
    }
  }
  return totals.map((t) => ({
    mbps: t.bytes / MB / t.seconds,
    racyMbps: t.racyBytes === undefined ? undefined : t.racyBytes / MB / t.seconds,
    requests: t.requests,
    bytes: t.bytes,
    storage: t.storage,
    cpu: { main: t.mainMs / (t.bytes / MB), emulators: t.emulatorMs / (t.bytes / MB) },
  }));
}

const agents = createAgents();

/** One request as the Sluice client sends it; the answer's status, headers and bytes. */
async function send(url: string, method: string, headers: Record<string, string>, body?: string | Buffer) {
  const res = await exchange(agents, { method, url: new URL(url), headers, body, timeoutMs: 60_000 });
  if (res.status < 200 || res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${res.body.toString()}`);
  return res;
}

async function call(url: string, method: string, body?: string | Buffer): Promise<Record<string, unknown>> {
  const contentType = typeof body === 'string' || body === undefined ? 'application/json' : RECORD_BATCHES_MEDIA_TYPE;
  const res = await send(url, method, { 'content-type': contentType }, body);
  return JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
}

/** Produces the same request bodies over and over (in turn); returns MB/s of record values. */
async function produceFor(url: string, topic: string, bodies: readonly (string | Buffer)[], ms: number, concurrency: number) {
  let requests = 0;
  const seconds = await runFor(ms, concurrency, async (i) => {
    await call(`${url}/v1/topics/${topic}/records`, 'POST', bodies[i % bodies.length]);
    requests++;
  });
  return { bytes: requests * REQUEST_BYTES, requests, seconds };
}

/** Where consumers of a topic are: the next offset per partition, kept across rounds. */
interface Consumers {
  readonly next: number[];
  readonly busy: boolean[];
  /** Where each partition's reading starts over, and where it ends (the high watermark). */
  readonly starts: number[];
  readonly ends: number[];
  cursor: number;
}

const consumersOf = (starts: number[], ends: number[]): Consumers => ({ next: [...starts], busy: ends.map(() => false), starts, ends, cursor: 0 });

/**
 * Consumers reading every partition from `starts` with maxBytes 1 MiB, each worker taking the next
 * partition not being read; a partition read to its end starts over there.
 */
async function fetchFor(url: string, topic: string, c: Consumers, ms: number, concurrency: number, format: 'json' | 'batches') {
  let bytes = 0;
  let requests = 0;
  const seconds = await runFor(ms, concurrency, async () => {
    let p = c.cursor++ % c.ends.length;
    for (let tries = 0; c.busy[p] && tries < c.ends.length; tries++) p = c.cursor++ % c.ends.length;
    c.busy[p] = true;
    const offset = c.next[p];
    const path = `${url}/v1/topics/${topic}/partitions/${p}/records?offset=${offset}&maxBytes=${FETCH_MAX_BYTES}`;
    let nextOffset: number;
    if (format === 'json') {
      const read = await call(path, 'GET');
      for (const r of read.records as { value: string }[]) bytes += r.value.length; // ASCII values: chars = bytes
      nextOffset = read.nextOffset as number;
    } else {
      // As a consumer does: decode every batch (CRC-32C checked), skip records below the offset.
      const res = await send(path, 'GET', { accept: RECORD_BATCHES_MEDIA_TYPE });
      for (const m of decodeFetchedBatches(res.body, offset)) bytes += m.value!.length;
      nextOffset = Number(res.headers[NEXT_OFFSET_HEADER]);
    }
    c.next[p] = nextOffset >= c.ends[p] ? c.starts[p] : nextOffset;
    c.busy[p] = false;
    requests++;
  });
  return { bytes, requests, seconds };
}

/** A record-batches produce body: one RecordBatch per partition, partitions in order of first appearance. */
function batchesBody(records: readonly { partition: number; record: RecordInput }[]): Buffer {
  const byPartition = new Map<number, RecordInput[]>();
  for (const { partition, record } of records) {
    if (!byPartition.has(partition)) byPartition.set(partition, []);
    byPartition.get(partition)!.push(record);
  }
  return encodeBatchFrames([...byPartition].map(([partition, rs]) => ({ partition, batch: encodeRecordBatch(rs, { baseOffset: 0 }) })));
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
  let racyBytes = 0;
  let requests = 0;
  const seconds = await runFor(ms, concurrency, async (i) => {
    const out = await ctx.s3.send(
      new GetObjectCommand({ Bucket: ctx.bucket, Key: `${prefix}/${i % objects}`, Range: `bytes=0-${rangeBytes - 1}` }),
    );
    // Read `bytes` only after the await: `bytes += await …` reads it first and loses the other
    // workers' additions meanwhile. Earlier runs counted that way; `racyBytes` still does, so a
    // ratio can be set beside those runs' (they undercounted raw GET bytes).
    const before = racyBytes;
    const body = await out.Body!.transformToByteArray();
    racyBytes = before + body.length;
    bytes += body.length;
    requests++;
  });
  return { bytes, requests, seconds, racyBytes };
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
  // Counts what the handlers (and the raw side's SDK client, on the same clients) send to storage.
  const counter = countStorageRequests(ctx);
  const ms = seconds * 1000;
  const rows: ThroughputRow[] = [];
  const row = (path: string, shape: string, raw: string, sluice: Measured, rawSide: Measured): ThroughputRow => ({
    path,
    shape,
    raw,
    sluiceMBps: sluice.mbps,
    rawMBps: rawSide.mbps,
    rawMBpsRacy: rawSide.racyMbps,
    sluiceRequests: sluice.requests,
    rawRequests: rawSide.requests,
    storagePerRequest: Object.fromEntries(
      Object.entries(sluice.storage)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, Math.round((v / Math.max(1, sluice.requests)) * 100) / 100]),
    ),
    sluiceBytesPerRequest: sluice.bytes / Math.max(1, sluice.requests),
    rawBytesPerRequest: rawSide.bytes / Math.max(1, rawSide.requests),
    sluiceCpu: sluice.cpu,
    rawCpu: rawSide.cpu,
  });
  try {
    const value = 'x'.repeat(VALUE_BYTES);
    const keyed = JSON.stringify({ records: Array.from({ length: RECORDS_PER_REQUEST }, (_, i) => ({ key: `key-${i}`, value })) });
    const keyless = JSON.stringify({ records: Array.from({ length: RECORDS_PER_REQUEST }, () => ({ value })) });
    // The same records as record batches, partitioned by the client (murmur2 of the key; keyless:
    // one partition per request, moving round-robin, as the sticky partitioner does).
    const valueBytes = Buffer.from(value);
    const timestamp = Date.now();
    const keyedBatches = batchesBody(
      Array.from({ length: RECORDS_PER_REQUEST }, (_, i) => {
        const key = Buffer.from(`key-${i}`);
        return { partition: partitionForKey(key, PARTITIONS), record: { timestamp, key, value: valueBytes } };
      }),
    );
    const keylessBatches = Array.from({ length: PARTITIONS }, (_, p) =>
      batchesBody(Array.from({ length: RECORDS_PER_REQUEST }, () => ({ partition: p, record: { timestamp, key: null, value: valueBytes } }))),
    );
    for (const topic of ['keyed', 'keyless']) {
      // A keyless request's one batch holds 1 MiB of values plus record framing: over Kafka's default
      // max.message.bytes (1 MiB + 12), which applies to a client's batch as a whole.
      await call(`${server.url}/v1/topics`, 'POST', JSON.stringify({ name: topic, partitions: PARTITIONS, config: { 'max.message.bytes': 2 * MB } }));
      // Warm up: topic cache, connections, JIT.
      for (let i = 0; i < PARTITIONS; i++) await call(`${server.url}/v1/topics/${topic}/records`, 'POST', topic === 'keyed' ? keyed : keyless);
      for (let i = 0; i < PARTITIONS; i++) await call(`${server.url}/v1/topics/${topic}/records`, 'POST', topic === 'keyed' ? keyedBatches : keylessBatches[i]);
    }
    const RAW_OBJECTS = 64;
    const payload = Buffer.alloc(REQUEST_BYTES, 120);
    for (let i = 0; i < RAW_OBJECTS; i++) await ctx.s3.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: `raw/${i}`, Body: payload }));

    progress(`produce 1 MiB requests (keyed over ${PARTITIONS} partitions; keyless sticky) vs raw PUT of 1 MiB, ${concurrency} clients each, alternating`);
    const [put, pk, pl, pkb, plb] = await alternate(storage, counter, ms, [
      (t) => rawPutFor(ctx, 'raw', RAW_OBJECTS, payload, t, concurrency),
      (t) => produceFor(server.url, 'keyed', [keyed], t, concurrency),
      (t) => produceFor(server.url, 'keyless', [keyless], t, concurrency),
      (t) => produceFor(server.url, 'keyed', [keyedBatches], t, concurrency),
      (t) => produceFor(server.url, 'keyless', keylessBatches, t, concurrency),
    ]);
    rows.push(row('produce, keyed', `1 MiB request: ${RECORDS_PER_REQUEST} × 1 KiB records over all ${PARTITIONS} partitions`, 'PUT 1 MiB object', pk, put));
    rows.push(row('produce, keyless (sticky)', `1 MiB request: ${RECORDS_PER_REQUEST} × 1 KiB records to one partition`, 'PUT 1 MiB object', pl, put));
    rows.push(row(`produce, keyed ${BATCHES}`, `${PARTITIONS} RecordBatches of ≈ 64 KiB in one request`, 'PUT 1 MiB object', pkb, put));
    rows.push(row(`produce, keyless (sticky) ${BATCHES}`, 'one RecordBatch of 1 MiB of values', 'PUT 1 MiB object', plb, put));

    // Consumers at the tail: every partition's tail gets at least TAIL_ENTRIES entries (a few more
    // produce requests where the spill of a full tail left fewer), then consumers read the ranges
    // it lists, from its oldest entry to the high watermark, over and over.
    const TAIL_ENTRIES = 4;
    const tails = async (topic: string) => {
      const meta = await requireTopic(ctx, topic);
      return Promise.all(Array.from({ length: PARTITIONS }, (_, p) => getPartitionState(ctx, meta, p)));
    };
    for (let round = 0; round < 4 * TAIL_ENTRIES; round++) {
      const keyedShort = (await tails('keyed')).some((s) => s.tail.length < TAIL_ENTRIES);
      if (keyedShort) await call(`${server.url}/v1/topics/keyed/records`, 'POST', keyedBatches);
      const keylessShort = (await tails('keyless')).filter((s) => s.tail.length < TAIL_ENTRIES);
      for (const s of keylessShort) await call(`${server.url}/v1/topics/keyless/records`, 'POST', keylessBatches[s.partition]);
      if (!keyedShort && keylessShort.length === 0) break;
    }
    const [keyedStates, keylessStates] = [await tails('keyed'), await tails('keyless')];
    const span = (states: { tail: readonly string[] }[]) => [Math.min(...states.map((s) => s.tail.length)), Math.max(...states.map((s) => s.tail.length))] as const;
    if (span(keyedStates)[0] === 0 || span(keylessStates)[0] === 0) throw new Error('a partition has no tail to read');
    const tailConsumers = (states: { tailBase: number; logEndOffset: number }[]) => consumersOf(states.map((s) => s.tailBase), states.map((s) => s.logEndOffset));
    progress('fetch at the tail (the ranges STATE\'s tail lists) vs raw ranged GETs of the same sizes, alternating');
    const [get1m, ftl, ftlb, get64k, ftk, ftkb] = await alternate(storage, counter, ms, [
      (t) => rawGetFor(ctx, 'raw', RAW_OBJECTS, FETCH_MAX_BYTES, t, concurrency),
      (t) => fetchFor(server.url, 'keyless', tailConsumers(keylessStates), t, concurrency, 'json'),
      (t) => fetchFor(server.url, 'keyless', tailConsumers(keylessStates), t, concurrency, 'batches'),
      (t) => rawGetFor(ctx, 'raw', RAW_OBJECTS, REQUEST_BYTES / PARTITIONS, t, concurrency),
      (t) => fetchFor(server.url, 'keyed', tailConsumers(keyedStates), t, concurrency, 'json'),
      (t) => fetchFor(server.url, 'keyed', tailConsumers(keyedStates), t, concurrency, 'batches'),
    ]);
    const keylessTail = 'maxBytes 1 MiB at the tail: STATE\'s tail ranges, 1 MiB each (one per fetch)';
    const keyedTail = 'maxBytes 1 MiB at the tail: STATE\'s tail ranges, ≈ 64 KiB each (up to two per fetch)';
    rows.push(row('fetch tail, keyless', keylessTail, 'ranged GET 1 MiB', ftl, get1m));
    rows.push(row('fetch tail, keyed', keyedTail, 'ranged GET 64 KiB', ftk, get64k));
    rows.push(row(`fetch tail, keyless ${BATCHES}`, keylessTail, 'ranged GET 1 MiB', ftlb, get1m));
    rows.push(row(`fetch tail, keyed ${BATCHES}`, keyedTail, 'ranged GET 64 KiB', ftkb, get64k));

    progress('merging both topics into segments (maintenance runs, their clock past the grace period, until none defers a run)');
    // One run merges at most DEFAULT_MAX_MERGE_BYTES of object reads per task: run again until all is merged.
    const merged = { merges: 0, replacedItems: 0, replacedRanges: 0, rewrittenBytes: 0, intakeObjectsRead: 0, runs: 0 };
    for (let run = 0; run < 40; run++) {
      const maintenance = await runMaintenance(pastGrace(ctx), { timeLeftMs: () => 600_000, reserveMs: 0, concurrency: 2 });
      if (maintenance.errors.length > 0) throw new Error(`maintenance failed: ${maintenance.errors.join('; ')}`);
      for (const k of ['merges', 'replacedItems', 'replacedRanges', 'rewrittenBytes', 'intakeObjectsRead'] as const) merged[k] += maintenance.merge[k];
      merged.runs++;
      if (maintenance.merge.deferredRuns === 0) break;
    }
    progress(`merged in ${merged.runs} runs: ${merged.merges} merges of ${merged.replacedItems} items (${merged.replacedRanges} ranges), ${(merged.rewrittenBytes / MB).toFixed(0)} MiB rewritten`);
    progress('fetch merged segments vs raw ranged GET of 1 MiB, alternating');
    // Everything the appenders had spilled before the runs is merged; the tails the runs spilled (idle) are not, and stay out.
    const mergedEnds = keyedStates.map((s) => s.tailBase);
    const mergedStarts = mergedEnds.map(() => 0);
    const [get1mAgain, fc, fcb] = await alternate(storage, counter, ms, [
      (t) => rawGetFor(ctx, 'raw', RAW_OBJECTS, FETCH_MAX_BYTES, t, concurrency),
      (t) => fetchFor(server.url, 'keyed', consumersOf(mergedStarts, mergedEnds), t, concurrency, 'json'),
      (t) => fetchFor(server.url, 'keyed', consumersOf(mergedStarts, mergedEnds), t, concurrency, 'batches'),
    ]);
    rows.push(row('fetch merged', 'maxBytes 1 MiB from merged segments', 'ranged GET 1 MiB', fc, get1mAgain));
    rows.push(row(`fetch merged ${BATCHES}`, 'maxBytes 1 MiB from merged segments', 'ranged GET 1 MiB', fcb, get1mAgain));
    return { concurrency, valueBytes: VALUE_BYTES, partitions: PARTITIONS, secondsPerSide: seconds, rows,
      headline: headlineOf(rows),
      merge: merged,
      tailEntries: { keyed: span(keyedStates), keyless: span(keylessStates) },
    };
  } finally {
    await server.close();
  }
}
