// `npm run bench`: codec, request counts, local end-to-end throughput, the cost model and many
// writers (1 vs 3 server processes), written to bench/results.md with the machine described.
// Every sentence of results.md is written from this run's numbers. Prints progress.
// SLUICE_BENCH_ONLY=kafka-gateway runs the Kafka gateway section alone and prints it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { benchBreakdown, type BreakdownRow } from './breakdown.js';
import { benchCodec, type CodecResult } from './codec.js';
import { benchCompaction, compactionSection, type CompactionResult } from './compaction.js';
import { benchKafkaGateway, kafkaGatewaySection, type KafkaGatewayBenchResult } from './kafka-gateway.js';
import {
  ASSUMPTIONS,
  JSON_BYTES_PER_RECORD,
  MAX_REQUEST_BYTES,
  PRICES,
  lingerFor,
  modelCost,
  produceWriteUnits,
  type CostLine,
  type CountedRequests,
  type ProduceCounts,
  type ProducerShape,
} from './cost-model.js';
import { describeMachine, loadAverageNow, machineMarkdown } from './machine.js';
import { benchMultiWriter, multiWriterSection, type MultiWriterResult } from './multi-writer.js';
import { TOPIC_CACHE_MS } from '../lib/metadata/topics.js';
import { benchRequests, ddbWrites, requestsSection, total, type ProduceShape, type RequestsResult } from './requests.js';
import { startBenchStorage } from './storage.js';
import { benchSubscriptions, subscriptionsSection, type SubscriptionBenchResult } from './subscriptions.js';
import { benchThroughput, type ThroughputResult } from './throughput.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const started = performance.now();
const progress = (step: string) => console.log(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)}s] ${step}`);

const fx = (n: number, digits = 1) => n.toFixed(digits);
const usd = (n: number) => (n === 0 ? '$0' : `$${n < 0.001 ? n.toExponential(2) : n.toFixed(4)}`);
const kinds = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');

function codecSection(results: CodecResult[]): string {
  const ratio = (p: { sluice: number; kafkajs: number }) => `**${fx(p.sluice / p.kafkajs, 2)}×**`;
  const row = (r: CodecResult, p: { sluice: number; kafkajs: number }) => `${fx(p.sluice, 0)} | ${fx(p.kafkajs, 0)} | ${ratio(p)}`;
  return [
    '## (a) Codec: RecordBatch v2 encode/decode, Sluice vs kafkajs 2.2.4 (same run)',
    '',
    'MB/s of encoded batch bytes, one ~1 MB uncompressed batch of records (varied value bytes) with a key and one header.',
    'Both encoders produce identical bytes (checked). Each number is the median of 5 rounds alternating Sluice and kafkajs.',
    '',
    '**Sluice\'s decoder always verifies the batch CRC-32C** (it never returns corrupt records); **kafkajs\'s decoder does not',
    'verify the CRC at all**. So the raw decode columns compare different work; the *decode + CRC* columns are apples to',
    'apples: kafkajs decode plus kafkajs\'s own `crc32C` (kafkajs/src/protocol/recordBatch/crc32C) over the bytes Kafka covers,',
    'checked against the stored CRC, versus Sluice\'s decoder (which does that itself).',
    '',
    '| record | records/batch | batch | encode Sluice | encode kafkajs | ratio | decode + CRC Sluice | decode + CRC kafkajs | ratio | raw decode Sluice (verifies) | raw decode kafkajs (no CRC) | ratio |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.recordBytes} B | ${r.records} | ${fx(r.batchBytes / 2 ** 20, 2)} MB | ${row(r, r.encodeMBps)} | ${row(r, r.decodeVerifiedMBps)} | ${row(r, r.decodeMBps)} |`,
    ),
    '',
    ...results
      .filter((r) => r.decodeMBps.sluice < r.decodeMBps.kafkajs)
      .map(
        (r) =>
          `At ${r.recordBytes} B records the raw decode ratio is ${fx(r.decodeMBps.sluice / r.decodeMBps.kafkajs, 2)} (kafkajs skips the CRC-32C Sluice's decoder computes); ` +
          `with the CRC on both sides it is ${fx(r.decodeVerifiedMBps.sluice / r.decodeVerifiedMBps.kafkajs, 2)}.`,
      ),
  ].join('\n');
}

