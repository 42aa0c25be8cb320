// Cost model: $ per GB ingested and per GB read, from the storage requests COUNTED per produce,
// per fetch and per maintenance run (requests.ts) × AWS list prices (us-east-1), beside Kinesis
// Data Streams on-demand and provisioned for the same workload. A model, not a bill: every price
// and assumption is exported here and printed with the table.
//
// Two producer shapes over a 16-partition topic:
//   - keyed: records spread over all partitions by key, so every produce request touches all 16
//     (counted: 1 S3 PUT of the intake object + 16 STATE updates, + the spill of each partition's
//     tail once in TAIL_MAX_ENTRIES appends: one PutItem + one UpdateItem);
//   - keyless: Kafka's sticky partitioner, so a request carries one partition's batch
//     (counted: 1 S3 PUT + 1 STATE update, + the spill once in TAIL_MAX_ENTRIES appends). An intake
//     object that joins several such requests (a Kafka gateway's window) touches several
//     partitions (`partitionsPerRequest`): one S3 PUT, and each partition's STATE update and spills.
// Maintenance merges the intake objects into per-partition segments, reading each intake object
// once for all the partitions it holds (counted: GETs per intake object, and per merged range,
// per merge and per partition the rest of the run's requests).
// A client lingers `lingerMs` and then sends what it has as one request (capped at
// MAX_REQUEST_BYTES; beyond that it sends several full requests).
import { DEFAULT_MAX_MERGE_BYTES } from '../lib/log/merge.js';
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
  /** Client linger: each produce request carries this many ms of data (capped by `maxRequestBytes`). */
  readonly lingerMs: number;
  /**
   * Keyless only: the partitions one produce request (one intake object) touches, on average; more
   * than 1 when the object joins several sticky requests (a Kafka gateway's window). Each costs
   * the counted keyless partition's DynamoDB requests (its STATE update and amortized spills) and
   * one replaced range in maintenance; the S3 PUT stays one per request. Keyed requests touch every
   * partition. @default 1 keyless, `partitions` keyed
   */
  readonly partitionsPerRequest?: number;
  /** The most one request (one intake object) carries. @default MAX_REQUEST_BYTES */
  readonly maxRequestBytes?: number;
}

/** What the model takes from the counted runs (requests.ts). */
export interface CountedRequests {
  /** Per warm produce request touching all partitions (keyed) and one partition (keyless). */
  readonly perProduce: { readonly keyed: ProduceCounts; readonly keyless: ProduceCounts };
  /** Per fetch of one range of STATE's tail (a tailing consumer), and per repeated fetch in a merged segment. */
  readonly perFetchTail: RequestCounts;
  readonly perFetchMerged: RequestCounts;
  /** One counted maintenance run over `partitions` partitions of a keyed topic. */
  readonly maintenance: {
    readonly partitions: number;
    readonly merges: number;
    readonly replacedRanges: number;
    /** Intake objects written before the run, and its GETs of them and of merged segments. */
    readonly intakeObjects: number;
    readonly intakeObjectsRead: number;
    readonly segmentObjectsRead: number;
    readonly counts: RequestCounts;
    /** DynamoDB units the run consumed, as reported. */
    readonly writeUnits: number;
    readonly readUnits: number;
  };
}

/** A warm produce request, counted: requests without a spill, and what the spills add. */
export interface ProduceCounts {
  /** Requests of an append that spilled nothing (1 S3 PUT + 1 UpdateItem per partition, counted). */
  readonly plain: RequestCounts;
  /** DynamoDB write units of such an append. */
  readonly plainWriteUnits: number;
  /** Extra write units of an append that spilled (every partition it touched spilled). */
  readonly spillWriteUnits: number;
  /** Appends that spilled, per partition: 1 in TAIL_MAX_ENTRIES. */
  readonly spillsPerPartitionAppend: number;
}

/** Write units per produce request, the spills amortized. */
export const produceWriteUnits = (p: ProduceCounts) => p.plainWriteUnits + p.spillWriteUnits * p.spillsPerPartitionAppend;

