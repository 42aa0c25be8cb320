// The Kafka gateway (issue 14 point 4): a kafkajs producer through the gateway against the HTTP
// produce path (record-batches body through the router, in process), records per second in the
// same run; produce requests and distinct partitions per intake object when 8 kafkajs producers
// send small batches at once, at the default gateway linger and at a long one (the batching
// window); the same producer over TLS (in the task) beside plain TCP; and the modeled $/GB of gateway ingest beside Kinesis on-demand with section (d)'s cost
// model (no Lambda, no API Gateway: Fargate tasks reached through an NLB, or directly through Cloud
// Map's DNS with TLS in the task), every sentence generated from the numbers.
import { readFileSync } from 'node:fs';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { Kafka, type Message, Partitioners, type Producer, logLevel } from 'kafkajs';
import { KAFKA_GATEWAY_DEFAULTS } from '../infra/sluice-kafka-gateway.js';
import { handleHttp } from '../lib/api/router.js';
import type { SluiceContext } from '../lib/context.js';
import { type KafkaGateway, startKafkaGateway } from '../lib/kafka/server.js';
import { DEFAULT_BATCH_BYTES, DEFAULT_LINGER_MS } from '../lib/kafka/produce-batcher.js';
import { intakeFolder } from '../lib/log/segment-name.js';
import { createTopic } from '../lib/metadata/topics.js';
import { RECORD_BATCHES_MEDIA_TYPE, encodeBatchFrames } from '../lib/records/batch-frames.js';
import { encodeRecordBatch } from '../lib/records/index.js';
import { type CountedRequests, distinctPartitions, modelCost } from './cost-model.js';
import type { BenchStorage } from './storage.js';

/**
 * List prices of the gateway's deployment, USD, us-east-1 (as known; not fetched online): assumptions,
 * printed with the tables. Fargate arm64 per vCPU-hour and GB-hour. The NLB mode: an NLB per hour and
 * its NLCUs; for TCP (and TLS) one NLCU-hour covers 1 GB processed, which at these rates is the binding
 * dimension, so every GB through the NLB costs one NLCU-hour. The direct mode (no load balancer):
 * Cloud Map's private DNS namespace is a Route 53 private hosted zone per month, each registered
 * instance (a task) per month, and the Secrets Manager secret holding the TLS certificate and key per
 * month. Cross-AZ data transfer is billed per GB in each direction (out of one zone and into the other).
 */
export const GATEWAY_PRICES = {
  fargateVcpuHour: 0.03238,
  fargateGbHour: 0.00356,
  nlbHour: 0.0225,
  nlcuHour: 0.006,
  nlcuGbPerHour: 1,
  privateHostedZoneMonth: 0.5,
  cloudMapInstanceMonth: 0.1,
  secretMonth: 0.4,
  crossAzGbEachWay: 0.01,
} as const;
/** Monthly prices are spread over this many hours. */
export const HOURS_PER_MONTH = 730;
/** The clients' linger in every row: a request carries this much of the traffic (Kafka's linger.ms). */
export const CLIENT_LINGER_MS = 100;
/** The gateway lingers modeled, the default first. */
export const GATEWAY_LINGERS_MS = [DEFAULT_LINGER_MS, 250, 500, 1000, 2000, 5000] as const;

/** A gateway deployment: `tasks` Fargate tasks of `vcpu` vCPUs and `gb` GB each. */
export interface GatewayDeployment {
  readonly name: string;
  readonly tasks: number;
  readonly vcpu: number;
  readonly gb: number;
}

/** The smallest deployment the construct accepts: one task of Fargate's smallest size, autoscaling pinned to it. */
export const SMALLEST_GATEWAY_PROPS = { desiredCount: 1, minCapacity: 1, maxCapacity: 1, cpu: 256, memoryLimitMiB: 512 } as const;

const deploymentOf = (name: string, props: { readonly desiredCount: number; readonly cpu: number; readonly memoryLimitMiB: number }): GatewayDeployment => ({
  name,
  tasks: props.desiredCount,
  vcpu: props.cpu / 1024,
  gb: props.memoryLimitMiB / 1024,
});
export const SMALLEST_DEPLOYMENT = deploymentOf('smallest', SMALLEST_GATEWAY_PROPS);
export const DEFAULT_DEPLOYMENT = deploymentOf('construct default', KAFKA_GATEWAY_DEFAULTS);

/**
 * The deployment `mbPerSecond` needs when one vCPU carries `mbPerVcpu`: at least the smallest
 * deployment; tasks of at most the default task's vCPUs (the gateway is one Node process, which
 * uses one core), memory at the default task's GB per vCPU.
 */