function breakdownSection(rows: BreakdownRow[], t: ThroughputResult): string {
  const raw = (path: string) => t.rows.find((r) => r.path === path)!;
  const put = raw('produce, keyless (sticky)').rawCpu;
  const get = raw('fetch merged').rawCpu;
  return [
    'Where the CPU goes: the same keyless 1 MiB produce (1024 × 1 KiB, one partition) and 1 MiB fetch (the first 4 MiB of each partition, from',
    `offset 0), measured at three depths (${t.concurrency} concurrent callers, CPU ms per MiB of record values; for comparison raw S3 PUT ${fx(put.main)} / ${fx(put.emulators)} and raw ranged GET ${fx(get.main)} / ${fx(get.emulators)}`,
    'main / emulators, from the table above). The "+ handler" fetch rows include the caller\'s decoding of the response (JSON.parse, or the',
    'batches decoded with their CRC checked), as a client must. Each depth is one short run, not alternated with a peer: its MB/s moves with the load.',
    '',
    '| path | body | depth | MB/s | CPU ms/MiB main | CPU ms/MiB emulators |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.path} | ${r.body === 'json' ? 'JSON' : 'record batches'} | ${r.depth} | ${fx(r.mbps)} | ${fx(r.mainCpu)} | ${fx(r.emulatorCpu)} |`),
  ].join('\n');
}

function subtractCounts(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    const v = Math.round(((a[k] ?? 0) - (b[k] ?? 0)) * 100) / 100;
    if (v !== 0) out[k] = v;
  }
  return out;
}

/** Section (c)'s ratios in the results.md this run replaces: path → ratio (%) and the Sluice request it measured. */
interface PreviousRatios {
  readonly date: string;
  readonly rows: Map<string, { ratio: number; shape: string }>;
}

function previousRatios(): PreviousRatios | undefined {
  const file = new URL('./results.md', import.meta.url);
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  const date = /\| date \| ([^|]+) \|/.exec(text)?.[1].trim() ?? 'unknown date';
  const section = text.split(/^## /m).find((part) => part.startsWith('(c)'));
  if (!section) return undefined;
  const rows = new Map<string, { ratio: number; shape: string }>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    // | path | Sluice request | raw request | Sluice MB/s | raw MB/s | ratio | ...
    const ratio = /^\*\*(\d+)%\*\*$/.exec(cells[6] ?? '');
    if (!ratio || !/^(produce|fetch)/.test(cells[1])) continue;
    // "compacted" rows are the merged-segment rows of today.
    rows.set(cells[1].replace('compacted', 'merged'), { ratio: Number(ratio[1]), shape: cells[2] });
  }
  return { date, rows };
}