export interface Assumptions {
  /** Lambda memory for produce/fetch, GB. */
  readonly lambdaGb: number;
  /** Produce duration: storage round trips plus codec/JSON time per MB. */
  readonly produceBaseMs: number;
  readonly produceMsPerMb: number;
  readonly fetchMs: number;
  /** Retention for storage cost. */
  readonly retentionDays: number;
  /** Maintenance (merge, retention, sweep) schedule: infra's default rate(5 minutes). */
  readonly maintenanceIntervalSeconds: number;
  /** What one merge holds (merge.ts DEFAULT_MAX_MERGE_BYTES). */
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
  maxMergeBytes: DEFAULT_MAX_MERGE_BYTES,
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
    /** Maintenance: merge of the intake objects into segments, retention, the sweep. */
    readonly maintenance: number;
    readonly total: number;
  };
  readonly storagePerGb: number;
  /** $ per GB read by a tailing consumer (one fetch per produce range) and by one reading merged segments (maxBytes per fetch). */
  readonly readTail: number;
  readonly readMerged: number;
  readonly kinesisOnDemand: { readonly ingest: number; readonly read: number };
  readonly kinesisProvisioned: { readonly shards: number; readonly ingest: number; readonly read: number };
}

const n = (counts: RequestCounts, kind: string) => counts[kind] ?? 0;
const ddbWrites = (c: RequestCounts) => n(c, 'ddb:PutItem') + n(c, 'ddb:UpdateItem') + n(c, 'ddb:DeleteItem');
const ddbReads = (c: RequestCounts) => n(c, 'ddb:GetItem') + n(c, 'ddb:Query');
/** S3 request classes: PUT/COPY/POST/LIST at the PUT price, GET at the GET price (DELETE is free). */
const s3Cost = (c: RequestCounts) =>
  (n(c, 's3:PutObject') + n(c, 's3:ListObjectsV2') + n(c, 's3:CopyObject')) * PRICES.s3Put + (n(c, 's3:GetObject') + n(c, 's3:HeadObject')) * PRICES.s3Get;
/** A fetch's reads: 1 RRU each (STATE and a floor Query page are far below 4 KB). */
const ddbCost = (c: RequestCounts) => ddbWrites(c) * PRICES.ddbWriteUnit + ddbReads(c) * PRICES.ddbReadUnit;
const apiGatewayCost = (bytes: number, a: Assumptions) => (a.apiGateway ? Math.max(1, Math.ceil(bytes / API_GATEWAY_METER_BYTES)) * PRICES.apiGatewayRequest : 0);

/**
 * Maintenance $ per GB from one counted run: the intake object GETs (per intake object, i.e. per
 * produce request), the deletes of replaced items (per merged range), per merge its segment PUTs
 * and its merged item, and per partition the rest (lease and STATE updates, snapshot reads,
 * listings, GETs of merged segments merged again); DynamoDB writes and reads at the units the run
 * consumed per request. Scaled to this workload's produce requests and ranges per GB, one merge
 * per partition per run (more when a partition's bytes per interval pass what a merge holds), and
 * runs per GB.
 */
function maintenancePerGb(w: Workload, requestsPerGb: number, rangesPerGb: number, counted: CountedRequests['maintenance'], a: Assumptions): number {
  const c = counted.counts;
  const unitsPerWrite = counted.writeUnits / Math.max(1, ddbWrites(c));
  const unitsPerRead = counted.readUnits / Math.max(1, ddbReads(c));
  const write = unitsPerWrite * PRICES.ddbWriteUnit;
  const read = unitsPerRead * PRICES.ddbReadUnit;
  const perIntakeObject = (counted.intakeObjectsRead / counted.intakeObjects) * PRICES.s3Get;
  const perRange = (n(c, 'ddb:DeleteItem') * write) / counted.replacedRanges;
  const perMerge = (n(c, 's3:PutObject') * PRICES.s3Put + n(c, 'ddb:PutItem') * write) / counted.merges;
  const perPartitionRun =
    (n(c, 'ddb:UpdateItem') * write + ddbReads(c) * read + n(c, 's3:ListObjectsV2') * PRICES.s3Put + counted.segmentObjectsRead * PRICES.s3Get) /
    counted.partitions;
  const secondsPerGb = GB / (w.mbPerSecond * MB);
  const runsPerGb = secondsPerGb / a.maintenanceIntervalSeconds;
  const bytesPerPartitionRun = (w.mbPerSecond * MB * a.maintenanceIntervalSeconds) / w.partitions;
  const mergesPerPartitionRun = Math.max(1, Math.ceil(bytesPerPartitionRun / a.maxMergeBytes));
  // Retention (modeled, not counted here): it drops whole merged segments, at most one per
  // partition per run: one item delete and one STATE update each (S3 DELETE is free).
  const retentionPerPartitionRun = 2 * PRICES.ddbWriteUnit;
  return (
    requestsPerGb * perIntakeObject +
    rangesPerGb * perRange +
    runsPerGb * w.partitions * (mergesPerPartitionRun * perMerge + perPartitionRun + retentionPerPartitionRun)
  );
}

