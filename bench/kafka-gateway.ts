// The Kafka gateway (issue 14 point 4): a kafkajs producer through the gateway against the HTTP
// produce path (record-batches body through the router, in process), records per second in the
// same run; intake objects per second and produce requests per intake object when 8 kafkajs
// producers send small batches at once (the gateway's batching window); and the modeled $/GB of
// gateway ingest beside Kinesis on-demand with section (d)'s cost model (no Lambda, no API
// Gateway: a Fargate task and an NLB instead), every sentence generated from the numbers.
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { Kafka, Partitioners, logLevel } from 'kafkajs';
import { handleHttp } from '../lib/api/router.js';
import type { SluiceContext } from '../lib/context.js';
import { startKafkaGateway } from '../lib/kafka/server.js';
import { DEFAULT_LINGER_MS } from '../lib/kafka/produce-batcher.js';
import { intakeFolder } from '../lib/log/segment-name.js';
import { createTopic } from '../lib/metadata/topics.js';
import { RECORD_BATCHES_MEDIA_TYPE, encodeBatchFrames } from '../lib/records/batch-frames.js';
import { encodeRecordBatch } from '../lib/records/index.js';
import { type CountedRequests, modelCost } from './cost-model.js';
import type { BenchStorage } from './storage.js';

/**
 * Fargate (arm64, us-east-1) and NLB list prices, USD per hour, for the gateway's compute: assumptions,
 * printed. An NLB also bills NLCUs; for TCP one NLCU-hour covers 1 GB processed, which at these rates
 * is the binding dimension, so every GB through the NLB costs one NLCU-hour.
 */
export const GATEWAY_PRICES = { fargateVcpuHour: 0.03238, fargateGbHour: 0.00356, nlbHour: 0.0225, nlcuHour: 0.006, nlcuGbPerHour: 1 } as const;
/** The smallest Fargate task (0.25 vCPU, 0.5 GB); larger loads get vCPUs by the measured rate, 2 GB each. */
export const GATEWAY_TASK = { vcpu: 0.25, gb: 0.5, gbPerVcpu: 2 } as const;

export interface KafkaGatewayBenchResult {
  readonly records: number;
  readonly perRequest: number;
  readonly recordBytes: number;
  readonly gatewaySeconds: number;
  readonly httpSeconds: number;
  readonly producers: number;
  readonly smallSeconds: number;
  readonly smallRequests: number;
  readonly smallObjects: number;
}

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

export async function benchKafkaGateway(storage: BenchStorage, progress: (line: string) => void = () => {}): Promise<KafkaGatewayBenchResult> {
  const recordBytes = 1024;
  const perSend = 200;
  const sends = 40;
  const concurrency = 4;
  const value = Buffer.alloc(recordBytes, 120);
  const ctx = await storage.newContext();
  await createTopic(ctx, 'gw', 16);
  await createTopic(ctx, 'http', 16);
  await createTopic(ctx, 'small', 16);
  const gateway = await startKafkaGateway(ctx, { host: '127.0.0.1', port: 0 });
  try {
    const kafka = new Kafka({ clientId: 'bench', brokers: [`127.0.0.1:${gateway.port}`], logLevel: logLevel.NOTHING });
    progress('kafka gateway: kafkajs producer through the gateway vs the HTTP produce path');
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const messages = Array.from({ length: perSend }, (_, i) => ({ key: `k${i}`, value }));
    // Gateway side: `concurrency` sends in flight, each a request of `perSend` records.
    let started = performance.now();
    for (let i = 0; i < sends; i += concurrency) {
      await Promise.all(Array.from({ length: Math.min(concurrency, sends - i) }, () => producer.send({ topic: 'gw', acks: 1, messages })));
    }
    const gatewaySeconds = (performance.now() - started) / 1000;
    await producer.disconnect();
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
    started = performance.now();
    for (let i = 0; i < sends; i += concurrency) {
      await Promise.all(
        Array.from({ length: Math.min(concurrency, sends - i) }, async () => {
          const res = await handleHttp(ctx, { method: 'POST', path: '/v1/topics/http/records', headers: { 'content-type': RECORD_BATCHES_MEDIA_TYPE }, body: body() });
          if (res.status !== 200) throw new Error(`HTTP produce failed: ${res.status} ${res.body}`);
        }),
      );
    }
    const httpSeconds = (performance.now() - started) / 1000;

    progress('kafka gateway: 8 producers sending small batches at once');
    const producers = Array.from({ length: 8 }, () => kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner }));
    await Promise.all(producers.map((p) => p.connect()));
    const objectsBefore = await countIntake(ctx);
    const requestsBefore = gateway.stats().apis.Produce?.requests ?? 0;
    const until = performance.now() + 5000;
    started = performance.now();
    await Promise.all(
      producers.map(async (p, i) => {
        for (let n = 0; performance.now() < until; n++) await p.send({ topic: 'small', acks: 1, messages: [{ key: `p${i}-${n}`, value: Buffer.alloc(100, 97) }] });
      }),
    );
    const smallSeconds = (performance.now() - started) / 1000;
    await Promise.all(producers.map((p) => p.disconnect()));
    const smallRequests = (gateway.stats().apis.Produce?.requests ?? 0) - requestsBefore;
    const smallObjects = (await countIntake(ctx)) - objectsBefore;
    return { records: perSend * sends, perRequest: perSend, recordBytes, gatewaySeconds, httpSeconds, producers: 8, smallSeconds, smallRequests, smallObjects };
  } finally {
    await gateway.close();
  }
}