export function sizedDeployment(mbPerSecond: number, mbPerVcpu: number): GatewayDeployment {
  const vcpu = Math.max(SMALLEST_DEPLOYMENT.vcpu, mbPerSecond / mbPerVcpu);
  const tasks = Math.ceil(vcpu / DEFAULT_DEPLOYMENT.vcpu);
  const perTask = vcpu / tasks;
  return { name: 'sized by rate', tasks, vcpu: perTask, gb: Math.max(SMALLEST_DEPLOYMENT.gb, (perTask * DEFAULT_DEPLOYMENT.gb) / DEFAULT_DEPLOYMENT.vcpu) };
}

/** How clients reach the tasks: through a Network Load Balancer, or directly (Cloud Map DNS, TLS in the task). */
export type GatewayMode = 'nlb' | 'direct';
export const GATEWAY_MODES: readonly { readonly mode: GatewayMode; readonly label: string; readonly access: string }[] = [
  { mode: 'nlb', label: 'NLB mode', access: 'NLB + NLCU' },
  { mode: 'direct', label: 'direct mode', access: 'Cloud Map + secret' },
];

/** What reaching the tasks costs besides the tasks: $ per hour and $ per GB. */
export function accessCost(mode: GatewayMode, tasks: number): { readonly perHour: number; readonly perGb: number } {
  const p = GATEWAY_PRICES;
  return mode === 'nlb'
    ? { perHour: p.nlbHour, perGb: p.nlcuHour / p.nlcuGbPerHour }
    : { perHour: (p.privateHostedZoneMonth + tasks * p.cloudMapInstanceMonth + p.secretMonth) / HOURS_PER_MONTH, perGb: 0 };
}

export interface GatewayIngest {
  /** Produce requests a gateway window (an intake object) holds, and the partitions it touches, on average. */
  readonly requestsPerWindow: number;
  readonly partitionsPerWindow: number;
  readonly objectsPerGb: number;
  /** $/GB: the storage requests (section (d)'s S3 PUT, DynamoDB and maintenance), the tasks, the mode's access. */
  readonly storage: number;
  readonly tasks: number;
  readonly access: number;
  readonly total: number;
  readonly kinesis: number;
  /** Through Lambda and API Gateway at the client's linger instead. */
  readonly http: number;
}

/**
 * Gateway ingest $/GB at 1 KB records over 16 partitions, keyless (sticky): clients send a request
 * of one partition every CLIENT_LINGER_MS of the traffic, spread evenly over the deployment's
 * tasks, so a task's window of `lingerMs` holds lingerMs / (CLIENT_LINGER_MS · tasks) of them (at
 * least the one that opened it, at most batch bytes' worth) and touches the distinct partitions of
 * that many uniform choices; each window is one intake object. Plus the tasks' hours and the mode's.
 */
export function gatewayIngestPerGb(
  counted: CountedRequests,
  { mode, deployment, lingerMs, mbPerSecond = 1, batchBytes = DEFAULT_BATCH_BYTES }: { mode: GatewayMode; deployment: GatewayDeployment; lingerMs: number; mbPerSecond?: number; batchBytes?: number },
): GatewayIngest {
  const partitions = 16;
  const clientRequestBytes = (mbPerSecond * 2 ** 20 * CLIENT_LINGER_MS) / 1000;
  const requestsPerWindow = Math.max(1, Math.min(lingerMs / (CLIENT_LINGER_MS * deployment.tasks), batchBytes / clientRequestBytes));
  const partitionsPerWindow = distinctPartitions(partitions, requestsPerWindow);
  const workload = { recordBytes: 1024, mbPerSecond, partitions, shape: 'keyless' as const };
  const line = modelCost({ ...workload, lingerMs: requestsPerWindow * CLIENT_LINGER_MS, partitionsPerRequest: partitionsPerWindow, maxRequestBytes: Infinity }, counted);
  const gbPerHour = (mbPerSecond * 3600) / 1024;
  const access = accessCost(mode, deployment.tasks);
  const tasks = (deployment.tasks * (deployment.vcpu * GATEWAY_PRICES.fargateVcpuHour + deployment.gb * GATEWAY_PRICES.fargateGbHour)) / gbPerHour;
  const storage = line.ingest.s3Put + line.ingest.dynamodb + line.ingest.maintenance;
  const accessPerGb = access.perHour / gbPerHour + access.perGb;
  return {
    requestsPerWindow,
    partitionsPerWindow,
    objectsPerGb: line.produceRequestsPerGb,
    storage,
    tasks,
    access: accessPerGb,
    total: storage + tasks + accessPerGb,
    kinesis: line.kinesisOnDemand.ingest,
    http: modelCost({ ...workload, lingerMs: CLIENT_LINGER_MS }, counted).ingest.total,
  };
}

/** What cross-AZ transfer would add per GB if every produced byte crossed zones: billed out of one and into the other. */
export const crossAzPerGb = () => 2 * GATEWAY_PRICES.crossAzGbEachWay;

