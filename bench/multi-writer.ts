// Many writers (issue 12): the same clients against 1 and against 3 `npm start` server processes
// (lib/local/main.ts, separate OS processes, each its own writer as a warm Lambda container is) on
// one storage endpoint. The ratio of acknowledged records per second, 3 processes over 1, says
// whether adding writers costs throughput; the first-try rate says whether writers refuse each
// other's work. The workload and its accounting are test/support/produce-workload.ts, the one
// test/local/multi-writer.test.ts runs, so the bench measures what the test asserts.
//
// Run alone (prints the section): NODE_OPTIONS=--openssl-legacy-provider npx tsx bench/multi-writer.ts [seconds per side]
import { pathToFileURL } from 'node:url';
import { ProduceLedger, type RunStats } from '../test/support/produce-workload.js';
import { ServerProcesses } from '../test/support/server-processes.js';
import { startBenchStorage, type BenchStorage } from './storage.js';

const CLIENTS = 6;
const RECORDS_PER_REQUEST = 32;
const PARTITIONS = 16;
const ROUNDS = 3;
/**
 * Unmeasured warm-up per side: long enough that each of 3 processes, which gets a third of the
 * requests, has compiled its hot paths as the single process has.
 */
const WARM_UP_MS = 6000;
/** Issue 12's bar for the ratio of acknowledged records per second, 3 processes / 1. */
const REQUIRED_RATIO = 0.8;

export interface MultiWriterSide {
  readonly processes: number;
  readonly requests: number;
  readonly firstTry: number;
  readonly firstTryPartial: number;
  readonly attempts: number;
  readonly failed: number;
  readonly acknowledgedRecords: number;
  readonly seconds: number;
  readonly errors: Readonly<Record<string, number>>;
}

export interface MultiWriterResult {
  readonly clients: number;
  readonly recordsPerRequest: number;
  readonly partitions: number;
  readonly rounds: number;
  readonly secondsPerSide: number;
  readonly single: MultiWriterSide;
  readonly multi: MultiWriterSide;
}

const perSecond = (s: MultiWriterSide) => s.acknowledgedRecords / s.seconds;
export const throughputRatio = (r: MultiWriterResult) => perSecond(r.multi) / perSecond(r.single);

function sum(runs: readonly RunStats[]): MultiWriterSide {
  const errors: Record<string, number> = {};
  for (const r of runs) for (const [code, n] of Object.entries(r.errors)) errors[code] = (errors[code] ?? 0) + n;
  const total = (f: (r: RunStats) => number) => runs.reduce((a, r) => a + f(r), 0);
  return {
    processes: runs[0].processes,
    requests: total((r) => r.requests),
    firstTry: total((r) => r.firstTry),
    firstTryPartial: total((r) => r.firstTryPartial),
    attempts: total((r) => r.attempts),
    failed: total((r) => r.failed),
    acknowledgedRecords: total((r) => r.acknowledgedRecords),
    seconds: total((r) => r.seconds),
    errors,
  };
}

/** One side: `processes` servers on their own bucket and table, one topic, its own ledger. */
async function startSide(storage: BenchStorage, processes: number) {
  const ctx = await storage.newContext();
  const servers = new ServerProcesses({ s3Endpoint: storage.s3Endpoint, dynamodbEndpoint: storage.dynamodbEndpoint, bucket: ctx.bucket, table: ctx.table });
  const urls = (await servers.start(processes)).map((p) => p.url);
  const topic = 'orders';
  const created = await fetch(`${urls[0]}/v1/topics`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: topic, partitions: PARTITIONS }) });
  if (created.status !== 201) throw new Error(`topic not created: ${created.status} ${await created.text()}`);
  const ledger = new ProduceLedger(topic, RECORDS_PER_REQUEST);
  const run = (ms: number) => ledger.run({ targets: () => urls, clients: CLIENTS, durationMs: ms });
  return { servers, urls, run };
}

/**
 * Both sides run at once (4 server processes; the idle side costs next to nothing) and alternate in
 * ROUNDS rounds, so load from elsewhere on a shared machine hits both alike.
 */
