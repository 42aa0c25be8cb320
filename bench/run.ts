// `npm run bench`: codec, request counts, local end-to-end throughput, the cost model and many
// writers (1 vs 3 server processes), written to bench/results.md with the machine described.
// Prints progress; about 3 minutes on 2 cores.
import { writeFileSync } from 'node:fs';
import { benchBreakdown, type BreakdownRow } from './breakdown.js';
import { benchCodec, type CodecResult } from './codec.js';
import {
  ASSUMPTIONS,
  JSON_BYTES_PER_RECORD,
  MAX_REQUEST_BYTES,
  PRICES,
  lingerFor,
  modelCost,
  type CostLine,
  type CountedRequests,
  type ProduceCounts,
  type ProducerShape,
} from './cost-model.js';
import { describeMachine, machineMarkdown } from './machine.js';
import { benchMultiWriter, multiWriterSection, type MultiWriterResult } from './multi-writer.js';
import { benchRequests, type RequestsResult } from './requests.js';
import { startBenchStorage } from './storage.js';
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
    'Sluice\'s CRC-32C is slicing-by-16 over aligned 32-bit words (lib/records/crc32c.ts); at 10 KB records decoding is',
    'CRC-bound, which is why the raw decode ratio (kafkajs skipping the check and only slicing buffers) falls below 1.',
  ].join('\n');
}

function requestsSection(r: RequestsResult): string {
  return [
    '## (b) Storage requests per produce, per fetch and per maintenance run (counted at the endpoints by an SDK middleware)',
    '',
    'Warm produce requests (leases held), 4 records of 1 KB per partition, averaged over 20 requests:',
    '',
    '| partitions touched | requests per produce | by kind |',
    '|---|---|---|',
    ...r.produce.map((p) => `| ${p.partitions}${p.idempotent ? ' (idempotent producer)' : ''} | ${p.requests} | ${kinds(p.perRequest)} |`),
    '',
    'Fetch (maxBytes 1 MiB) in a partition of 300 produce ranges (300 single-partition produce requests; the newest few are listed in',
    'STATE\'s tail, so a fetch there skips the manifest Query):',
    '',
    '| offset | requests | by kind |',
    '|---|---|---|',
    ...r.fetch.map((f) => `| ${f.offset} | ${Object.values(f.perFetch).reduce((a, b) => a + b, 0)} | ${kinds(f.perFetch)} |`),
    '',
    'S3 bytes stored per record (RecordBatch framing included; key `k<n>-<i>`, no headers):',
    '',
    '| value size | records per partition batch | S3 bytes per record |',
    '|---|---|---|',
    ...r.storedBytes.map((s) => `| ${s.valueBytes} B | ${s.recordsPerBatch} | ${s.s3BytesPerRecord} |`),
    '',
    'DynamoDB write units per produce, as the endpoint reported them consumed (a write is billed in 1 KB units of the item), and the',
    'largest items seen after any request: the commit rewrites STATE, whose tail lists the newest ranges; a full tail is spilled into one SEG item.',
    '',
    '| partitions touched | largest STATE item | largest SEG item | DynamoDB write units per produce |',
    '|---|---|---|---|',
    ...r.produce.map(
      (p) => `| ${p.partitions}${p.idempotent ? ' (idempotent producer)' : ''} | ${p.largestItems.state} B | ${p.largestItems.segment} B | ${p.writeUnits} |`,
    ),
    '',
    'Maintenance runs (runMaintenance: retention, compaction, sweep) over a 16-partition topic, each run after',
    `${r.maintenance[0]?.producesBefore} produce requests touching all 16 partitions (16 records of 1 KB each per partition); run 2 is the steady state`,
    '(it also re-merges run 1\'s segment, by compaction\'s half-size rule):',
    '',
    '| run | merges | items replaced | produce ranges they listed | MiB rewritten | requests | by kind |',
    '|---|---|---|---|---|---|---|',
    ...r.maintenance.map(
      (m) =>
        `| ${m.run} | ${m.merges} | ${m.replacedItems} | ${m.replacedRanges} | ${fx(m.rewrittenBytes / 2 ** 20, 1)} | ${Object.values(m.counts).reduce((a, b) => a + b, 0)} | ${kinds(m.counts)} |`,
    ),
  ].join('\n');
}

