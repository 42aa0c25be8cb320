// Storage requests per produce, per fetch and per maintenance run, COUNTED at the SDK (an SDK
// middleware on the context's clients, request-counter.ts: every HTTP attempt that reaches S3 or
// DynamoDB, retries included, with the capacity DynamoDB reports consumed). Nothing here is
// assumed: the section of results.md and the cost model are written from these counts.
//
//   - produce (appendToPartitions, the leaderless append): the first request of a fresh context
//     (new SDK clients: a new process or a cold Lambda container) and 32 warm ones, touching 1, 8
//     and 16 partitions; every append that filled a partition's tail also spilled it, so the warm
//     average holds the spills' amortized cost. Also the first request through the produce handler
//     (handleHttp), which reads the topic's metadata first. Write units as DynamoDB reported them,
//     and the largest STATE / SEG items after any request.
//   - fetch (readRecords) in one partition after 10, 300 and 3000 appended batches: an offset in
//     STATE's tail, in a spilled SEG item and (after a maintenance run) in a merged segment, each
//     fetched twice by a fresh context (the second shows what the in-process index cache saves).
//   - merge: a keyed topic of 16 partitions (each produce request one intake object holding all
//     16 partitions' batches), two maintenance runs: intake objects written, GETs made, ranges
//     merged, and every request of the run per merged range.
import { pathToFileURL } from 'node:url';
import { handleHttp } from '../lib/api/router.js';
import type { SluiceContext } from '../lib/context.js';
import { appendToPartitions, type PartitionAppend } from '../lib/log/append.js';
import { forEachLimited } from '../lib/log/partition-snapshot.js';
import { runMaintenance, type MaintenanceReport } from '../lib/log/maintenance.js';
import { readRecords } from '../lib/log/read.js';
import { TAIL_MAX_ENTRIES } from '../lib/log/spill.js';
import { largestPartitionItems } from '../lib/metadata/item-size.js';
import { floorSegmentItem } from '../lib/metadata/manifest.js';
import { getPartitionState } from '../lib/metadata/partition-state.js';
import { TOPIC_CACHE_MS, createTopic, type TopicMetadata } from '../lib/metadata/topics.js';
import { partitionForKey } from '../lib/partitioners/index.js';
import type { RecordInput } from '../lib/records/index.js';
import { countStorageRequests } from './request-counter.js';
import { pastGrace, startBenchStorage, type BenchStorage } from './storage.js';

export type RequestCounts = Record<string, number>;

export const total = (c: RequestCounts) => Object.values(c).reduce((a, b) => a + b, 0);
export const ddbWrites = (c: RequestCounts) => (c['ddb:PutItem'] ?? 0) + (c['ddb:UpdateItem'] ?? 0) + (c['ddb:DeleteItem'] ?? 0);

export interface ProduceShape {
  readonly partitions: number;
  /** One idempotent producer's batches (a sequence entry on every STATE). */
  readonly idempotent: boolean;
  /** The first append of a fresh context. */
  readonly cold: RequestCounts;
  /** The first produce request of a fresh context through the handler (handleHttp, JSON body). */
  readonly coldHandler: RequestCounts;
  /** Warm appends measured, and how many of them made exactly 1 S3 PUT + 1 UpdateItem per partition. */
  readonly warmAppends: number;
  readonly plainAppends: number;
  /** Warm averages per append (spills included). */
  readonly warm: RequestCounts;
  /** Per append that made no spill, and the extra requests of an append that spilled. */
  readonly plain: RequestCounts;
  readonly spill: RequestCounts;
  /** Appends that spilled, per partition: 1 in TAIL_MAX_ENTRIES expected. */
  readonly spillsPerPartitionAppend: number;
  /** DynamoDB write units per append: warm average, per plain append, per spilling append's spill part. */
  readonly writeUnits: { readonly warm: number; readonly plain: number; readonly spill: number; readonly cold: number };
  readonly largestItems: { readonly state: number; readonly segment: number };
}

export type FetchWhere = 'tail' | 'spilled SEG item' | 'merged segment';

