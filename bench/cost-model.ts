// Cost model: $ per GB ingested and per GB read, from the storage requests COUNTED per produce,
// per fetch and per maintenance run (requests.ts) × AWS list prices (us-east-1), beside Kinesis
// Data Streams on-demand and provisioned for the same workload. A model, not a bill: every price
// and assumption is exported here and printed with the table.
//
// Two producer shapes over a 16-partition topic:
//   - keyed: records spread over all partitions by key, so every produce request touches all 16
//     (counted: 1 S3 PUT + 16 STATE commits + the occasional spill of a partition's STATE tail);
//   - keyless: Kafka's sticky partitioner, so a request carries one partition's batch
//     (counted: 1 S3 PUT + 1 STATE commit + the occasional spill).
// A client lingers `lingerMs` and then sends what it has as one request (capped at
// MAX_REQUEST_BYTES; beyond that it sends several full requests).
import type { RequestCounts } from './requests.js';

/** AWS list prices, us-east-1, USD, as used here. Not fetched online (no internet here): from the published price pages as known; change here if they moved. */
export const PRICES = {
  s3Put: 0.005 / 1000, // PUT, COPY, POST, LIST
  s3Get: 0.0004 / 1000,
  s3StorageGbMonth: 0.023,
  ddbWriteUnit: 0.625 / 1e6, // on-demand WRU (1 KB)
  ddbReadUnit: 0.125 / 1e6, // on-demand RRU (4 KB strongly consistent)
  lambdaGbSecond: 0.0000133334, // arm64
  lambdaRequest: 0.2 / 1e6,
  apiGatewayRequest: 1.0 / 1e6, // HTTP API, first 300 M/month, metered per 512 KB
  kinesisOnDemandStreamHour: 0.04,
  kinesisOnDemandIngestGb: 0.08,
  kinesisOnDemandRetrievalGb: 0.04,
  kinesisShardHour: 0.015,
  kinesisPutPayloadUnit: 0.014 / 1e6, // per 25 KB unit
} as const;

export type ProducerShape = 'keyed' | 'keyless';

export interface Workload {
  readonly recordBytes: number;
  readonly mbPerSecond: number;
  readonly partitions: number;
  readonly shape: ProducerShape;
  /** Client linger: each produce request carries this many ms of data (capped by MAX_REQUEST_BYTES). */
  readonly lingerMs: number;
}

/** What the model takes from the counted runs. */
export interface CountedRequests {
  /**
   * Per warm produce request touching all partitions (keyed) and one partition (keyless): the
   * requests, and the DynamoDB write units they cost (by the measured item sizes).
   */
  readonly perProduce: { readonly keyed: ProduceCounts; readonly keyless: ProduceCounts };
  /** Per fetch answered from STATE's tail (a tailing consumer), and from a SEG item (compacted data). */
  readonly perFetchTail: RequestCounts;
  readonly perFetchItem: RequestCounts;
  /** One steady-state maintenance run (not the first) over `partitions` partitions. */
  readonly maintenance: {
    readonly partitions: number;
    readonly merges: number;
    readonly replacedItems: number;
    readonly replacedRanges: number;
    readonly counts: RequestCounts;
  };
}

export interface ProduceCounts {
  readonly requests: RequestCounts;
  readonly writeUnits: number;
}

export interface Assumptions {
  /** Lambda memory for produce/fetch, GB. */
  readonly lambdaGb: number;
  /** Produce duration: storage round trips plus codec/JSON time per MB. */
  readonly produceBaseMs: number;
  readonly produceMsPerMb: number;
  readonly fetchMs: number;
  /** Retention for storage cost. */
  readonly retentionDays: number;
  /** Maintenance (compaction, retention, sweep) schedule: infra's default rate(5 minutes). */
  readonly maintenanceIntervalSeconds: number;
  /** What one merge holds (compaction.ts DEFAULT_MAX_MERGE_BYTES). */
  readonly maxMergeBytes: number;
  /** Fetch maxBytes. */
  readonly fetchMaxBytes: number;
  /** Whether requests come through API Gateway (HTTP API) rather than direct Lambda invoke. */
  readonly apiGateway: boolean;
}

export const ASSUMPTIONS: Assumptions = {
  lambdaGb: 1,
  produceBaseMs: 40,
  produceMsPerMb: 20,
  fetchMs: 30,
  retentionDays: 7,
  maintenanceIntervalSeconds: 300,
  maxMergeBytes: 64 * 2 ** 20,
  fetchMaxBytes: 2 ** 20,
  apiGateway: true,
};