function breakdownSection(rows: BreakdownRow[], t: ThroughputResult): string {
  const raw = (path: string) => t.rows.find((r) => r.path === path)!;
  const put = raw('produce, keyless (sticky)').rawCpu;
  const get = raw('fetch compacted').rawCpu;
  return [
    'Where the CPU goes: the same keyless 1 MiB produce (1024 × 1 KiB, one partition) and 1 MiB fetch, measured at three depths',
    `(8 concurrent callers, CPU ms per MiB of record values; for comparison raw S3 PUT ${fx(put.main)} / ${fx(put.emulators)} and raw ranged GET ${fx(get.main)} / ${fx(get.emulators)}`,
    'main / emulators, from the table above). The "+ handler" fetch rows include the caller\'s decoding of the response (JSON.parse, or the',
    'batches decoded with their CRC checked), as a client must.',
    'Read the CPU columns: the MB/s of these short single runs swing with the machine\'s load.',
    '',
    '| path | body | depth | MB/s | CPU ms/MiB main | CPU ms/MiB emulators |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.path} | ${r.body === 'json' ? 'JSON' : 'record batches'} | ${r.depth} | ${fx(r.mbps)} | ${fx(r.mainCpu)} | ${fx(r.emulatorCpu)} |`),
  ].join('\n');
}

function throughputSection(t: ThroughputResult, breakdown: BreakdownRow[]): string {
  const depth = (path: 'produce' | 'fetch', body: 'json' | 'batches', i: number) => breakdown.filter((r) => r.path === path && r.body === body)[i];
  const added = (path: 'produce' | 'fetch', body: 'json' | 'batches', i: number) =>
    fx(depth(path, body, i).mainCpu - (i === 0 ? 0 : depth(path, body, i - 1).mainCpu));
  const rawPut = t.rows.find((r) => r.path === 'produce, keyless (sticky)')!.rawCpu;
  const rawGet = t.rows.find((r) => r.path === 'fetch compacted')!.rawCpu;
  const pct = (a: number, b: number) => `**${fx((100 * a) / b, 0)}%**`;
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
    'This machine is shared: between runs the ratios moved by several points (tail fetches by up to ±10); the CPU columns are steadier.',
    'CPU columns: CPU ms spent per MiB moved, in this process (clients + handlers; raw: the SDK client) and in the emulator process.',
    '',
    '| path | Sluice request | raw request | Sluice MB/s | raw MB/s | ratio | CPU ms/MiB Sluice: main / emulators | raw: main / emulators | requests Sluice / raw |',
    '|---|---|---|---|---|---|---|---|---|',
    ...t.rows.map(
      (r) =>
        `| ${r.path} | ${r.shape} | ${r.raw} | ${fx(r.sluiceMBps)} | ${fx(r.rawMBps)} | ${pct(r.sluiceMBps, r.rawMBps)} | ${fx(r.sluiceCpu.main)} / ${fx(r.sluiceCpu.emulators)} | ${fx(r.rawCpu.main)} / ${fx(r.rawCpu.emulators)} | ${r.sluiceRequests} / ${r.rawRequests} |`,
    ),
    '',
    `Compaction before the last rows: ${t.compaction.merges} merges of ${t.compaction.replacedItems} items, ${fx(t.compaction.rewrittenBytes / 2 ** 20, 0)} MiB rewritten.`,
    '',
    breakdownSection(breakdown, t),
    '',
    'Where the time goes (both processes share 2 cores, so the runs are CPU-bound and a ratio is roughly the ratio of total',
    'CPU per MiB, raw ÷ Sluice; the breakdown above splits Sluice\'s CPU by layer):',
    '',
    `- Produce, JSON: the log layer alone (encode + CRC-32C, one S3 PUT, the STATE commit through the SDK) costs ${added('produce', 'json', 0)} ms/MiB`,
    `  here against ${fx(rawPut.main)} for a raw PUT; the handler (JSON parse, validation, a Buffer per value, the offsets answer) adds`,
    `  ${added('produce', 'json', 1)}; HTTP (the client's JSON body, loopback, the server reading it, the response) adds ${added('produce', 'json', 2)}.`,
    `- Produce, record batches: no encoding in the log layer (${added('produce', 'batches', 0)} ms/MiB, the caller's copy of the batch included: a lone`,
    `  batch is the object's body, stamped in place); the handler checks every batch (CRC-32C, every record's structure) for ${added('produce', 'batches', 1)}; HTTP adds ${added('produce', 'batches', 2)}`,
    '  (locally the body travels base64 in the API Gateway event, as in AWS).',
    '- Keyed produce: each request also makes 16 STATE commits (see b); each DynamoDB call costs SDK CPU here and dynalite CPU in',
    '  the child. In AWS those calls run in parallel and cost no Lambda CPU to speak of.',
    `- Fetch, JSON: the log layer (storage requests, decode + CRC-32C) costs ${added('fetch', 'json', 0)} ms/MiB against ${fx(rawGet.main)} for a raw ranged GET;`,
    `  the JSON API (a string per value, the response serialized, and parsed by the client) adds ${added('fetch', 'json', 1)}; HTTP adds ${added('fetch', 'json', 2)}.`,
    `- Fetch, record batches: the stored batches go out as they are (${added('fetch', 'batches', 0)} + ${added('fetch', 'batches', 1)} + ${added('fetch', 'batches', 2)} ms/MiB by layer; the client checks the CRC).`,
    '- Tail fetch of keyed data: one fetch answers from at most two produce ranges (~64 KiB each here) found in STATE\'s tail,',
    '  each in its own object: 3 storage requests (STATE, two ranged GETs in parallel) + 1 HTTP request for 128 KiB; the raw',
    '  side reads 64 KiB with 1 request. Compaction merges those ranges, after which fetches fill maxBytes again (the compacted rows).',
  ].join('\n');
}