export interface FetchCount {
  readonly batches: number;
  readonly stage: 'appended' | 'after a maintenance run';
  readonly where: FetchWhere;
  readonly offset: number;
  readonly first: RequestCounts;
  readonly again: RequestCounts;
  /** Suffixes of the objects the first fetch GOT that the repeated one did not (e.g. `.index`). */
  readonly firstOnlyObjects: string[];
  readonly records: number;
}

export interface MergeRun {
  readonly run: number;
  readonly partitions: number;
  readonly produceRequests: number;
  /** Intake objects the produce requests wrote (their s3:PutObject count). */
  readonly intakeObjects: number;
  readonly merge: MaintenanceReport['merge'];
  readonly tailSpills: number;
  readonly partitionsLed: number;
  /** Every request of the maintenance run, by kind, and the units DynamoDB reported. */
  readonly counts: RequestCounts;
  readonly writeUnits: number;
  readonly readUnits: number;
}

export interface RequestsResult {
  readonly tailMaxEntries: number;
  readonly recordsPerPartition: number;
  readonly recordBytes: number;
  readonly produce: ProduceShape[];
  readonly fetch: FetchCount[];
  readonly fetchMaxBytes: number;
  readonly storedBytes: { readonly valueBytes: number; readonly recordsPerBatch: number; readonly s3BytesPerRecord: number }[];
  readonly merge: MergeRun[];
}

const records = (n: number, valueBytes: number, tag: number, timestamp = Date.now()): RecordInput[] =>
  Array.from({ length: n }, (_, i) => ({ timestamp: timestamp + i, key: Buffer.from(`k${tag}-${i}`), value: Buffer.alloc(valueBytes, 97) }));

const round2 = (n: number) => Math.round(n * 100) / 100;

function add(into: RequestCounts, counts: RequestCounts, times = 1): void {
  for (const [k, v] of Object.entries(counts)) into[k] = (into[k] ?? 0) + v * times;
}

function average(counts: RequestCounts, n: number): RequestCounts {
  return Object.fromEntries(
    Object.entries(counts)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => [k, n === 0 ? 0 : round2(v / n)]),
  );
}

function subtract(a: RequestCounts, b: RequestCounts): RequestCounts {
  const out: RequestCounts = {};
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const v = round2((a[k] ?? 0) - (b[k] ?? 0));
    if (v !== 0) out[k] = v;
  }
  return Object.fromEntries(Object.entries(out).sort(([x], [y]) => x.localeCompare(y)));
}

const WARM_APPENDS = 4 * TAIL_MAX_ENTRIES;
const RECORDS_PER_PARTITION = 4;
const RECORD_BYTES = 1024;
const FETCH_MAX_BYTES = 2 ** 20;