export async function benchMultiWriter(storage: BenchStorage, seconds: number, progress: (step: string) => void): Promise<MultiWriterResult> {
  progress('many writers: starting 1 + 3 server processes (npm start) on the emulators');
  const sides = await Promise.all([startSide(storage, 1), startSide(storage, 3)]);
  try {
    // Not measured: JIT, the topic cache of each process, connections, and (today) leases.
    for (const side of sides) await side.run(WARM_UP_MS);
    const runs: RunStats[][] = [[], []];
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < sides.length; i++) {
        progress(`many writers: round ${round + 1} of ${ROUNDS}, ${sides[i].urls.length} process(es), ${CLIENTS} clients, ${((seconds / ROUNDS)).toFixed(1)} s`);
        runs[i].push(await sides[i].run((seconds * 1000) / ROUNDS));
      }
    }
    const [single, multi] = runs.map(sum);
    return { clients: CLIENTS, recordsPerRequest: RECORDS_PER_REQUEST, partitions: PARTITIONS, rounds: ROUNDS, secondsPerSide: seconds, single, multi };
  } finally {
    await Promise.all(sides.map((s) => s.servers.close()));
  }
}

export function multiWriterSection(r: MultiWriterResult): string {
  const fx = (n: number, digits = 1) => n.toFixed(digits);
  const pct = (n: number, of: number) => `${fx(of === 0 ? 0 : (100 * n) / of)}%`;
  const ratio = throughputRatio(r);
  const errors = (s: MultiWriterSide) =>
    Object.entries(s.errors)
      .map(([code, n]) => `${code} ${n}`)
      .join(', ') || 'none';
  const row = (s: MultiWriterSide) =>
    `| ${s.processes} | ${s.requests} | ${pct(s.firstTry, s.requests)} | ${pct(s.firstTryPartial, s.requests)} | ${s.attempts} | ${fx(s.attempts / Math.max(1, s.requests), 2)} | ${s.failed} | ${fx(perSecond(s), 0)} | ${errors(s)} |`;
  return [
    `## (e) Many writers: ${r.multi.processes} server processes vs ${r.single.processes} on one storage endpoint`,
    '',
    `**Acknowledged records per second, ${r.multi.processes} processes / ${r.single.processes}: ${fx(ratio, 2)}** ` +
      `(issue 12 requires at least ${REQUIRED_RATIO}: ${ratio >= REQUIRED_RATIO ? 'holds' : 'does not hold'}). ` +
      `With ${r.multi.processes} processes ${pct(r.multi.firstTry, r.multi.requests)} of requests were acknowledged in full on the first try ` +
      `(test/local/multi-writer.test.ts requires at least 99%), with ${r.single.processes}: ${pct(r.single.firstTry, r.single.requests)}.`,
    '',
    `\`npm start\` servers (lib/local/main.ts) as separate OS processes, each its own writer as a warm Lambda container is, all on`,
    `the embedded emulators in their own process; ${r.clients} clients in this process send keyed JSON produce requests of ${r.recordsPerRequest} records`,
    `(random keys, so murmur2 spreads each request over most of the ${r.partitions} partitions) one after another, each to the next process in turn.`,
    'A retriable failure (a whole request, or some of its partitions) is retried with the failed records only, at the next process, after',
    'the Sluice client\'s backoff. "first try": every record acknowledged by the first attempt; "in part": the first attempt was answered',
    `200 with some partitions failed. The sides alternate in ${r.rounds} rounds (${r.secondsPerSide} s per side in all, after a ${WARM_UP_MS / 1000} s warm-up each);`,
    'a request started in a round finishes, retries included, before the next round, and its time counts.',
    '',
    '| processes | requests | first try | first try in part | attempts | attempts per request | failed | records acknowledged per second | errors (per failed partition of an attempt) |',
    '|---|---|---|---|---|---|---|---|---|',
    row(r.single),
    row(r.multi),
    '',
    'The log is not read back here (with tail fetches of a few records each it would take longer than the run): the same workload in',
    'test/local/multi-writer.test.ts checks that every acknowledged record is in the log once, at its acknowledged offset.',
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const seconds = Number(process.argv[2] ?? 15);
  const started = performance.now();
  const progress = (step: string) => console.error(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)}s] ${step}`);
  const storage = await startBenchStorage();
  try {
    console.log(multiWriterSection(await benchMultiWriter(storage, seconds, progress)));
  } finally {
    await storage.close();
  }
}