function throughputSection(t: ThroughputResult, breakdown: BreakdownRow[], requests: RequestsResult, previous: PreviousRatios | undefined): string {
  const depth = (path: 'produce' | 'fetch', body: 'json' | 'batches', i: number) => breakdown.filter((r) => r.path === path && r.body === body)[i];
  const added = (path: 'produce' | 'fetch', body: 'json' | 'batches', i: number) =>
    fx(depth(path, body, i).mainCpu - (i === 0 ? 0 : depth(path, body, i - 1).mainCpu));
  const rawPut = t.rows.find((r) => r.path === 'produce, keyless (sticky)')!.rawCpu;
  const rawGet = t.rows.find((r) => r.path === 'fetch merged')!.rawCpu;
  const pctOf = (a: number, b: number) => Math.round((100 * a) / b);
  const cpuRatio = (r: ThroughputResult['rows'][number]) => (r.rawCpu.main + r.rawCpu.emulators) / (r.sluiceCpu.main + r.sluiceCpu.emulators);
  const compare = (r: ThroughputResult['rows'][number]) => {
    const before = previous?.rows.get(r.path);
    if (!before) return { cell: 'no row', worse: undefined, changed: false };
    const changed = before.shape !== r.shape;
    // Raw GET rows: set beside the previous ratio as the previous run counted raw bytes (racy), and as counted now.
    const asBefore = r.rawMBpsRacy === undefined ? undefined : pctOf(r.sluiceMBps, r.rawMBpsRacy);
    const now = asBefore ?? pctOf(r.sluiceMBps, r.rawMBps);
    const cell =
      `${before.ratio}%${changed ? ' (measured another request)' : ''}` +
      (asBefore === undefined ? '' : `; this run counted as then: ${asBefore}%`);
    return { cell, worse: now < before.ratio, changed, delta: now - before.ratio };
  };
  const compared = t.rows.map((r) => ({ r, ...compare(r) }));
  const same = compared.filter((c) => c.worse !== undefined && !c.changed);
  const noWorse = same.filter((c) => !c.worse);
  const worse = same.filter((c) => c.worse);
  const changedRows = compared.filter((c) => c.changed);
  const keyed = requests.produce.find((p) => p.partitions === 16 && !p.idempotent)!;
  const keyedTailFetch = requests.fetch.filter((f) => f.where === 'tail').sort((a, b) => total(b.again) - total(a.again))[0];
  const tailRow = (path: string) => t.rows.find((r) => r.path === path)!;
  const kib = (bytes: number) => fx(bytes / 1024, 0);
  return [
    '## (c) End-to-end local throughput through the handlers vs raw S3 on the same emulator',
    '',
    t.headline,
    '',
    `Local HTTP server (the same Lambda handlers, \`npm start\`'s server) in this process; dynalite + s3rver in a child process,`,
    `shared by both sides. ${t.concurrency} concurrent clients on each side, record values of ${t.valueBytes} B (ASCII, utf8 encoding),`,
    `${t.partitions} partitions. Sides alternate in 4 rounds (${t.secondsPerSide} s per side in all). Sluice MB/s counts record values; raw MB/s counts object bytes.`,
    'Two request bodies: the JSON contract (what curl users send), and record batches (`application/vnd.sluice.record-batches`: Kafka\'s',
    'RecordBatch v2 as the client encodes it, what the Sluice client sends by default; see the README).',
    `Tail rows: consumers AT THE TAIL read, over and over, the newest batches of every partition: from the oldest entry of its STATE tail (${t.tailEntries.keyed[0]}–${t.tailEntries.keyed[1]} entries`,
    `per partition keyed, ${t.tailEntries.keyless[0]}–${t.tailEntries.keyless[1]} keyless) to the high watermark. Merged rows: after maintenance merged everything appended (${t.merge.runs} runs,`,
    `${t.merge.merges} merges of ${t.merge.replacedRanges} ranges in ${t.merge.replacedItems} items, ${fx(t.merge.rewrittenBytes / 2 ** 20, 0)} MiB rewritten, ${t.merge.intakeObjectsRead} intake object GETs), consumers read the keyed topic's merged segments from offset 0.`,
    'CPU columns: CPU ms spent per MiB moved, in this process (clients + handlers; raw: the SDK client) and in the emulator process;',
    '"CPU raw ÷ Sluice": total CPU per MiB of both processes, raw over Sluice. "Storage requests per Sluice request": what the handlers sent to',
    'S3 and DynamoDB during the Sluice side\'s rounds (counted at the SDK, retries included), per request, with 8 clients at once.',
    `Previous: the ratio in the results.md this run replaced (${previous ? `run of ${previous.date}` : 'none found'}). Runs before this one summed raw GET bytes as`,
    '`bytes += await …`, which loses the additions other workers make meanwhile; raw GET rows also show this run\'s ratio with raw bytes counted',
    `that way ("counted as then"), which is what the comparison below uses for them.` +
      ` Here that counting gave ${t.rows.filter((r) => r.rawMBpsRacy !== undefined).map((r) => `${fx(r.rawMBpsRacy!)} instead of ${fx(r.rawMBps)} raw MB/s (${r.raw})`).filter((x, i, all) => all.indexOf(x) === i).join(', ')}.`,
    '',
    '| path | Sluice request | raw request | Sluice MB/s | raw MB/s | ratio | previous | CPU ms/MiB Sluice: main / emulators | raw: main / emulators | CPU raw ÷ Sluice | requests Sluice / raw | KiB per request Sluice / raw | storage requests per Sluice request |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...compared.map(
      ({ r, cell }) =>
        `| ${r.path} | ${r.shape} | ${r.raw} | ${fx(r.sluiceMBps)} | ${fx(r.rawMBps)} | **${pctOf(r.sluiceMBps, r.rawMBps)}%** | ${cell} | ${fx(r.sluiceCpu.main)} / ${fx(r.sluiceCpu.emulators)} | ${fx(r.rawCpu.main)} / ${fx(r.rawCpu.emulators)} | ${fx(cpuRatio(r), 2)} | ${r.sluiceRequests} / ${r.rawRequests} | ${kib(r.sluiceBytesPerRequest)} / ${kib(r.rawBytesPerRequest)} | ${fx(Object.values(r.storagePerRequest).reduce((x, y) => x + y, 0), 2)}: ${kinds(r.storagePerRequest)} |`,
    ),
    '',
    ...(previous
      ? [
          `Against the previous results.md, rows measuring the same request: ${noWorse.length} of ${same.length} no worse` +
            (noWorse.length > 0 ? ` (${noWorse.map((c) => `${c.r.path} ${c.delta! >= 0 ? '+' : ''}${c.delta} points`).join('; ')})` : '') +
            (worse.length > 0 ? `; worse: ${worse.map((c) => `${c.r.path} ${c.delta} points`).join('; ')}` : '') +
            '.' +
            (changedRows.length > 0
              ? ` Not comparable (the previous run measured another request): ${changedRows.map((c) => `${c.r.path} (then: "${previous.rows.get(c.r.path)!.shape}")`).join('; ')}.`
              : ''),
        ]
      : []),
    '',
    breakdownSection(breakdown, t),
    '',
    'By layer (differences between the depths above, main-process CPU ms per MiB):',
    '',
    `- Produce, JSON: the log layer (encode + CRC-32C, the intake object PUT, the STATE updates through the SDK) ${added('produce', 'json', 0)} ms/MiB`,
    `  against ${fx(rawPut.main)} for a raw PUT; the handler (JSON parse, validation, a Buffer per value, the offsets answer) adds`,
    `  ${added('produce', 'json', 1)}; HTTP (the client's JSON body, loopback, the server reading it, the response) adds ${added('produce', 'json', 2)}.`,
    `- Produce, record batches: the log layer ${added('produce', 'batches', 0)} ms/MiB (the caller's copy of the batch included: a lone batch is the`,
    `  intake object's body); the handler's checks of every batch (CRC-32C, every record's structure) ${added('produce', 'batches', 1)}; HTTP adds ${added('produce', 'batches', 2)}`,
    '  (locally the body travels base64 in the API Gateway event, as in AWS).',
    `- Keyed produce: each request made ${total(keyed.plain)} storage requests in (b) (${ddbWrites(keyed.plain)} of them DynamoDB writes) where a keyless one made ` +
      `${total(requests.produce.find((p) => p.partitions === 1)!.plain)} (one client, no spill; ${fx(total(keyed.warm), 2)} and ${fx(total(requests.produce.find((p) => p.partitions === 1)!.warm), 2)} with spills amortized); ` +
      `here, ${t.concurrency} clients at once, a keyed JSON produce made ${fx(total(tailRow('produce, keyed').storagePerRequest), 2)} ` +
      `(beyond (b)'s warm average: ${kinds(subtractCounts(tailRow('produce, keyed').storagePerRequest, keyed.warm))}) and a keyless one ` +
      `${fx(total(tailRow('produce, keyless (sticky)').storagePerRequest), 2)}; each DynamoDB call costs SDK CPU in this process and dynalite CPU in the child.`,
    `- Fetch, JSON: the log layer (storage requests, stamping, decode + CRC-32C) ${added('fetch', 'json', 0)} ms/MiB against ${fx(rawGet.main)} for a raw ranged GET;`,
    `  the JSON API (a string per value, the response serialized, and parsed by the client) adds ${added('fetch', 'json', 1)}; HTTP adds ${added('fetch', 'json', 2)}.`,
    `- Fetch, record batches: ${added('fetch', 'batches', 0)} + ${added('fetch', 'batches', 1)} + ${added('fetch', 'batches', 2)} ms/MiB by layer (the client checks the CRC).`,
    `- Tail fetch of keyed data: a fetch reads up to two ranges of STATE's tail, one intake object GET each (in (b) such a fetch made ${total(keyedTailFetch.again)} requests: ${Object.entries(keyedTailFetch.again).map(([k, v]) => `${k} ${v}`).join(', ')});`,
    `  here keyed tail fetches moved ${kib(tailRow('fetch tail, keyed').sluiceBytesPerRequest)} KiB per fetch against ${kib(tailRow('fetch tail, keyed').rawBytesPerRequest)} KiB per raw GET, and merged fetches ${kib(tailRow('fetch merged').sluiceBytesPerRequest)} KiB.`,
  ].join('\n');
}