const f = (x: number, d = 0) => x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
const usd = (x: number) => `$${x.toFixed(4)}`;

/**
 * Gateway ingest $/GB: section (d)'s S3, DynamoDB and maintenance for intake objects carrying
 * `windowMs` of data, + the task, NLB and NLCU hours. The task gets the vCPUs `mbPerSecond` needs at
 * `mbPerVcpu` (the gateway's measured single-process rate), at least the smallest task.
 */
export function gatewayIngestPerGb(counted: CountedRequests, windowMs: number, mbPerSecond = 1, mbPerVcpu = Infinity) {
  const line = modelCost({ recordBytes: 1024, mbPerSecond, partitions: 16, shape: 'keyless', lingerMs: windowMs }, counted);
  const gbPerHour = (mbPerSecond * 3600) / 1024;
  const vcpu = Math.max(GATEWAY_TASK.vcpu, mbPerSecond / mbPerVcpu);
  const gb = Math.max(GATEWAY_TASK.gb, vcpu * GATEWAY_TASK.gbPerVcpu);
  const compute =
    (vcpu * GATEWAY_PRICES.fargateVcpuHour + gb * GATEWAY_PRICES.fargateGbHour + GATEWAY_PRICES.nlbHour) / gbPerHour +
    GATEWAY_PRICES.nlcuHour / GATEWAY_PRICES.nlcuGbPerHour;
  const storage = line.ingest.s3Put + line.ingest.dynamodb + line.ingest.maintenance;
  return { storage, compute, total: storage + compute, kinesis: line.kinesisOnDemand.ingest, http: line.ingest.total };
}