async function produceShape(storage: BenchStorage, partitions: number, idempotent: boolean): Promise<ProduceShape> {
  const setup = await storage.newContext();
  const topic = await createTopic(setup, `p${partitions}`, 16);
  const request = (tag: number): PartitionAppend[] =>
    Array.from({ length: partitions }, (_, p) => ({
      partition: p,
      records: records(RECORDS_PER_PARTITION, RECORD_BYTES, tag),
      producer: idempotent ? { producerId: 4001, producerEpoch: 0, baseSequence: RECORDS_PER_PARTITION * tag } : undefined,
    }));
  const check = (results: Awaited<ReturnType<typeof appendToPartitions>>) => {
    const failed = results.find((r) => 'error' in r);
    if (failed && 'error' in failed) throw new Error(`append failed: ${failed.error.message}`);
  };

  // Cold: the first request of a fresh context (new clients, new connections).
  const ctx = storage.freshContextOn(setup);
  const counter = countStorageRequests(ctx);
  check(await appendToPartitions(ctx, topic, request(0)));
  const cold = counter.byKind();
  const coldUnits = counter.writeUnits;
  counter.reset();

  const warm: RequestCounts = {};
  const plain: RequestCounts = {};
  const spilling: RequestCounts = {};
  let plainAppends = 0;
  let spillingAppends = 0;
  let spilledPartitions = 0;
  const units = { warm: 0, plain: 0, spilling: 0 };
  const largestItems = { state: 0, segment: 0 };
  for (let i = 1; i <= WARM_APPENDS; i++) {
    check(await appendToPartitions(ctx, topic, request(i)));
    const counts = counter.byKind();
    add(warm, counts);
    units.warm += counter.writeUnits;
    const puts = counts['ddb:PutItem'] ?? 0;
    if (puts === 0) {
      plainAppends++;
      add(plain, counts);
      units.plain += counter.writeUnits;
    } else {
      spillingAppends++;
      spilledPartitions += puts;
      add(spilling, counts);
      units.spilling += counter.writeUnits;
    }
    counter.reset();
    // The items' sizes after every request (the larger of before and after is what a write is billed by), not counted.
    const sizes = await largestPartitionItems(setup, topic, partitions);
    largestItems.state = Math.max(largestItems.state, sizes.state);
    largestItems.segment = Math.max(largestItems.segment, sizes.segment);
  }
  const plainAvg = average(plain, plainAppends);
  const spillingAvg = average(spilling, spillingAppends);

  // The handler's first request in a fresh context: it reads the topic's metadata before appending.
  const handlerCtx = storage.freshContextOn(setup);
  const handlerCounter = countStorageRequests(handlerCtx);
  const body = JSON.stringify({
    records: Array.from({ length: partitions }, (_, p) =>
      Array.from({ length: RECORDS_PER_PARTITION }, (_, i) => ({ partition: p, key: `h-${i}`, value: 'a'.repeat(RECORD_BYTES) })),
    ).flat(),
  });
  const r = await handleHttp(handlerCtx, { method: 'POST', path: `/v1/topics/${topic.name}/records`, body });
  if (r.status !== 200) throw new Error(`handler produce: ${r.status} ${r.body.slice(0, 200)}`);
  const coldHandler = handlerCounter.byKind();

  return {
    partitions,
    idempotent,
    cold,
    coldHandler,
    warmAppends: WARM_APPENDS,
    plainAppends,
    warm: average(warm, WARM_APPENDS),
    plain: plainAvg,
    spill: subtract(spillingAvg, plainAvg),
    spillsPerPartitionAppend: spilledPartitions / (partitions * WARM_APPENDS),
    writeUnits: {
      cold: round2(coldUnits),
      warm: round2(units.warm / WARM_APPENDS),
      plain: round2(plainAppends === 0 ? 0 : units.plain / plainAppends),
      spill: round2(spillingAppends === 0 ? 0 : units.spilling / spillingAppends - units.plain / Math.max(1, plainAppends)),
    },
    largestItems,
  };
}

/** Where `offset` lies now: STATE's tail, a spilled SEG item or a merged segment (read uncounted). */
async function whereIs(ctx: SluiceContext, topic: TopicMetadata, offset: number): Promise<FetchWhere> {
  const state = await getPartitionState(ctx, topic, 0);
  if (offset >= state.tailBase) return 'tail';
  const item = await floorSegmentItem(ctx, topic, 0, offset);
  if (!item) throw new Error(`no SEG item holds offset ${offset}`);
  return item.entries ? 'spilled SEG item' : 'merged segment';
}