const SHAPES: { shape: ProducerShape; label: string }[] = [
  { shape: 'keyed', label: 'keyed (16 partitions per request)' },
  { shape: 'keyless', label: 'keyless sticky (1 partition per request)' },
];

function costSection(lines: CostLine[], counted: CountedRequests, requests: RequestsResult, breakdown: BreakdownRow[]): string {
  const rows = lines.map((l) => {
    const w = l.workload;
    const ratio = l.kinesisOnDemand.ingest / l.ingest.total;
    return `| ${w.shape} | ${w.recordBytes / 1024} KB | ${w.mbPerSecond} MB/s | ${w.lingerMs} ms | ${fx(l.requestBytes / 2 ** 20, 2)} MB | ${fx(l.produceRequestsPerGb, 0)} | ${usd(l.ingest.s3Put)} | ${usd(l.ingest.dynamodb)} | ${usd(l.ingest.lambda)} | ${usd(l.ingest.apiGateway)} | ${usd(l.ingest.maintenance)} | **${usd(l.ingest.total)}** | ${usd(l.kinesisOnDemand.ingest)} | **1/${fx(ratio, 1)}**${ratio >= 8 ? ' ✓' : ''} | ${usd(l.kinesisProvisioned.ingest)} (${l.kinesisProvisioned.shards}) | ${usd(l.readTail)} / ${usd(l.readMerged)} | ${usd(l.kinesisOnDemand.read)} |`;
  });
  const a = ASSUMPTIONS;
  const headline = (shape: ProducerShape, apiGateway: boolean) =>
    lingerFor(1 / 8, { recordBytes: 1024, mbPerSecond: 1, partitions: 16, shape }, counted, { ...a, apiGateway });
  const show = (ms: number | undefined) => (ms === undefined ? 'not below 60 s' : `${ms} ms`);
  const check = (shape: ProducerShape, lingerMs: number) => {
    const l = lines.find((x) => x.workload.shape === shape && x.workload.recordBytes === 1024 && x.workload.mbPerSecond === 1 && x.workload.lingerMs === lingerMs)!;
    const ratio = l.kinesisOnDemand.ingest / l.ingest.total;
    return `${lingerMs} ms: 1/${fx(ratio, 1)} ${ratio >= 8 ? '(holds)' : '(does not hold)'}`;
  };
  const lingers = [...new Set(lines.map((l) => l.workload.lingerMs))];
  const m = counted.maintenance;
  const describe = (p: ProduceCounts) =>
    `${kinds(p.plain)} (${p.plainWriteUnits} write units) per request, + ${fx(p.spillWriteUnits, 0)} write units of spills in ${fx(p.spillsPerPartitionAppend * 100, 1)}% of requests = ${fx(produceWriteUnits(p), 2)} write units per request`;
  const jsonPath = breakdown.filter((r) => r.path === 'produce' && r.body === 'json');
  const httpCpu = jsonPath[jsonPath.length - 1]?.mainCpu;
  return [
    '## (d) Cost model: $ per GB (2^30 B of record values), 16 partitions',
    '',
    '### Headline check: Sluice ingest ≤ 1/8 of Kinesis on-demand ingest at 1 KB records and 1 MB/s',
    '',
    ...SHAPES.map((s) => `- ${s.label}: ${lingers.map((ms) => check(s.shape, ms)).join('; ')}.`),
    ...SHAPES.map(
      (s) =>
        `- Smallest client linger at which it holds, ${s.shape}: ${show(headline(s.shape, true))} through API Gateway; ${show(headline(s.shape, false))} with direct Lambda invoke (no API Gateway).`,
    ),
    '',
    ...SHAPES.map((s) => {
      const ms = headline(s.shape, true);
      const capped = modelCost({ recordBytes: 1024, mbPerSecond: 1, partitions: 16, shape: s.shape, lingerMs: 60_000 }, counted);
      return ms !== undefined
        ? `- ${s.shape}: holds from ${ms} ms of linger (at 1 MB/s: requests of ${fx(ms / 1000, 2)} MB and more).`
        : `- ${s.shape}: does not hold at any linger: requests are capped at ${MAX_REQUEST_BYTES / 2 ** 20} MiB, where it reaches 1/${fx(capped.kinesisOnDemand.ingest / capped.ingest.total, 1)}; ` +
            `each request pays ${fx(produceWriteUnits(counted.perProduce[s.shape]), 2)} DynamoDB write units besides its single S3 PUT.`;
    }),
    '',
    '### Table',
    '',
    'Sluice ingest per GB = produce requests per GB × the requests counted per produce (b) × list prices, + Lambda, + API Gateway,',
    '+ maintenance (merge, retention, sweep) scaled from the counted run. A client lingers `linger` and sends what it',
    `has as one request (capped at ${MAX_REQUEST_BYTES / 2 ** 20} MiB; above that it sends several full requests). ✓ = at most 1/8 of Kinesis on-demand.`,
    '',
    '| producer | record | rate | linger | request | produces/GB | S3 PUT | DynamoDB | Lambda | API GW | maintenance | **Sluice ingest** | Kinesis on-demand ingest | Sluice/Kinesis | Kinesis provisioned ingest (shards) | Sluice read tail / merged | Kinesis on-demand read |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    '### Prices and assumptions',
    '',
    `- Prices (us-east-1 list, USD, as written in bench/cost-model.ts; not fetched online): S3 PUT/LIST ${PRICES.s3Put * 1000}/1000, GET ${PRICES.s3Get * 1000}/1000, DELETE free, storage ${PRICES.s3StorageGbMonth}/GB-month;`,
    `  DynamoDB on-demand ${PRICES.ddbWriteUnit * 1e6}/M WRU (1 KB), ${PRICES.ddbReadUnit * 1e6}/M RRU (4 KB strongly consistent); Lambda arm64 ${PRICES.lambdaGbSecond}/GB-s + ${PRICES.lambdaRequest * 1e6}/M requests;`,
    `  API Gateway HTTP API ${PRICES.apiGatewayRequest * 1e6}/M requests, each metered per 512 KB (a produce body = values + ${JSON_BYTES_PER_RECORD} B of JSON per record; utf8 values, no base64);`,
    `  Kinesis on-demand ${PRICES.kinesisOnDemandIngestGb}/GB in, ${PRICES.kinesisOnDemandRetrievalGb}/GB out, ${PRICES.kinesisOnDemandStreamHour}/stream-hour (amortized over the GB/hour of the rate);`,
    `  Kinesis provisioned ${PRICES.kinesisShardHour}/shard-hour + ${PRICES.kinesisPutPayloadUnit * 1e6}/M PUT payload units (25 KB), one shard per partition (more for the 1 MB/s or 1000 records/s shard limits), reads included.`,
    `- Produce, counted in (b): keyed (the 16-partition row) ${describe(counted.perProduce.keyed)};`,
    `  keyless (the 1-partition row) ${describe(counted.perProduce.keyless)}. Without idempotent producers (their row in (b) shows what a sequence entry adds).`,
    `- Maintenance, from counted merge run ${requests.merge.length} of (b) (${m.partitions} partitions, ${m.intakeObjects} intake objects, ${m.replacedRanges} ranges, ${m.merges} merges; ${total(m.counts)} requests, ${m.writeUnits} write units, ${m.readUnits} read units):`,
    `  ${fx(m.intakeObjectsRead / m.intakeObjects, 2)} GET per intake object, i.e. per produce request; the item deletes per merged range; per merge its segment PUTs and merged item;`,
    `  per partition the rest (lease and STATE updates, snapshot reads, listings${m.segmentObjectsRead > 0 ? ', GETs of merged segments merged again' : ''}), DynamoDB at the units the run consumed per request.`,
    `  Modeled on top: one run every ${a.maintenanceIntervalSeconds} s (infra's schedule), one merge per partition per run (more when a partition gets over`,
    `  ${a.maxMergeBytes / 2 ** 20} MiB per interval); retention (not counted here) one item delete + one STATE update per partition per run.`,
    `- Lambda ${a.lambdaGb} GB; a produce runs ${a.produceBaseMs} ms + ${a.produceMsPerMb} ms/MB, a fetch ${a.fetchMs} ms (assumed, not measured here` +
      (httpCpu !== undefined ? `; locally the whole JSON produce path, client and HTTP included, used ${fx(httpCpu)} ms of CPU per MiB in (c)` : '') +
      ').',
    `- Read: a tailing consumer's fetch reads one produce range of its partition as it lands (request size / 16 keyed, the whole request keyless,`,
    `  at most maxBytes ${a.fetchMaxBytes / 2 ** 20} MiB) at the counted cost of a one-range tail fetch in (b) (${kinds(counted.perFetchTail)}); a fetch of merged data returns maxBytes`,
    `  at the counted cost of a repeated fetch in a merged segment (${kinds(counted.perFetchMerged)}). Each fetch also pays one Lambda invocation (+ API Gateway).`,
    `- Storage is billed separately and alike for both: ${usd(lines[0]?.storagePerGb ?? 0)} per GB for ${a.retentionDays} days of retention in S3 (Kinesis includes 24 h).`,
    '- Kinesis on-demand also rounds each record up to 1 KB, which does not change these rows (records of 1 KB and more).',
  ].join('\n');
}