export function kafkaGatewaySection(r: KafkaGatewayBenchResult, counted: CountedRequests): string {
  const gatewayRate = r.records / r.gatewaySeconds;
  const httpRate = r.records / r.httpSeconds;
  const perObject = r.smallRequests / Math.max(1, r.smallObjects);
  const clientLingerMs = 100;
  // A window holds the requests of every client that arrive within it: with one client lingering
  // 100 ms, an intake object carries max(100 ms, the gateway's linger) of data.
  const rows = [DEFAULT_LINGER_MS, 250, 500, 1000, 2000].map((linger) => ({ linger, ...gatewayIngestPerGb(counted, Math.max(clientLingerMs, linger)) }));
  const meets = rows.find((row) => row.total <= row.kinesis / 8);
  const atDefault = rows[0];
  // The task, NLB and NLCU are fixed per hour or per GB, so the target depends on throughput: the
  // same model at larger rates, the task sized by the gateway's rate measured above (per vCPU).
  const mbPerVcpu = (gatewayRate * r.recordBytes) / (1024 * 1024);
  const byRate = [1, 2, 5, 10, 20, 50].map((mb) => ({ mb, ...gatewayIngestPerGb(counted, Math.max(clientLingerMs, DEFAULT_LINGER_MS), mb, mbPerVcpu) }));
  const rateMeets = byRate.find((row) => row.total <= row.kinesis / 8);
  return [
    '## Kafka gateway: kafkajs through the gateway, batching across connections, and its $/GB',
    '',
    `A kafkajs producer sent ${f(r.records)} records of ${f(r.recordBytes)} B (keyed, 16 partitions, ${f(r.perRequest)} per request, 4 requests in flight, acks=1)`,
    `through the gateway at ${f(gatewayRate)} records/s; the same records as record-batches bodies through the HTTP router (in process, no socket)`,
    `went at ${f(httpRate)} records/s: the gateway path ran at ${f((gatewayRate / httpRate) * 100)}% of the HTTP path's rate in this run.`,
    '',
    `${r.producers} kafkajs producers sending one 100 B record per request, each waiting for its answer, made ${f(r.smallRequests)} produce requests in ${f(r.smallSeconds, 1)} s`,
    `(${f(r.smallRequests / r.smallSeconds)} requests/s) and the gateway wrote ${f(r.smallObjects)} intake objects (${f(r.smallObjects / r.smallSeconds, 1)} objects/s):`,
    `${f(perObject, 1)} requests per intake object with the default ${DEFAULT_LINGER_MS} ms window, ${r.smallObjects * 4 <= r.smallRequests ? 'far fewer objects than requests' : 'not far fewer objects than requests'}.`,
    '',
    `Modeled gateway ingest at 1 KB records, 1 MB/s, ${clientLingerMs} ms client linger (section (d)'s S3 PUT, DynamoDB and maintenance per intake object, sticky`,
    `partitioner, no Lambda or API Gateway; plus one ${GATEWAY_TASK.vcpu} vCPU / ${GATEWAY_TASK.gb} GB Fargate task at $${GATEWAY_PRICES.fargateVcpuHour}/vCPU-h and $${GATEWAY_PRICES.fargateGbHour}/GB-h`,
    `and one NLB at $${GATEWAY_PRICES.nlbHour}/h plus $${GATEWAY_PRICES.nlcuHour} per NLCU-hour, ${GATEWAY_PRICES.nlcuGbPerHour} GB each), by the gateway's linger, beside Kinesis on-demand ingest (${usd(atDefault.kinesis)}/GB):`,
    '',
    '| gateway linger | storage requests $/GB | task + NLB + NLCU $/GB | gateway ingest $/GB | share of Kinesis on-demand |',
    '|---|---|---|---|---|',
    ...rows.map((row) => `| ${row.linger} ms | ${usd(row.storage)} | ${usd(row.compute)} | ${usd(row.total)} | ${f((row.total / row.kinesis) * 100, 1)}% |`),
    '',
    meets
      ? `The target of at most 1/8 of Kinesis on-demand (${usd(atDefault.kinesis / 8)}/GB) is met from a gateway linger of ${meets.linger} ms (${usd(meets.total)}/GB)` +
        (meets.linger === DEFAULT_LINGER_MS ? ', the default.' : `; at the default ${DEFAULT_LINGER_MS} ms a lone client's 100 ms requests each make an intake object (${usd(atDefault.total)}/GB, ${f((atDefault.total / atDefault.kinesis) * 100, 1)}% of Kinesis).`)
      : `The target of at most 1/8 of Kinesis on-demand (${usd(atDefault.kinesis / 8)}/GB) is not met at any gateway linger modeled here (best ${usd(Math.min(...rows.map((x) => x.total)))}/GB).`,
    `The same workload through Lambda and API Gateway at 100 ms linger models at ${usd(atDefault.http)}/GB.`,
    '',
    `By throughput, at ${clientLingerMs} ms client linger, with the task sized at ${f(mbPerVcpu, 1)} MB/s per vCPU (this run's single-process gateway rate`,
    `above; at least ${GATEWAY_TASK.vcpu} vCPU, ${GATEWAY_TASK.gbPerVcpu} GB per vCPU) and one NLB:`,
    '',
    '| MB/s | storage requests $/GB | task + NLB + NLCU $/GB | gateway ingest $/GB | Kinesis on-demand $/GB | share of Kinesis |',
    '|---|---|---|---|---|---|',
    ...byRate.map((row) => `| ${row.mb} | ${usd(row.storage)} | ${usd(row.compute)} | ${usd(row.total)} | ${usd(row.kinesis)} | ${f((row.total / row.kinesis) * 100, 1)}% |`),
    '',
    rateMeets
      ? `At 1 MB/s the hourly NLB and task dominate (${usd(byRate[0].compute)} of ${usd(byRate[0].total)}/GB); the 1/8 target is met from ${rateMeets.mb} MB/s (${usd(rateMeets.total)}/GB, ${f((rateMeets.total / rateMeets.kinesis) * 100, 1)}% of Kinesis).`
      : `The 1/8 target is not met at any throughput modeled here (best ${usd(Math.min(...byRate.map((x) => x.total)))}/GB at ${byRate[byRate.length - 1].mb} MB/s).`,
  ].join('\n');
}
