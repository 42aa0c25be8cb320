// Cost model: $ per GB ingested and per GB read, from the storage requests counted per produce and
// per fetch (requests.ts) × AWS list prices (us-east-1), beside Kinesis Data Streams on-demand and
// provisioned for the same workload. A model, not a bill: its assumptions are printed with it.
import type { RequestCounts } from './requests.js';

/** AWS list prices, us-east-1, as used here (USD). Not fetched online: checked against the published price pages as remembered; change here if they moved. */
export const PRICES = {
  s3Put: 0.005 / 1000,
  s3Get: 0.0004 / 1000,
  s3StorageGbMonth: 0.023,
  ddbWriteUnit: 0.625 / 1e6,
  ddbReadUnit: 0.125 / 1e6,
  lambdaGbSecond: 0.0000133334, // arm64
  lambdaRequest: 0.2 / 1e6,
  kinesisOnDemandStreamHour: 0.04,
  kinesisOnDemandIngestGb: 0.08,
  kinesisOnDemandRetrievalGb: 0.04,
  kinesisShardHour: 0.015,
  kinesisPutPayloadUnit: 0.014 / 1e6, // per 25 KB unit
} as const;

export interface Workload {
  readonly recordBytes: number;
  readonly mbPerSecond: number;
  readonly partitions: number;
  /** Client linger: each produce request carries this many ms of data (capped by MAX_REQUEST_BYTES). */
  readonly lingerMs: number;
}

export interface Assumptions {
  /** Lambda memory for produce/fetch, GB. */
  readonly lambdaGb: number;
  /** Produce duration: two storage round trips plus codec/JSON time per MB. */
  readonly produceBaseMs: number;
  readonly produceMsPerMb: number;
  readonly fetchMs: number;
  /** DynamoDB units per item write / strongly consistent read (SEG and STATE items are < 1 KB). */
  readonly writeUnitsPerItem: number;
  readonly readUnitsPerItem: number;
  /** Retention for storage cost. */
  readonly retentionDays: number;
  /** Compaction target segment size (bytes) and its requests per source range (one ranged GET, one item delete). */
  readonly compactedSegmentBytes: number;
  /** Fetch maxBytes when reading compacted data. */
  readonly fetchMaxBytes: number;
}

export const ASSUMPTIONS: Assumptions = {
  lambdaGb: 1,
  produceBaseMs: 40,
  produceMsPerMb: 20,
  fetchMs: 30,
  writeUnitsPerItem: 1,
  readUnitsPerItem: 1,
  retentionDays: 7,
  compactedSegmentBytes: 64 * 2 ** 20,
  fetchMaxBytes: 2 ** 20,
};

/** Lambda's 6 MB synchronous payload, less JSON framing: the most one produce request carries. */
export const MAX_REQUEST_BYTES = 4 * 2 ** 20;
const GB = 2 ** 30;
const MB = 2 ** 20;

export interface CostLine {
  readonly workload: Workload;
  readonly requestBytes: number;
  readonly produceRequestsPerGb: number;
  /** $ per GB ingested, by part. */
  readonly ingest: { readonly s3Put: number; readonly dynamodb: number; readonly lambda: number; readonly compaction: number; readonly total: number };
  readonly storagePerGb: number;
  /** $ per GB read by tailing consumers (uncompacted: one partition range per fetch) and by consumers of compacted data. */
  readonly readTail: number;
  readonly readCompacted: number;
  readonly kinesisOnDemand: { readonly ingest: number; readonly read: number };
  readonly kinesisProvisioned: { readonly shards: number; readonly ingest: number; readonly read: number };
}

const writes = (counts: RequestCounts) => (counts['ddb:PutItem'] ?? 0) + (counts['ddb:UpdateItem'] ?? 0) + (counts['ddb:DeleteItem'] ?? 0);