export interface KafkaGatewayBenchResult {
  readonly records: number;
  readonly perRequest: number;
  readonly recordBytes: number;
  readonly gatewaySeconds: number;
  /** CPU this process (the kafkajs client and the gateway) spent on the gateway side. */
  readonly gatewayCpuMs: number;
  readonly httpSeconds: number;
  /** Small requests of several producers at once, at the default linger and at LONG_LINGER_MS. */
  readonly small: readonly SmallRequestsResult[];
  /** The same producer through a plain TCP gateway and a TLS one, in alternating rounds (absent when not measured). */
  readonly tls?: {
    readonly rounds: number;
    /** Records sent per side. */
    readonly records: number;
    readonly plainSeconds: number;
    readonly tlsSeconds: number;
    /** CPU this process (client and gateway) spent on each side. */
    readonly plainCpuMs: number;
    readonly tlsCpuMs: number;
  };
}

export interface SmallRequestsResult {
  readonly lingerMs: number;
  readonly producers: number;
  readonly seconds: number;
  /** Produce requests the gateway answered, and intake objects (windows) it wrote. */
  readonly requests: number;
  readonly objects: number;
  /** Each window written: its produce requests and its distinct partitions. */
  readonly windows: readonly WindowSeen[];
}

export interface WindowSeen {
  readonly requests: number;
  readonly partitions: number;
}

/** The test certificate (self-signed, SAN localhost and 127.0.0.1) and its key, for the gateway over TLS. */
const TLS_CERT = new URL('../test/fixtures/tls/localhost.crt', import.meta.url);
const TLS_KEY = new URL('../test/fixtures/tls/localhost.key', import.meta.url);
/** Alternating rounds of the plain TCP vs TLS measurement. */
export const TLS_ROUNDS = 4;

/** Producers of the small-requests measurement, and the long gateway linger measured beside the default. */
export const SMALL_PRODUCERS = 8;
export const LONG_LINGER_MS = 1000;

async function countIntake(ctx: SluiceContext): Promise<number> {
  let n = 0;
  let token: string | undefined;
  do {
    const page = await ctx.s3.send(new ListObjectsV2Command({ Bucket: ctx.bucket, Prefix: intakeFolder(ctx.prefix), ContinuationToken: token }));
    n += page.KeyCount ?? 0;
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return n;
}

/** `producers` kafkajs producers, each sending one 100 B record per request and waiting for its answer, for `seconds`. */
async function smallRequests(ctx: SluiceContext, gateway: KafkaGateway, topic: string, producers: number, seconds: number): Promise<SmallRequestsResult> {
  const kafka = new Kafka({ clientId: 'bench', brokers: [`127.0.0.1:${gateway.port}`], logLevel: logLevel.NOTHING });
  const clients = Array.from({ length: producers }, () => kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner }));
  await Promise.all(clients.map((p) => p.connect()));
  const objectsBefore = await countIntake(ctx);
  const requestsBefore = gateway.stats().apis.Produce?.requests ?? 0;
  const windows: WindowSeen[] = [];
  const stopWatching = gateway.services.produceBatcher.onWindowWritten((w) => windows.push({ requests: w.requests, partitions: w.partitions }));
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    clients.map(async (p, i) => {
      for (let n = 0; performance.now() < until; n++) await p.send({ topic, acks: 1, messages: [{ key: `p${i}-${n}`, value: Buffer.alloc(100, 97) }] });
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  await Promise.all(clients.map((p) => p.disconnect()));
  stopWatching();
  return {
    lingerMs: gateway.services.produceBatcher.lingerMs,
    producers,
    seconds: elapsed,
    requests: (gateway.stats().apis.Produce?.requests ?? 0) - requestsBefore,
    objects: (await countIntake(ctx)) - objectsBefore,
    windows,
  };
}

/** Seconds `producer` takes to send `sends` requests of `messages`, `concurrency` in flight, and this process's CPU ms meanwhile. */
async function timedSends(producer: Producer, topic: string, messages: Message[], sends: number, concurrency: number): Promise<{ seconds: number; cpuMs: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < sends; i += concurrency) {
    await Promise.all(Array.from({ length: Math.min(concurrency, sends - i) }, () => producer.send({ topic, acks: 1, messages })));
  }
  const used = process.cpuUsage(cpu);
  return { seconds: (performance.now() - started) / 1000, cpuMs: (used.user + used.system) / 1000 };
}