function produceCounts(p: ProduceShape): ProduceCounts {
  return { plain: p.plain, plainWriteUnits: p.writeUnits.plain, spillWriteUnits: p.writeUnits.spill, spillsPerPartitionAppend: p.spillsPerPartitionAppend };
}

/** What the cost model takes from section (b)'s counts. */
function countedFrom(requests: RequestsResult): CountedRequests {
  const steady = requests.merge[requests.merge.length - 1];
  // The one-range tail fetch (the newest offset) and the repeated fetch in a merged segment, of the longest log.
  const longest = Math.max(...requests.fetch.map((f) => f.batches));
  const ofLongest = requests.fetch.filter((f) => f.batches === longest && f.stage === 'after a maintenance run');
  const tailFetch = ofLongest.find((f) => f.where === 'tail')!;
  const mergedFetch = ofLongest.filter((f) => f.where === 'merged segment').sort((x, y) => total(y.again) - total(x.again))[0];
  return {
    perProduce: {
      keyed: produceCounts(requests.produce.find((p) => p.partitions === 16 && !p.idempotent)!),
      keyless: produceCounts(requests.produce.find((p) => p.partitions === 1 && !p.idempotent)!),
    },
    perFetchTail: tailFetch.again,
    perFetchMerged: mergedFetch.again,
    maintenance: {
      partitions: steady.partitions,
      merges: steady.merge.merges,
      replacedRanges: steady.merge.replacedRanges,
      intakeObjects: steady.intakeObjects,
      intakeObjectsRead: steady.merge.intakeObjectsRead,
      segmentObjectsRead: steady.merge.segmentObjectsRead,
      counts: steady.counts,
      writeUnits: steady.writeUnits,
      readUnits: steady.readUnits,
    },
  };
}