/** The partitions a produce request of `w` touches (Workload.partitionsPerRequest), checked. */
export function partitionsPerRequestOf(w: Workload): number {
  if (w.shape === 'keyed') {
    if (w.partitionsPerRequest !== undefined && w.partitionsPerRequest !== w.partitions) {
      throw new RangeError(`a keyed request touches all ${w.partitions} partitions, not ${w.partitionsPerRequest}`);
    }
    return w.partitions;
  }
  const p = w.partitionsPerRequest ?? 1;
  if (!(p >= 1 && p <= w.partitions)) throw new RangeError(`partitions per request must be from 1 to ${w.partitions}, not ${p}`);
  return p;
}

/**
 * The partitions `requests` requests of one partition each touch on average, each partition chosen
 * uniformly and independently (Kafka's sticky partitioner, a new partition per batch):
 * partitions·(1 − (1 − 1/partitions)^requests).
 */
export function distinctPartitions(partitions: number, requests: number): number {
  return partitions * (1 - (1 - 1 / partitions) ** requests);
}

export function modelCost(w: Workload, counted: CountedRequests, a: Assumptions = ASSUMPTIONS): CostLine {
  const perProduce = counted.perProduce[w.shape];
  const partitionsPerRequest = partitionsPerRequestOf(w);
  // The keyed counts are those of a request touching every partition; the keyless ones of one partition.
  const countedPartitions = w.shape === 'keyed' ? 1 : partitionsPerRequest;
  const requestBytes = Math.min(w.maxRequestBytes ?? MAX_REQUEST_BYTES, (w.mbPerSecond * MB * w.lingerMs) / 1000);
  const requestsPerGb = GB / requestBytes;
  const s3Put = requestsPerGb * s3Cost(perProduce.plain);
  const dynamodb =
    requestsPerGb * countedPartitions * (produceWriteUnits(perProduce) * PRICES.ddbWriteUnit + ddbReads(perProduce.plain) * PRICES.ddbReadUnit);
  const produceSeconds = (a.produceBaseMs + (a.produceMsPerMb * requestBytes) / MB) / 1000;
  const lambda = requestsPerGb * (PRICES.lambdaRequest + a.lambdaGb * produceSeconds * PRICES.lambdaGbSecond);
  const apiGateway = requestsPerGb * apiGatewayCost(requestBytes * (1 + JSON_BYTES_PER_RECORD / w.recordBytes), a);
  const maintenance = maintenancePerGb(w, requestsPerGb, requestsPerGb * partitionsPerRequest, counted.maintenance, a);
  const total = s3Put + dynamodb + lambda + apiGateway + maintenance;

  const perFetch = (counts: RequestCounts, bytes: number) =>
    s3Cost(counts) + ddbCost(counts) + PRICES.lambdaRequest + a.lambdaGb * (a.fetchMs / 1000) * PRICES.lambdaGbSecond + apiGatewayCost(bytes, a);
  // A tailing consumer keeping up reads each new range of STATE's tail as it lands: one request's range of the partition per fetch.
  const tailFetchBytes = Math.min(a.fetchMaxBytes, requestBytes / partitionsPerRequest);
  const readTail = (GB / tailFetchBytes) * perFetch(counted.perFetchTail, tailFetchBytes);
  const readMerged = (GB / a.fetchMaxBytes) * perFetch(counted.perFetchMerged, a.fetchMaxBytes);

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
    readMerged,
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