const SHAPES: { shape: ProducerShape; label: string }[] = [
  { shape: 'keyed', label: 'keyed (16 partitions per request)' },
  { shape: 'keyless', label: 'keyless sticky (1 partition per request)' },
];

function costSection(lines: CostLine[], counted: CountedRequests): string {
  const rows = lines.map((l) => {
    const w = l.workload;
    const ratio = l.kinesisOnDemand.ingest / l.ingest.total;
    return `| ${w.shape} | ${w.recordBytes / 1024} KB | ${w.mbPerSecond} MB/s | ${w.lingerMs} ms | ${fx(l.requestBytes / 2 ** 20, 2)} MB | ${fx(l.produceRequestsPerGb, 0)} | ${usd(l.ingest.s3Put)} | ${usd(l.ingest.dynamodb)} | ${usd(l.ingest.lambda)} | ${usd(l.ingest.apiGateway)} | ${usd(l.ingest.maintenance)} | **${usd(l.ingest.total)}** | ${usd(l.kinesisOnDemand.ingest)} | **1/${fx(ratio, 1)}**${ratio >= 8 ? ' ✓' : ''} | ${usd(l.kinesisProvisioned.ingest)} (${l.kinesisProvisioned.shards}) | ${usd(l.readTail)} / ${usd(l.readCompacted)} | ${usd(l.kinesisOnDemand.read)} |`;
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
            `each request touching 16 partitions pays ${fx(counted.perProduce.keyed.writeUnits, 1)} DynamoDB write units (16 STATE commits + spills) besides its single S3 PUT, ` +
            'and compaction pays a ranged GET for each of its 16 ranges.';
    }),
    '',
    '### Table',
    '',
    'Sluice ingest per GB = produce requests per GB × the requests counted per produce (b) × list prices, + Lambda, + API Gateway,',
    '+ maintenance (compaction, retention, sweep) scaled from the counted steady-state run. A client lingers `linger` and sends what it',
    `has as one request (capped at ${MAX_REQUEST_BYTES / 2 ** 20} MiB; above that it sends several full requests). ✓ = at most 1/8 of Kinesis on-demand.`,
    '',
    '| producer | record | rate | linger | request | produces/GB | S3 PUT | DynamoDB | Lambda | API GW | maintenance | **Sluice ingest** | Kinesis on-demand ingest | Sluice/Kinesis | Kinesis provisioned ingest (shards) | Sluice read tail / compacted | Kinesis on-demand read |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    '### Prices and assumptions',
    '',
    `- Prices (us-east-1 list, USD; not fetched online, this machine has no internet): S3 PUT/LIST ${PRICES.s3Put * 1000}/1000, GET ${PRICES.s3Get * 1000}/1000, DELETE free, storage ${PRICES.s3StorageGbMonth}/GB-month;`,
    `  DynamoDB on-demand ${PRICES.ddbWriteUnit * 1e6}/M WRU (1 KB), ${PRICES.ddbReadUnit * 1e6}/M RRU (4 KB strongly consistent); Lambda arm64 ${PRICES.lambdaGbSecond}/GB-s + ${PRICES.lambdaRequest * 1e6}/M requests;`,
    `  API Gateway HTTP API ${PRICES.apiGatewayRequest * 1e6}/M requests, each metered per 512 KB (a produce body = values + ${JSON_BYTES_PER_RECORD} B of JSON per record; utf8 values, no base64);`,
    `  Kinesis on-demand ${PRICES.kinesisOnDemandIngestGb}/GB in, ${PRICES.kinesisOnDemandRetrievalGb}/GB out, ${PRICES.kinesisOnDemandStreamHour}/stream-hour (amortized over the GB/hour of the rate);`,
    `  Kinesis provisioned ${PRICES.kinesisShardHour}/shard-hour + ${PRICES.kinesisPutPayloadUnit * 1e6}/M PUT payload units (25 KB), one shard per partition (more for the 1 MB/s or 1000 records/s shard limits), reads included.`,
    '- Counted (b): requests per produce (keyed = the 16-partition row, keyless = the 1-partition row), per fetch, and per maintenance run.',
    '  Produce writes cost the write units of (b), as the endpoint reported them, without idempotent producers (the idempotent row of (b) shows',
    '  what one producer\'s sequence entry on every STATE adds); every maintenance item < 1 KB; every GetItem/Query 1 RRU.',
    `- Maintenance, from counted run 2 (${m.merges} merges, ${m.replacedItems} items replaced, listing ${m.replacedRanges} produce ranges): per replaced range its ranged GET and its share of an item delete;`,
    `  per merge its segment PUTs (.log/.index/.timeindex), merged item and STATE update; per partition per run the snapshot reads and listings.`,
    `  Modeled on top: one run every ${a.maintenanceIntervalSeconds} s (infra's schedule), one merge per partition per run (more when a partition gets over`,
    `  ${a.maxMergeBytes / 2 ** 20} MiB per interval), every produce range replaced once; retention (not counted here) one item delete + one STATE update per partition per run.`,
    `- Lambda ${a.lambdaGb} GB; a produce runs ${a.produceBaseMs} ms + ${a.produceMsPerMb} ms/MB (storage round trips dominate; locally the handler + client spent ~14 ms CPU per MiB, see c), a fetch ${a.fetchMs} ms.`,
    '  Lease acquisitions (one per partition per lease period while a writer is idle) are ignored.',
    `- Read: a tailing consumer's fetch answers from one produce range of its partition (request size / 16 for keyed, the whole request for keyless,`,
    `  at most maxBytes ${a.fetchMaxBytes / 2 ** 20} MiB), found in STATE's tail (the counted fetch at the newest offset); a fetch of compacted data returns maxBytes`,
    '  from a SEG item (the counted fetch at the oldest offset). Each fetch is the counted requests + one Lambda invocation (+ API Gateway).',
    `- Storage is billed separately and alike for both: ${usd(lines[0]?.storagePerGb ?? 0)} per GB for ${a.retentionDays} days of retention in S3 (Kinesis includes 24 h).`,
    '- Kinesis on-demand also rounds each record up to 1 KB; irrelevant at these record sizes.',
  ].join('\n');
}