export async function benchKafkaGateway(storage: BenchStorage, progress: (line: string) => void = () => {}): Promise<KafkaGatewayBenchResult> {
  const recordBytes = 1024;
  const perSend = 200;
  const sends = 40;
  const concurrency = 4;
  const value = Buffer.alloc(recordBytes, 120);
  const ctx = await storage.newContext();
  await createTopic(ctx, 'gw', 16);
  await createTopic(ctx, 'http', 16);
  const gateway = await startKafkaGateway(ctx, { host: '127.0.0.1', port: 0 });
  let gatewaySeconds: number;
  let gatewayCpuMs: number;
  let httpSeconds: number;
  let tls: KafkaGatewayBenchResult['tls'];
  const small: SmallRequestsResult[] = [];
  try {
    const kafka = new Kafka({ clientId: 'bench', brokers: [`127.0.0.1:${gateway.port}`], logLevel: logLevel.NOTHING });
    progress('kafka gateway: kafkajs producer through the gateway vs the HTTP produce path');
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const messages = Array.from({ length: perSend }, (_, i) => ({ key: `k${i}`, value }));
    // Gateway side: `concurrency` sends in flight, each a request of `perSend` records.
    ({ seconds: gatewaySeconds, cpuMs: gatewayCpuMs } = await timedSends(producer, 'gw', messages, sends, concurrency));
    // HTTP side: the same records as one RecordBatch per partition a request, through the router.
    const byPartition = new Map<number, typeof messages>();
    messages.forEach((m, i) => byPartition.set(i % 16, [...(byPartition.get(i % 16) ?? []), m]));
    const body = () =>
      encodeBatchFrames(
        [...byPartition].map(([partition, ms]) => ({
          partition,
          batch: encodeRecordBatch(ms.map((m) => ({ timestamp: Date.now(), key: Buffer.from(m.key), value: m.value })), { baseOffset: 0 }),
        })),
      );
    const started = performance.now();
    for (let i = 0; i < sends; i += concurrency) {
      await Promise.all(
        Array.from({ length: Math.min(concurrency, sends - i) }, async () => {
          const res = await handleHttp(ctx, { method: 'POST', path: '/v1/topics/http/records', headers: { 'content-type': RECORD_BATCHES_MEDIA_TYPE }, body: body() });
          if (res.status !== 200) throw new Error(`HTTP produce failed: ${res.status} ${res.body}`);
        }),
      );
    }
    httpSeconds = (performance.now() - started) / 1000;

    // The same producer through this plain TCP gateway and a TLS one, alternating rounds of a
    // quarter of the records each.
    progress('kafka gateway: kafkajs over TLS vs plain TCP');
    const cert = readFileSync(TLS_CERT);
    const secure = await startKafkaGateway(ctx, { host: '127.0.0.1', port: 0, tls: { cert, key: readFileSync(TLS_KEY) } });
    try {
      await createTopic(ctx, 'plain', 16);
      await createTopic(ctx, 'tls', 16);
      const tlsKafka = new Kafka({ clientId: 'bench', brokers: [`127.0.0.1:${secure.port}`], ssl: { ca: [cert] }, logLevel: logLevel.NOTHING });
      const tlsProducer = tlsKafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
      await tlsProducer.connect();
      const sides = { plain: { seconds: 0, cpuMs: 0 }, tls: { seconds: 0, cpuMs: 0 } };
      const roundSends = sends / TLS_ROUNDS;
      for (let round = 0; round < TLS_ROUNDS; round++) {
        for (const [side, p, topic] of [['plain', producer, 'plain'], ['tls', tlsProducer, 'tls']] as const) {
          const t = await timedSends(p, topic, messages, roundSends, concurrency);
          sides[side].seconds += t.seconds;
          sides[side].cpuMs += t.cpuMs;
        }
      }
      await tlsProducer.disconnect();
      tls = {
        rounds: TLS_ROUNDS,
        records: perSend * sends,
        plainSeconds: sides.plain.seconds,
        tlsSeconds: sides.tls.seconds,
        plainCpuMs: sides.plain.cpuMs,
        tlsCpuMs: sides.tls.cpuMs,
      };
    } finally {
      await secure.close();
    }
    await producer.disconnect();

    progress(`kafka gateway: ${SMALL_PRODUCERS} producers sending small batches at once, ${DEFAULT_LINGER_MS} ms linger`);
    await createTopic(ctx, 'small', 16);
    small.push(await smallRequests(ctx, gateway, 'small', SMALL_PRODUCERS, 5));
  } finally {
    await gateway.close();
  }
  progress(`kafka gateway: ${SMALL_PRODUCERS} producers sending small batches at once, ${LONG_LINGER_MS} ms linger`);
  const lingering = await startKafkaGateway(ctx, { host: '127.0.0.1', port: 0, produceLingerMs: LONG_LINGER_MS });
  try {
    await createTopic(ctx, 'small-lingering', 16);
    small.push(await smallRequests(ctx, lingering, 'small-lingering', SMALL_PRODUCERS, 10));
  } finally {
    await lingering.close();
  }
  return { records: perSend * sends, perRequest: perSend, recordBytes, gatewaySeconds, gatewayCpuMs, httpSeconds, small, tls };
}