export function modelCost(
  workload: Workload,
  perProduce: RequestCounts,
  perFetch: RequestCounts,
  a: Assumptions = ASSUMPTIONS,
): CostLine {
  const requestBytes = Math.min(MAX_REQUEST_BYTES, (workload.mbPerSecond * MB * workload.lingerMs) / 1000);
  const requestsPerGb = GB / requestBytes;
  const s3Put = requestsPerGb * (perProduce['s3:PutObject'] ?? 0) * PRICES.s3Put;
  const dynamodb = requestsPerGb * writes(perProduce) * a.writeUnitsPerItem * PRICES.ddbWriteUnit;
  const produceSeconds = (a.produceBaseMs + (a.produceMsPerMb * requestBytes) / MB) / 1000;
  const lambda = requestsPerGb * (PRICES.lambdaRequest + a.lambdaGb * produceSeconds * PRICES.lambdaGbSecond);
  // Compaction: each partition range is read once (ranged GET) and its item deleted; each output
  // segment is one PUT (+ index PUT) and one item.
  const rangesPerGb = requestsPerGb * workload.partitions;
  const segmentsPerGb = GB / a.compactedSegmentBytes;
  const compaction =
    rangesPerGb * (PRICES.s3Get + a.writeUnitsPerItem * PRICES.ddbWriteUnit) +
    segmentsPerGb * (2 * PRICES.s3Put + a.writeUnitsPerItem * PRICES.ddbWriteUnit);
  const total = s3Put + dynamodb + lambda + compaction;

  const perFetchCost =
    (perFetch['s3:GetObject'] ?? 0) * PRICES.s3Get +
    ((perFetch['ddb:GetItem'] ?? 0) + (perFetch['ddb:Query'] ?? 0)) * a.readUnitsPerItem * PRICES.ddbReadUnit +
    PRICES.lambdaRequest +
    a.lambdaGb * (a.fetchMs / 1000) * PRICES.lambdaGbSecond;
  const tailFetchBytes = requestBytes / workload.partitions;
  const readTail = (GB / tailFetchBytes) * perFetchCost;
  const readCompacted = (GB / a.fetchMaxBytes) * perFetchCost;

  const gbPerHour = (workload.mbPerSecond * MB * 3600) / GB;
  const kinesisOnDemand = {
    ingest: PRICES.kinesisOnDemandIngestGb + PRICES.kinesisOnDemandStreamHour / gbPerHour,
    read: PRICES.kinesisOnDemandRetrievalGb,
  };
  // One shard per partition keeps the workload's 16 ordered partitions; more when a shard's
  // 1 MB/s or 1000 records/s write limit would be passed.
  const recordsPerSecond = (workload.mbPerSecond * MB) / workload.recordBytes;
  const shards = Math.max(workload.partitions, Math.ceil(workload.mbPerSecond), Math.ceil(recordsPerSecond / 1000));
  const unitsPerRecord = Math.ceil(workload.recordBytes / (25 * 1024));
  const kinesisProvisioned = {
    shards,
    ingest: (shards * PRICES.kinesisShardHour) / gbPerHour + (GB / workload.recordBytes) * unitsPerRecord * PRICES.kinesisPutPayloadUnit,
    read: 0, // shared-throughput GetRecords is included in the shard hour
  };
  return {
    workload,
    requestBytes,
    produceRequestsPerGb: requestsPerGb,
    ingest: { s3Put, dynamodb, lambda, compaction, total },
    storagePerGb: PRICES.s3StorageGbMonth * (a.retentionDays / 30.4),
    readTail,
    readCompacted,
    kinesisOnDemand,
    kinesisProvisioned,
  };
}

/** The smallest linger (ms, on a 50 ms grid) whose modeled ingest is at most `fraction` of Kinesis on-demand. */
export function lingerFor(fraction: number, workload: Omit<Workload, 'lingerMs'>, perProduce: RequestCounts, perFetch: RequestCounts): number | undefined {
  for (let lingerMs = 50; lingerMs <= 60_000; lingerMs += 50) {
    const line = modelCost({ ...workload, lingerMs }, perProduce, perFetch);
    if (line.ingest.total <= fraction * line.kinesisOnDemand.ingest) return lingerMs;
  }
  return undefined;
}