async function fetchCosts(storage: BenchStorage, batches: number, progress: (step: string) => void): Promise<FetchCount[]> {
  progress(`fetch cost in a partition of ${batches} appended batches`);
  const setup = await storage.newContext();
  const topic = await createTopic(setup, 'f', 1);
  let appended = 0;
  const appendMore = async (n: number) => {
    // Several appenders at once, as the leaderless protocol allows (offsets come from STATE's updates).
    await forEachLimited(Array.from({ length: n }, (_, i) => appended + i), 8, async (i) => {
      const [r] = await appendToPartitions(setup, topic, [{ partition: 0, records: records(1, 100, i) }]);
      if ('error' in r) throw new Error(`append failed: ${r.error.message}`);
    });
    appended += n;
  };
  await appendMore(batches);

  const out: FetchCount[] = [];
  const measured = new Set<string>();
  const measure = async (stage: FetchCount['stage'], offset: number) => {
    if (measured.has(`${stage}/${offset}`)) return;
    measured.add(`${stage}/${offset}`);
    const where = await whereIs(setup, topic, offset);
    const ctx = storage.freshContextOn(setup);
    const counter = countStorageRequests(ctx);
    const read = await readRecords(ctx, topic, 0, { offset, maxBytes: FETCH_MAX_BYTES });
    if (read.records.length === 0 || read.records[0].offset !== offset) throw new Error(`fetch at ${offset} did not start there`);
    const first = counter.byKind();
    const firstKeys = [...counter.getKeys];
    counter.reset();
    await readRecords(ctx, topic, 0, { offset, maxBytes: FETCH_MAX_BYTES });
    const firstOnlyObjects = firstKeys.filter((k) => !counter.getKeys.includes(k)).map((k) => k.slice(k.lastIndexOf('.')));
    out.push({ batches, stage, where, offset, first, again: counter.byKind(), firstOnlyObjects, records: read.records.length });
  };
  const state = await getPartitionState(setup, topic, 0);
  await measure('appended', state.logEndOffset - 1);
  if (state.tailBase < state.logEndOffset - 1) await measure('appended', state.tailBase);
  if (state.tailBase > 0) {
    await measure('appended', 0);
    await measure('appended', state.tailBase - 1);
  }

  const report = await runMaintenance(pastGrace(setup), { timeLeftMs: () => 600_000, reserveMs: 0 });
  if (report.errors.length > 0) throw new Error(`maintenance failed: ${report.errors.join('; ')}`);
  const spilledBefore = (await getPartitionState(setup, topic, 0)).tailBase;
  await appendMore(3);
  const after = await getPartitionState(setup, topic, 0);
  await measure('after a maintenance run', after.logEndOffset - 1);
  if (spilledBefore > 0) await measure('after a maintenance run', spilledBefore - 1);
  await measure('after a maintenance run', 0);
  const mid = Math.floor(batches / 2);
  if (mid > 0 && mid < spilledBefore - 1) await measure('after a maintenance run', mid);
  return out;
}

async function mergeRuns(storage: BenchStorage, progress: (step: string) => void): Promise<MergeRun[]> {
  const partitions = 16;
  const produceRequests = 3 * TAIL_MAX_ENTRIES;
  const ctx = await storage.newContext();
  const topic = await createTopic(ctx, 'keyed', partitions);
  const counter = countStorageRequests(ctx);
  const runs: MergeRun[] = [];
  for (let run = 1; run <= 2; run++) {
    progress(`merge: ${produceRequests} keyed produce requests over ${partitions} partitions, then maintenance run ${run}`);
    counter.reset();
    for (let i = 0; i < produceRequests; i++) {
      // Keyed records, partitioned as Kafka's default partitioner does (murmur2 of the key).
      const byPartition = new Map<number, RecordInput[]>();
      for (const r of records(partitions * 16, RECORD_BYTES, run * 1000 + i)) {
        const p = partitionForKey(r.key!, partitions);
        byPartition.set(p, [...(byPartition.get(p) ?? []), r]);
      }
      const results = await appendToPartitions(ctx, topic, [...byPartition].map(([partition, rs]) => ({ partition, records: rs })));
      const failed = results.find((r) => 'error' in r);
      if (failed && 'error' in failed) throw new Error(`append failed: ${failed.error.message}`);
    }
    const intakeObjects = counter.counts.get('s3:PutObject') ?? 0;
    counter.reset();
    const report = await runMaintenance(pastGrace(ctx), { timeLeftMs: () => 600_000, reserveMs: 0 });
    if (report.errors.length > 0) throw new Error(`maintenance failed: ${report.errors.join('; ')}`);
    runs.push({
      run,
      partitions,
      produceRequests,
      intakeObjects,
      merge: report.merge,
      tailSpills: report.tailSpills,
      partitionsLed: report.partitions,
      counts: counter.byKind(),
      writeUnits: round2(counter.writeUnits),
      readUnits: round2(counter.readUnits),
    });
  }
  return runs;
}