const f = (x: number, d = 0) => x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
const usd = (x: number) => (x > 0 && x < 0.00005 ? `$${x.toExponential(1)}` : `$${x.toFixed(4)}`);
const pct = (x: number) => `${f(x * 100, 1)}%`;
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const describe = (d: GatewayDeployment) => `${d.tasks} × ${f(d.vcpu, 2)} vCPU / ${f(d.gb, 2)} GB`;
const list = (xs: readonly string[]) => (xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`);

function smallRequestsLine(m: SmallRequestsResult): string {
  const perObject = m.requests / Math.max(1, m.objects);
  // Each request here carries one record: one partition, uniform over 16.
  const modeled = mean(m.windows.map((w) => distinctPartitions(16, w.requests)));
  return (
    `- gateway linger ${f(m.lingerMs)} ms: ${f(m.requests)} produce requests in ${f(m.seconds, 1)} s (${f(m.requests / m.seconds)} requests/s), ` +
    `${f(m.objects)} intake objects: **${f(perObject, 1)} requests per intake object**; ${f(mean(m.windows.map((w) => w.partitions)), 2)} distinct partitions per window ` +
    `(the model's 16·(1−(15/16)^k) for each window's k requests gives ${f(modeled, 2)}); a request was answered in ${f((m.seconds * 1000 * m.producers) / Math.max(1, m.requests))} ms on average.`
  );
}

/**
 * The least gateway linger (50 ms steps, up to the gateway's 60 s maximum) at which `mode` and
 * `deployment` model at most 1/8 of Kinesis on-demand at 1 MB/s; undefined when none does.
 */
export function leastLingerMeeting(counted: CountedRequests, mode: GatewayMode, deployment: GatewayDeployment): { lingerMs: number; cost: GatewayIngest } | undefined {
  for (let lingerMs = 50; lingerMs <= 60_000; lingerMs += 50) {
    const cost = gatewayIngestPerGb(counted, { mode, deployment, lingerMs });
    if (cost.total <= cost.kinesis / 8) return { lingerMs, cost };
  }
  return undefined;
}

export function kafkaGatewaySection(r: KafkaGatewayBenchResult, counted: CountedRequests): string {
  const cpuPerMib = (cpuMs: number) => cpuMs / ((r.tls?.records ?? r.records) * r.recordBytes / 2 ** 20);
  const gatewayRate = r.records / r.gatewaySeconds;
  const httpRate = r.records / r.httpSeconds;
  const [atDefault, lingering] = r.small;
  const deployments = [SMALLEST_DEPLOYMENT, DEFAULT_DEPLOYMENT];
  const ingest = (mode: GatewayMode, deployment: GatewayDeployment, lingerMs: number, mbPerSecond = 1) =>
    gatewayIngestPerGb(counted, { mode, deployment, lingerMs, mbPerSecond });
  const rows = deployments.flatMap((deployment) =>
    GATEWAY_LINGERS_MS.map((linger) => ({ deployment, linger, nlb: ingest('nlb', deployment, linger), direct: ingest('direct', deployment, linger) })),
  );
  const kinesis = rows[0].nlb.kinesis;
  const target = kinesis / 8;
  const mark = (x: GatewayIngest) => `${usd(x.total)} (${pct(x.total / x.kinesis)})${x.total <= x.kinesis / 8 ? ' ✓' : ''}`;
  const verdicts = GATEWAY_MODES.flatMap(({ mode, label }) =>
    deployments.map((deployment) => {
      const mine = rows.filter((row) => row.deployment === deployment).map((row) => ({ linger: row.linger, cost: row[mode] }));
      const met = mine.filter((x) => x.cost.total <= target);
      const missed = mine.filter((x) => x.cost.total > target);
      const best = (xs: typeof mine) => xs.reduce((a, b) => (b.cost.total < a.cost.total ? b : a));
      const head = `- ${label}, ${deployment.name} deployment (${describe(deployment)}): `;
      const least = leastLingerMeeting(counted, mode, deployment);
      const leastText = least === undefined ? '' : ` The least linger that meets it (50 ms steps): ${f(least.lingerMs)} ms (${usd(least.cost.total)}/GB).`;
      if (met.length === 0) return `${head}does not meet it at any linger modeled (best ${usd(best(mine).cost.total)}/GB, ${pct(best(mine).cost.total / kinesis)} of Kinesis, at ${f(best(mine).linger)} ms).${leastText}`;
      return (
        `${head}meets it at ${list(met.map((x) => `${f(x.linger)} ms (${usd(x.cost.total)}/GB, ${pct(x.cost.total / kinesis)} of Kinesis; a produce request waits up to ${f(x.linger)} ms in the window)`))}` +
        (missed.length > 0 ? `; not at ${list(missed.map((x) => `${f(x.linger)}`))} ms (best of those ${usd(best(missed).cost.total)}/GB at ${f(best(missed).linger)} ms).` : '.') +
        leastText
      );
    }),
  );
  const cheapest = rows.flatMap((row) => GATEWAY_MODES.map((m) => ({ row, m, cost: row[m.mode] }))).reduce((a, b) => (b.cost.total < a.cost.total ? b : a));
  const crossAz = crossAzPerGb();

  // The tasks and the mode's access are fixed per hour (NLCUs per GB), so the target depends on
  // throughput: the same model at larger rates, the deployment sized by the CPU the gateway path
  // took per MiB: over plain TCP for the NLB mode (the NLB terminates TLS), over TLS for the direct mode.
  const mbPerCpuSecond = (records: number, cpuMs: number) => (records * r.recordBytes) / 2 ** 20 / (cpuMs / 1000);
  const mbPerVcpu: Record<GatewayMode, number> = r.tls
    ? { nlb: mbPerCpuSecond(r.tls.records, r.tls.plainCpuMs), direct: mbPerCpuSecond(r.tls.records, r.tls.tlsCpuMs) }
    : { nlb: mbPerCpuSecond(r.records, r.gatewayCpuMs), direct: mbPerCpuSecond(r.records, r.gatewayCpuMs) };
  const sizing = r.tls
    ? `sized by the CPU this process (kafkajs client and gateway) spent per MiB in the alternating rounds above: ${f(mbPerVcpu.nlb, 1)} MB/s per vCPU over plain TCP ` +
      `for the NLB mode (the NLB terminates TLS), ${f(mbPerVcpu.direct, 1)} MB/s per vCPU over TLS for the direct mode (the task terminates it)`
    : `sized by the CPU this process (kafkajs client and gateway) spent per MiB above, ${f(mbPerVcpu.nlb, 1)} MB/s per vCPU over plain TCP, in both modes (TLS in the task not measured in this run)`;
  const byRate = [1, 2, 5, 10, 20, 50].map((mbPerSecond) => {
    const at = (mode: GatewayMode) => {
      const deployment = sizedDeployment(mbPerSecond, mbPerVcpu[mode]);
      return { deployment, ...ingest(mode, deployment, DEFAULT_LINGER_MS, mbPerSecond) };
    };
    return { mb: mbPerSecond, nlb: at('nlb'), direct: at('direct') };
  });
  const fromRate = GATEWAY_MODES.map(({ mode, label }) => {
    const first = byRate.find((row) => row[mode].total <= row[mode].kinesis / 8);
    return first
      ? `${label} from ${first.mb} MB/s (${usd(first[mode].total)}/GB, ${pct(first[mode].total / first[mode].kinesis)} of Kinesis)`
      : `${label} at none of these rates (best ${usd(Math.min(...byRate.map((x) => x[mode].total)))}/GB at ${byRate[byRate.length - 1].mb} MB/s)`;
  });
  const p = GATEWAY_PRICES;
  const targetCpu = KAFKA_GATEWAY_DEFAULTS.targetCpuUtilizationPercent;
  // CPU at 1 MB/s: the smallest deployment in the direct mode (TLS in the task) and the default in the NLB mode, the heavier and the lighter load.
  const cpuAt1 = (d: GatewayDeployment, mode: GatewayMode) => (100 * 1) / (d.tasks * d.vcpu * mbPerVcpu[mode]);
  const smallestCpu = Math.max(cpuAt1(SMALLEST_DEPLOYMENT, 'nlb'), cpuAt1(SMALLEST_DEPLOYMENT, 'direct'));
  const defaultCpu = Math.max(cpuAt1(DEFAULT_DEPLOYMENT, 'nlb'), cpuAt1(DEFAULT_DEPLOYMENT, 'direct'));
  return [
    '## Kafka gateway: kafkajs through the gateway, batching across connections, and its $/GB',
    '',
    `A kafkajs producer sent ${f(r.records)} records of ${f(r.recordBytes)} B (keyed, 16 partitions, ${f(r.perRequest)} per request, 4 requests in flight, acks=1)`,
    `through the gateway at ${f(gatewayRate)} records/s (${f(r.gatewayCpuMs / ((r.records * r.recordBytes) / 2 ** 20), 1)} CPU ms per MiB in this process, client included); the same records as record-batches bodies through the HTTP router (in process, no socket)`,
    `went at ${f(httpRate)} records/s: the gateway path ran at ${f((gatewayRate / httpRate) * 100)}% of the HTTP path's rate in this run.`,
    '',
    r.tls
      ? `The same producer through a gateway listening with TLS (node:tls, a self-signed certificate the client trusts: kafkajs \`ssl: { ca }\`) and through one over plain TCP, ` +
        `${r.tls.rounds} alternating rounds of ${f(r.tls.records / r.tls.rounds)} records per side: ${f(r.tls.records / r.tls.tlsSeconds)} records/s over TLS, ${f(r.tls.records / r.tls.plainSeconds)} over plain TCP; ` +
        `TLS ran at ${f((r.tls.plainSeconds / r.tls.tlsSeconds) * 100)}% of plain TCP's rate, and this process (client and gateway: both ends of TLS) spent ${f(cpuPerMib(r.tls.tlsCpuMs), 1)} CPU ms per MiB ` +
        `over TLS against ${f(cpuPerMib(r.tls.plainCpuMs), 1)} over plain TCP (${f((r.tls.tlsCpuMs / r.tls.plainCpuMs) * 100)}%).`
      : 'The gateway over TLS was not measured in this run.',
    '',
    `${atDefault.producers} kafkajs producers sending one 100 B record per request (keyed, so each request is one partition's batch, the partition`,
    'uniform over 16), each waiting for its answer before the next, through a gateway at its default linger and at a long one:',
    '',
    smallRequestsLine(atDefault),
    smallRequestsLine(lingering),
    '',
    `A window holds the requests that arrive while it is open: with ${atDefault.producers} producers each keeping one request in flight it held`,
    `${f(atDefault.requests / Math.max(1, atDefault.objects), 1)} at ${f(atDefault.lingerMs)} ms and ${f(lingering.requests / Math.max(1, lingering.objects), 1)} at ${f(lingering.lingerMs)} ms, while each request took ` +
      `${f((lingering.seconds * 1000 * lingering.producers) / Math.max(1, lingering.requests) / ((atDefault.seconds * 1000 * atDefault.producers) / Math.max(1, atDefault.requests)), 1)} times as long at the long linger.`,
    'The model below has clients that keep sending (one request every 100 ms of the traffic, lingering rather than waiting), so a longer window holds more requests.',
    '',
    `### Modeled gateway ingest at 1 KB records, 1 MB/s, ${CLIENT_LINGER_MS} ms client linger, by deployment, mode and gateway linger`,
    '',
    `Clients send a request of one partition (sticky partitioner, uniform over 16) every ${CLIENT_LINGER_MS} ms of the traffic, spread evenly over the tasks:`,
    `a task's window of W ms holds k = max(1, W / (${CLIENT_LINGER_MS} ms × tasks)) requests (at most ${DEFAULT_BATCH_BYTES / 2 ** 20} MiB, the gateway's batch bytes), is one intake object, and touches`,
    "16·(1−(15/16)^k) partitions on average, each one STATE update (+ amortized spills) and one replaced range in maintenance (section (d)'s counted",
    'requests: storage requests = S3 PUT + DynamoDB + maintenance, no Lambda or API Gateway). NLB mode: the tasks + an NLB + one NLCU-hour per GB.',
    'Direct mode (no load balancer; clients resolve a Cloud Map name, each task terminates TLS): the tasks + the namespace\'s private hosted zone',
    `+ one registered instance per task + the secret with the TLS key. Kinesis on-demand ingest at this rate: ${usd(kinesis)}/GB; ✓ = at most 1/8 of it (${usd(target)}/GB).`,
    '',
    `| deployment | gateway linger (a produce waits up to) | requests per intake object | partitions per intake object | intake objects per GB | storage requests $/GB | tasks $/GB | NLB + NLCU $/GB | **NLB mode $/GB** (of Kinesis) | Cloud Map + secret $/GB | **direct mode $/GB** (of Kinesis) |`,
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.deployment.name}: ${describe(row.deployment)} | ${f(row.linger)} ms | ${f(row.nlb.requestsPerWindow, 2)} | ${f(row.nlb.partitionsPerWindow, 2)} | ${f(row.nlb.objectsPerGb)} | ${usd(row.nlb.storage)} | ${usd(row.nlb.tasks)} | ${usd(row.nlb.access)} | ${mark(row.nlb)} | ${usd(row.direct.access)} | ${mark(row.direct)} |`,
    ),
    '',
    `At 1 MB/s, the target of at most 1/8 of Kinesis on-demand (${usd(target)}/GB), by mode and deployment:`,
    '',
    ...verdicts,
    '',
    `A gateway linger of W ms adds up to W ms to a produce request's latency (the request that opens a window waits all of it, then the write).`,
    `The same workload through Lambda and API Gateway at ${CLIENT_LINGER_MS} ms client linger models at ${usd(rows[0].nlb.http)}/GB.`,
    '',
    `By throughput, at ${CLIENT_LINGER_MS} ms client linger and the default ${DEFAULT_LINGER_MS} ms gateway linger, the deployment ${sizing}`,
    `(at least ${describe(SMALLEST_DEPLOYMENT)}, tasks of at most ${f(DEFAULT_DEPLOYMENT.vcpu, 2)} vCPU (one Node process each), ${f(DEFAULT_DEPLOYMENT.gb / DEFAULT_DEPLOYMENT.vcpu)} GB per vCPU):`,
    '',
    '| MB/s | storage requests $/GB | NLB mode: tasks | tasks $/GB | NLB + NLCU $/GB | **NLB mode $/GB** (of Kinesis) | direct mode: tasks | tasks $/GB | Cloud Map + secret $/GB | **direct mode $/GB** (of Kinesis) | Kinesis on-demand $/GB |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...byRate.map(
      (row) =>
        `| ${row.mb} | ${usd(row.nlb.storage)} | ${describe(row.nlb.deployment)} | ${usd(row.nlb.tasks)} | ${usd(row.nlb.access)} | ${mark(row.nlb)} | ${describe(row.direct.deployment)} | ${usd(row.direct.tasks)} | ${usd(row.direct.access)} | ${mark(row.direct)} | ${usd(row.nlb.kinesis)} |`,
    ),
    '',
    `At the default gateway linger the 1/8 target is met: ${list(fromRate)}.`,
    '',
    '### Prices and assumptions of the gateway model',
    '',
    `- Fargate arm64 $${p.fargateVcpuHour}/vCPU-hour and $${p.fargateGbHour}/GB-hour. NLB $${p.nlbHour}/hour + $${p.nlcuHour}/NLCU-hour, ${p.nlcuGbPerHour} GB processed per NLCU-hour (the binding`,
    `  NLCU dimension here). Direct mode: Route 53 private hosted zone (Cloud Map's private DNS namespace) $${p.privateHostedZoneMonth.toFixed(2)}/month, Cloud Map $${p.cloudMapInstanceMonth.toFixed(2)} per`,
    `  registered instance-month (one per task), Secrets Manager $${p.secretMonth.toFixed(2)} per secret-month (the TLS certificate and key); months of ${HOURS_PER_MONTH} hours. us-east-1 list prices as known, not fetched online.`,
    `- Deployments: the smallest is what \`kafkaGateway: { desiredCount: ${SMALLEST_GATEWAY_PROPS.desiredCount}, minCapacity: ${SMALLEST_GATEWAY_PROPS.minCapacity}, maxCapacity: ${SMALLEST_GATEWAY_PROPS.maxCapacity}, cpu: ${SMALLEST_GATEWAY_PROPS.cpu}, memoryLimitMiB: ${SMALLEST_GATEWAY_PROPS.memoryLimitMiB} }\``,
    `  deploys; the construct default is KAFKA_GATEWAY_DEFAULTS (${KAFKA_GATEWAY_DEFAULTS.desiredCount} tasks of cpu ${KAFKA_GATEWAY_DEFAULTS.cpu}, memoryLimitMiB ${KAFKA_GATEWAY_DEFAULTS.memoryLimitMiB}, scaling out above ${targetCpu}% CPU).`,
    `  At these rates per vCPU (which count the kafkajs client's CPU${r.tls ? ' and both ends of TLS' : ''}, so the gateway alone needs less), 1 MB/s keeps the`,
    `  default's tasks at up to ${f(defaultCpu)}% CPU (${defaultCpu < targetCpu ? 'no task added' : 'above the target: autoscaling would add tasks, not modeled'}) and the smallest task at up to ${f(smallestCpu)}%` +
      (smallestCpu < targetCpu
        ? '.'
        : smallestCpu <= 100
          ? ` (above ${targetCpu}%: without maxCapacity ${SMALLEST_GATEWAY_PROPS.maxCapacity} autoscaling would add tasks).`
          : ' (more than the task has by this measure, which counts more than the gateway\'s CPU).'),
    '- DNS queries are left out: a client resolves the Cloud Map name once per connection, a negligible count beside the traffic; so are the',
    '  Secrets Manager API calls (a task reads the secret once, when it starts).',
    `- Not in the model: cross-AZ data transfer, $${p.crossAzGbEachWay.toFixed(2)}/GB out of one zone and $${p.crossAzGbEachWay.toFixed(2)}/GB into the other, for clients in another AZ than the task`,
    `  they reach, in both modes. If all produce traffic crossed AZs it would add ${usd(crossAz)}/GB: the cheapest configuration above (${cheapest.m.label}, ${cheapest.row.deployment.name},`,
    `  ${f(cheapest.row.linger)} ms, ${usd(cheapest.cost.total)}/GB) would cost ${usd(cheapest.cost.total + crossAz)}/GB, ${pct((cheapest.cost.total + crossAz) / kinesis)} of Kinesis` +
      `${cheapest.cost.total + crossAz <= target ? ', still within the target' : `, above the target`}. Clients in the same AZ as the task they reach pay none.`,
    '- The NLB model is not zonal either: one NLB-hour and one NLCU-hour per GB however many zones it serves; it leaves out the cross-AZ',
    '  transfer AWS bills when an NLB node forwards to a task in another zone (cross-zone load balancing, which the construct turns on).',
  ].join('\n');
}