/**
 * `SLUICE_BENCH_ONLY=kafka-gateway npm run bench`: only the Kafka gateway section, with the request
 * counts (b) its model needs, printed; bench/results.md is left as it is.
 */
async function kafkaGatewayOnly(): Promise<void> {
  progress('starting the embedded emulators in a child process');
  const storage = await startBenchStorage();
  let requests: RequestsResult;
  let kafkaGateway: KafkaGatewayBenchResult;
  try {
    requests = await benchRequests(storage, progress);
    kafkaGateway = await benchKafkaGateway(storage, progress);
  } finally {
    await storage.close();
  }
  console.log(`\n${kafkaGatewaySection(kafkaGateway, countedFrom(requests))}\n`);
}

async function main(): Promise<void> {
  const machine = describeMachine();
  const previous = previousRatios();
  progress(`machine: ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}, load ${machine.loadAverage}`);

  const codec: CodecResult[] = [];
  for (const size of [100, 1024, 10240]) {
    progress(`codec at ${size} B records`);
    codec.push(await benchCodec(size, 1500));
  }

  progress('starting the embedded emulators in a child process');
  const storage = await startBenchStorage();
  let requests: RequestsResult;
  let throughput: ThroughputResult;
  let breakdown: BreakdownRow[];
  let multiWriter: MultiWriterResult;
  let compaction: CompactionResult;
  let subscriptions: SubscriptionBenchResult;
  let kafkaGateway: KafkaGatewayBenchResult;
  try {
    // First, while the emulators hold no data: its ratio compares CPU-bound sides, and the
    // emulators' growing stores would weigh on the side with more processes.
    multiWriter = await benchMultiWriter(storage, 15, progress);
    requests = await benchRequests(storage, progress);
    throughput = await benchThroughput(storage, 5, 8, progress);
    progress('CPU breakdown: log layer, + handler, + HTTP');
    breakdown = await benchBreakdown(storage, 3, 8);
    compaction = await benchCompaction(storage, progress);
    subscriptions = await benchSubscriptions(storage, progress);
    kafkaGateway = await benchKafkaGateway(storage, progress);
  } finally {
    await storage.close();
  }

  progress('cost model');
  const counted = countedFrom(requests);
  const lines: CostLine[] = [];
  for (const { shape } of SHAPES) {
    for (const recordBytes of [1024, 10240]) {
      for (const mbPerSecond of [1, 10]) {
        for (const lingerMs of [100, 1000, 5000]) lines.push(modelCost({ recordBytes, mbPerSecond, partitions: 16, shape, lingerMs }, counted));
      }
    }
  }

  const markdown = [
    '# Sluice benchmark results',
    '',
    'Written by `npm run bench` (bench/run.ts). Numbers from one run on a shared machine (other processes may be running: see the',
    'load average); compare ratios measured in the same run, which alternate the two sides.',
    '',
    '## Machine',
    '',
    machineMarkdown(machine, loadAverageNow()),
    '',
    codecSection(codec),
    '',
    requestsSection(requests, TOPIC_CACHE_MS),
    '',
    throughputSection(throughput, breakdown, requests, previous),
    '',
    costSection(lines, counted, requests, breakdown),
    '',
    multiWriterSection(multiWriter),
    '',
    compactionSection(compaction),
    '',
    subscriptionsSection(subscriptions),
    '',
    kafkaGatewaySection(kafkaGateway, counted),
    '',
  ].join('\n');
  writeFileSync(new URL('./results.md', import.meta.url), markdown);
  progress('wrote bench/results.md');
}

const only = process.env.SLUICE_BENCH_ONLY;
if (only === undefined || only === '') await main();
else if (only === 'kafka-gateway') await kafkaGatewayOnly();
else throw new Error(`SLUICE_BENCH_ONLY=${only}: the sections that run alone are: kafka-gateway`);