export async function benchRequests(storage: BenchStorage, progress: (step: string) => void): Promise<RequestsResult> {
  const produce: ProduceShape[] = [];
  for (const [partitions, idempotent] of [[1, false], [8, false], [16, false], [16, true]] as const) {
    progress(`produce requests touching ${partitions} partition(s)${idempotent ? ', idempotent' : ''}: cold, then ${WARM_APPENDS} warm`);
    produce.push(await produceShape(storage, partitions, idempotent));
  }

  const fetch: FetchCount[] = [];
  for (const batches of [10, 300, 3000]) fetch.push(...(await fetchCosts(storage, batches, progress)));

  progress('bytes stored per record');
  const storedBytes: RequestsResult['storedBytes'][number][] = [];
  const c = await storage.newContext();
  const counter = countStorageRequests(c);
  for (const valueBytes of [100, 1024, 10240]) {
    for (const recordsPerBatch of [1, 16, 256]) {
      const topic = await createTopic(c, `b${valueBytes}-${recordsPerBatch}`, 1);
      counter.reset();
      await appendToPartitions(c, topic, [{ partition: 0, records: records(recordsPerBatch, valueBytes, 0) }]);
      storedBytes.push({ valueBytes, recordsPerBatch, s3BytesPerRecord: Math.round((counter.putBytes / recordsPerBatch) * 10) / 10 });
    }
  }

  const merge = await mergeRuns(storage, progress);
  return {
    tailMaxEntries: TAIL_MAX_ENTRIES,
    recordsPerPartition: RECORDS_PER_PARTITION,
    recordBytes: RECORD_BYTES,
    produce,
    fetch,
    fetchMaxBytes: FETCH_MAX_BYTES,
    storedBytes,
    merge,
  };
}

// ---- results.md section (b), written from the counts above ----

const fx = (n: number, digits = 1) => n.toFixed(digits);
const kinds = (counts: RequestCounts) =>
  Object.entries(counts)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || 'none';
const isExactly = (counts: RequestCounts, expected: RequestCounts) => {
  const keys = new Set([...Object.keys(counts), ...Object.keys(expected)]);
  return [...keys].every((k) => (counts[k] ?? 0) === (expected[k] ?? 0));
};
const label = (p: ProduceShape) => `${p.partitions}${p.idempotent ? ' (idempotent producer)' : ''}`;