/** Lambda's 6 MB synchronous payload, less JSON framing: the most one produce request carries. */
export const MAX_REQUEST_BYTES = 4 * 2 ** 20;
const GB = 2 ** 30;
const MB = 2 ** 20;
const API_GATEWAY_METER_BYTES = 512 * 1024;
/** JSON framing a produce request adds per record (`{"key":"…","value":"…"},`), for API Gateway's metering of the body. */
export const JSON_BYTES_PER_RECORD = 40;

export interface CostLine {
  readonly workload: Workload;
  readonly requestBytes: number;
  readonly produceRequestsPerGb: number;
  /** $ per GB ingested, by part. */
  readonly ingest: {
    readonly s3Put: number;
    readonly dynamodb: number;
    readonly lambda: number;
    readonly apiGateway: number;
    /** Maintenance: compaction of the produce items, retention of the segments, the sweep. */
    readonly maintenance: number;
    readonly total: number;
  };
  readonly storagePerGb: number;
  /** $ per GB read by a tailing consumer (one fetch per produce range) and by one reading compacted segments (maxBytes per fetch). */
  readonly readTail: number;
  readonly readCompacted: number;
  readonly kinesisOnDemand: { readonly ingest: number; readonly read: number };
  readonly kinesisProvisioned: { readonly shards: number; readonly ingest: number; readonly read: number };
}

const n = (counts: RequestCounts, kind: string) => counts[kind] ?? 0;
const ddbWrites = (c: RequestCounts) => n(c, 'ddb:PutItem') + n(c, 'ddb:UpdateItem') + n(c, 'ddb:DeleteItem');
const ddbReads = (c: RequestCounts) => n(c, 'ddb:GetItem') + n(c, 'ddb:Query');
/** S3 request classes: PUT/COPY/POST/LIST at the PUT price, GET at the GET price (DELETE is free). */
const s3Cost = (c: RequestCounts) =>
  (n(c, 's3:PutObject') + n(c, 's3:ListObjectsV2') + n(c, 's3:CopyObject')) * PRICES.s3Put + (n(c, 's3:GetObject') + n(c, 's3:HeadObject')) * PRICES.s3Get;
/** Every item written here is < 1 KB (1 WRU); every read 1 RRU (a manifest Query of a partition's few items stays under 4 KB per page). */
const ddbCost = (c: RequestCounts) => ddbWrites(c) * PRICES.ddbWriteUnit + ddbReads(c) * PRICES.ddbReadUnit;
const apiGatewayCost = (bytes: number, a: Assumptions) => (a.apiGateway ? Math.max(1, Math.ceil(bytes / API_GATEWAY_METER_BYTES)) * PRICES.apiGatewayRequest : 0);

/**
 * Maintenance $ per GB from one counted steady-state run: the run's requests split into a part per
 * replaced produce range (its ranged GET, and its share of an item delete: an item lists the
 * ranges of a spilled STATE tail), a part per merge (segment PUTs, merged item, STATE) and a fixed
 * part per run (snapshot reads, listings, job lease), scaled to this workload's ranges per GB, one
 * merge per partition per run, and runs per GB.
 */
function maintenancePerGb(w: Workload, rangesPerGb: number, counted: CountedRequests['maintenance'], a: Assumptions): number {
  const c = counted.counts;
  // The run's ranged GETs and item deletes, per range it replaced (deletes are per item: fewer).
  const perRange = (n(c, 's3:GetObject') * PRICES.s3Get + n(c, 'ddb:DeleteItem') * PRICES.ddbWriteUnit) / counted.replacedRanges;
  const perMerge = (n(c, 's3:PutObject') * PRICES.s3Put + (n(c, 'ddb:PutItem') + n(c, 'ddb:UpdateItem')) * PRICES.ddbWriteUnit) / counted.merges;
  const fixedPerPartition = (ddbReads(c) * PRICES.ddbReadUnit + n(c, 's3:ListObjectsV2') * PRICES.s3Put) / counted.partitions;
  const secondsPerGb = GB / (w.mbPerSecond * MB);
  const runsPerGb = secondsPerGb / a.maintenanceIntervalSeconds;
  // One merge per partition per run, more when a partition's new bytes pass what one merge holds.
  const bytesPerPartitionRun = (w.mbPerSecond * MB * a.maintenanceIntervalSeconds) / w.partitions;
  const mergesPerPartitionRun = Math.max(1, Math.ceil(bytesPerPartitionRun / a.maxMergeBytes));
  // Retention (modeled, not counted here): it drops whole compacted segments, at most one per
  // partition per run: one item delete and one STATE update each (S3 DELETE is free).
  const retentionPerPartitionRun = 2 * PRICES.ddbWriteUnit;
  return rangesPerGb * perRange + runsPerGb * w.partitions * (mergesPerPartitionRun * perMerge + fixedPerPartition + retentionPerPartitionRun);
}