function produceCounts(p: RequestsResult['produce'][number]): ProduceCounts {
  return { requests: p.perRequest, writeUnits: p.writeUnits };
}

async function main(): Promise<void> {
  const machine = describeMachine();
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
  try {
    requests = await benchRequests(storage, progress);
    throughput = await benchThroughput(storage, 5, 8, progress);
    progress('CPU breakdown: log layer, + handler, + HTTP');
    breakdown = await benchBreakdown(storage, 3, 8);
    multiWriter = await benchMultiWriter(storage, 15, progress);
  } finally {
    await storage.close();
  }

  progress('cost model');
  const steady = requests.maintenance[requests.maintenance.length - 1];
  const counted: CountedRequests = {
    perProduce: {
      keyed: produceCounts(requests.produce.find((p) => p.partitions === 16 && !p.idempotent)!),
      keyless: produceCounts(requests.produce.find((p) => p.partitions === 1 && !p.idempotent)!),
    },
    // The newest offset is in STATE's tail; the oldest in a SEG item (as compacted data is).
    perFetchTail: requests.fetch[requests.fetch.length - 1].perFetch,
    perFetchItem: requests.fetch[0].perFetch,
    maintenance: {
      partitions: steady.partitions,
      merges: steady.merges,
      replacedItems: steady.replacedItems,
      replacedRanges: steady.replacedRanges,
      counts: steady.counts,
    },
  };
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
    machineMarkdown(machine),
    '',
    codecSection(codec),
    '',
    requestsSection(requests),
    '',
    throughputSection(throughput, breakdown),
    '',
    costSection(lines, counted),
    '',
    multiWriterSection(multiWriter),
    '',
  ].join('\n');
  writeFileSync(new URL('./results.md', import.meta.url), markdown);
  progress('wrote bench/results.md');
}

await main();