export function requestsSection(r: RequestsResult, topicCacheMs: number): string {
  const plainShapes = r.produce.filter((p) => !p.idempotent);
  const expected = (p: ProduceShape) => ({ 's3:PutObject': 1, 'ddb:UpdateItem': p.partitions });
  const produceClaims = plainShapes.map((p) => {
    const coldOk = isExactly(p.cold, expected(p));
    const warmOk = isExactly(p.plain, expected(p));
    return (
      `- ${p.partitions} partition${p.partitions === 1 ? '' : 's'}: cold ${total(p.cold)} requests (${kinds(p.cold)}); ` +
      `warm without a spill ${total(p.plain)} (${kinds(p.plain)}, ${p.plainAppends} of ${p.warmAppends} warm appends) — ` +
      `1 S3 PUT + 1 DynamoDB write per partition ${coldOk && warmOk ? '**holds**' : `**does not hold** (${coldOk ? '' : 'cold'}${!coldOk && !warmOk ? ' and ' : ''}${warmOk ? '' : 'warm'})`}.`
    );
  });
  const spillClaims = r.produce.map((p) => {
    const perPartition = Object.fromEntries(Object.entries(p.spill).map(([k, v]) => [k, round2(v / p.partitions)]));
    const amortized = Object.fromEntries(Object.entries(perPartition).map(([k, v]) => [k, round2(v * p.spillsPerPartitionAppend)]));
    return (
      `- ${label(p)}: each partition spilled in ${fx(p.spillsPerPartitionAppend * p.warmAppends, 0)} of its ${p.warmAppends} warm appends ` +
      `(1 in ${fx(1 / p.spillsPerPartitionAppend, 1)}); a spill cost ${kinds(perPartition)} per partition, ` +
      `i.e. ${kinds(amortized)} per append per partition amortized; write units per append: ${p.writeUnits.plain} without a spill, ` +
      `+${p.writeUnits.spill} when it spilled, ${p.writeUnits.warm} averaged over the ${p.warmAppends} warm appends.`
    );
  });
  const handlerExtra = plainShapes.map((p) => `${p.partitions}: ${kinds(subtract(p.coldHandler, p.cold))}`).join('; ');

  const lengths = [...new Set(r.fetch.map((f) => f.batches))];
  const maxOf = (fs: FetchCount[], key: 'first' | 'again') => Math.max(...fs.map((f) => total(f[key])));
  const fetchClaims = lengths.map((n) => {
    const fs = r.fetch.filter((f) => f.batches === n);
    const wheres = [...new Set(fs.map((f) => f.where))];
    const again = maxOf(fs, 'again');
    const first = maxOf(fs, 'first');
    return `- ${n} appended batches (offsets in: ${wheres.join(', ')}): at most ${again} storage requests per repeated fetch, at most ${first} per first fetch — at most 3 ${Math.max(first, again) <= 3 ? '**holds**' : again <= 3 ? '**holds for repeated fetches, not for every first fetch**' : '**does not hold**'}.`;
  });
  const firstExtras = r.fetch
    .filter((f) => total(f.first) > total(f.again))
    .map((f) => `${f.batches} batches, offset ${f.offset} (${f.where}): ${kinds(subtract(f.first, f.again))}${f.firstOnlyObjects.length > 0 ? ` (of a \`${f.firstOnlyObjects.join('`, `')}\` object)` : ''}`);

  const mergeRows = r.merge.map((m) => {
    const gets = m.counts['s3:GetObject'] ?? 0;
    const perRange = average(m.counts, m.merge.replacedRanges);
    return `| ${m.run} | ${m.produceRequests} | ${m.intakeObjects} | ${m.merge.intakeObjectsRead} | ${m.merge.segmentObjectsRead} | ${gets} | ${m.merge.replacedRanges} | ${fx(m.merge.replacedRanges / Math.max(1, m.merge.intakeObjectsRead), 1)} | ${m.merge.merges} | ${m.merge.replacedItems} | ${fx(m.merge.rewrittenBytes / 2 ** 20, 1)} | ${total(m.counts)} | ${fx(total(m.counts) / Math.max(1, m.merge.replacedRanges), 2)} (${kinds(perRange)}) | ${fx(m.writeUnits / Math.max(1, m.merge.replacedRanges), 2)} |`;
  });
  const mergeClaims = r.merge.map((m) => {
    const perObject = m.merge.intakeObjectsRead / Math.max(1, m.intakeObjects);
    return `- run ${m.run}: ${m.merge.intakeObjectsRead} GETs of intake objects for the ${m.intakeObjects} intake objects written (${fx(perObject, 2)} per object), ${m.merge.replacedRanges} ranges merged (${fx(m.merge.replacedRanges / Math.max(1, m.merge.intakeObjectsRead), 1)} per intake GET)${m.merge.segmentObjectsRead > 0 ? `, and ${m.merge.segmentObjectsRead} GETs of merged segments merged again` : ''} — 1 GET per intake object ${m.merge.intakeObjectsRead === m.intakeObjects ? '**holds**' : m.merge.intakeObjectsRead < m.intakeObjects ? `**not all objects merged** (deferred runs: ${m.merge.deferredRuns})` : '**does not hold**'}.`;
  });

  return [
    '## (b) Storage requests per produce, per fetch and per merge (counted at the SDK by a middleware, retries included)',
    '',
    `### Produce: ${r.recordsPerPartition} records of ${r.recordBytes} B per partition, appendToPartitions`,
    '',
    `Cold: the first request of a fresh context (new SDK clients and connections); warm: the next ${r.produce[0].warmAppends} requests of that context.`,
    `A partition's STATE tail holds ${r.tailMaxEntries} entries; the append that fills it spills them into one SEG item (PutItem + UpdateItem).`,
    '',
    ...produceClaims,
    `- The produce handler's first request in a fresh context adds, per partitions touched: ${handlerExtra} (the topic's metadata, then cached for ${topicCacheMs / 1000} s).`,
    '',
    'Spill, amortized (measured over the warm appends):',
    '',
    ...spillClaims,
    '',
    '| partitions touched | cold | cold through the handler | warm, no spill | spilling appends: extra requests | warm average per append | write units cold / no spill / warm average | largest STATE item | largest SEG item |',
    '|---|---|---|---|---|---|---|---|---|',
    ...r.produce.map(
      (p) =>
        `| ${label(p)} | ${total(p.cold)}: ${kinds(p.cold)} | ${total(p.coldHandler)}: ${kinds(p.coldHandler)} | ${total(p.plain)}: ${kinds(p.plain)} | ${kinds(p.spill)} | ${round2(total(p.warm))}: ${kinds(p.warm)} | ${p.writeUnits.cold} / ${p.writeUnits.plain} / ${p.writeUnits.warm} | ${p.largestItems.state} B | ${p.largestItems.segment} B |`,
    ),
    '',
    'Write units are what DynamoDB reported consumed (ReturnConsumedCapacity); item sizes are the largest seen after any request, by DynamoDB\'s size rules.',
    '',
    `### Fetch (readRecords, maxBytes ${r.fetchMaxBytes / 2 ** 20} MiB) in one partition of 100 B records, one batch per append`,
    '',
    'Each fetch is made by a fresh context, twice ("first", "again": the same fetch repeated); where the offset lies is read from STATE and the manifest before the fetch.',
    'After the appends, a maintenance run (its clock past the grace period) merges the spilled items and spills the idle tail; then 3 more batches are appended.',
    '',
    ...fetchClaims,
    ...(firstExtras.length > 0
      ? [`- What a first fetch made beyond the repeated one (the offset index of a merged segment is cached per process, so "first" means the first in this process): ${firstExtras.join('; ')}.`]
      : ['- No first fetch made more requests than the repeated one.']),
    '',
    '| appended batches | stage | offset lies in | offset | records returned | requests, first | by kind | requests, again | by kind |',
    '|---|---|---|---|---|---|---|---|---|',
    ...r.fetch.map(
      (f) => `| ${f.batches} | ${f.stage} | ${f.where} | ${f.offset} | ${f.records} | ${total(f.first)} | ${kinds(f.first)} | ${total(f.again)} | ${kinds(f.again)} |`,
    ),
    '',
    `### Merge (runMaintenance) of a keyed topic of ${r.merge[0].partitions} partitions`,
    '',
    `Each run follows ${r.merge[0].produceRequests} produce requests of ${r.merge[0].partitions * 16} keyed 1 KB records (murmur2 over ${r.merge[0].partitions} partitions), one intake object each;`,
    'the run\'s clock is past the grace period, so every spilled item is old enough to merge.',
    '',
    ...mergeClaims,
    '',
    '| run | produce requests | intake objects written | intake GETs (report) | merged-segment GETs (report) | s3:GetObject counted | ranges merged | ranges per intake GET | merges | items replaced | MiB rewritten | requests of the run | requests per merged range (by kind) | write units per merged range |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...mergeRows,
    '',
    'S3 bytes stored per record (RecordBatch framing included; key `k<n>-<i>`, no headers):',
    '',
    '| value size | records per partition batch | S3 bytes per record |',
    '|---|---|---|',
    ...r.storedBytes.map((s) => `| ${s.valueBytes} B | ${s.recordsPerBatch} | ${s.s3BytesPerRecord} |`),
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // Run alone (prints the section): NODE_OPTIONS=--openssl-legacy-provider npx tsx bench/requests.ts
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const started = performance.now();
  const progress = (step: string) => console.error(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)}s] ${step}`);
  const storage = await startBenchStorage();
  try {
    console.log(requestsSection(await benchRequests(storage, progress), TOPIC_CACHE_MS));
  } finally {
    await storage.close();
  }
}