export function modelCost(w: Workload, counted: CountedRequests, a: Assumptions = ASSUMPTIONS): CostLine {
  const perProduce = counted.perProduce[w.shape];
  const partitionsPerRequest = w.shape === 'keyed' ? w.partitions : 1;
  const requestBytes = Math.min(MAX_REQUEST_BYTES, (w.mbPerSecond * MB * w.lingerMs) / 1000);
  const requestsPerGb = GB / requestBytes;
  const s3Put = requestsPerGb * s3Cost(perProduce.requests);
  const dynamodb = requestsPerGb * (perProduce.writeUnits * PRICES.ddbWriteUnit + ddbReads(perProduce.requests) * PRICES.ddbReadUnit);
  const produceSeconds = (a.produceBaseMs + (a.produceMsPerMb * requestBytes) / MB) / 1000;
  const lambda = requestsPerGb * (PRICES.lambdaRequest + a.lambdaGb * produceSeconds * PRICES.lambdaGbSecond);
  const apiGateway = requestsPerGb * apiGatewayCost(requestBytes * (1 + JSON_BYTES_PER_RECORD / w.recordBytes), a);
  const maintenance = maintenancePerGb(w, requestsPerGb * partitionsPerRequest, counted.maintenance, a);
  const total = s3Put + dynamodb + lambda + apiGateway + maintenance;

  const perFetch = (counts: RequestCounts, bytes: number) =>
    s3Cost(counts) + ddbCost(counts) + PRICES.lambdaRequest + a.lambdaGb * (a.fetchMs / 1000) * PRICES.lambdaGbSecond + apiGatewayCost(bytes, a);
  // A tailing consumer's fetch answers from one manifest range (in STATE's tail): one request's range of the partition.
  const tailFetchBytes = Math.min(a.fetchMaxBytes, requestBytes / partitionsPerRequest);
  const readTail = (GB / tailFetchBytes) * perFetch(counted.perFetchTail, tailFetchBytes);
  const readCompacted = (GB / a.fetchMaxBytes) * perFetch(counted.perFetchItem, a.fetchMaxBytes);

  const gbPerHour = (w.mbPerSecond * MB * 3600) / GB;
  const kinesisOnDemand = {
    ingest: PRICES.kinesisOnDemandIngestGb + PRICES.kinesisOnDemandStreamHour / gbPerHour,
    read: PRICES.kinesisOnDemandRetrievalGb,
  };
  // One shard per partition keeps the workload's 16 ordered partitions; more when a shard's
  // 1 MB/s or 1000 records/s write limit would be passed.
  const recordsPerSecond = (w.mbPerSecond * MB) / w.recordBytes;
  const shards = Math.max(w.partitions, Math.ceil(w.mbPerSecond), Math.ceil(recordsPerSecond / 1000));
  const unitsPerRecord = Math.ceil(w.recordBytes / (25 * 1024));
  const kinesisProvisioned = {
    shards,
    ingest: (shards * PRICES.kinesisShardHour) / gbPerHour + (GB / w.recordBytes) * unitsPerRecord * PRICES.kinesisPutPayloadUnit,
    read: 0, // shared-throughput GetRecords is included in the shard hour
  };
  return {
    workload: w,
    requestBytes,
    produceRequestsPerGb: requestsPerGb,
    ingest: { s3Put, dynamodb, lambda, apiGateway, maintenance, total },
    storagePerGb: PRICES.s3StorageGbMonth * (a.retentionDays / 30.4),
    readTail,
    readCompacted,
    kinesisOnDemand,
    kinesisProvisioned,
  };
}

/** The smallest linger (ms, on a 50 ms grid up to 60 s) whose modeled ingest is at most `fraction` of Kinesis on-demand. */
export function lingerFor(fraction: number, w: Omit<Workload, 'lingerMs'>, counted: CountedRequests, a: Assumptions = ASSUMPTIONS): number | undefined {
  for (let lingerMs = 50; lingerMs <= 60_000; lingerMs += 50) {
    const line = modelCost({ ...w, lingerMs }, counted, a);
    if (line.ingest.total <= fraction * line.kinesisOnDemand.ingest) return lingerMs;
  }
  return undefined;
}
