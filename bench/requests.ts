// Storage requests per produce and per fetch, by kind, counted at the endpoints by an SDK
// middleware (request-counter.ts), the bytes stored per record, and the requests of maintenance
// runs (compaction + retention + sweep) over a topic of many small produce items. Runs the log
// layer (appendToPartitions / readRecords / runMaintenance) directly: the handlers add no storage
// requests of their own on the warm path (topic metadata is cached).
import { appendToPartitions } from '../lib/log/append.js';
import { runMaintenance } from '../lib/log/maintenance.js';
import { readRecords } from '../lib/log/read.js';
import { createTopic } from '../lib/metadata/topics.js';
import type { RecordInput } from '../lib/records/index.js';
import { largestPartitionItems } from '../lib/metadata/item-size.js';
import { countStorageRequests } from './request-counter.js';
import type { BenchStorage } from './storage.js';

export type RequestCounts = Record<string, number>;

export interface RequestsResult {
  /**
   * Average requests per warm produce request, by the number of partitions it touches, the
   * DynamoDB write units they consumed (as the endpoint reports them), and the largest STATE and
   * SEG items seen after any request (a write is billed in 1 KB units of the item's size).
   */
  readonly produce: {
    readonly partitions: number;
    /** One idempotent producer's batches (a sequence entry on every STATE). */
    readonly idempotent: boolean;
    readonly requests: number;
    readonly perRequest: RequestCounts;
    readonly largestItems: { readonly state: number; readonly segment: number };
    readonly writeUnits: number;
  }[];
  /** Requests per fetch at an offset of a partition of `segments` manifest items. */
  readonly fetch: { readonly segments: number; readonly offset: number; readonly perFetch: RequestCounts }[];
  /** S3 bytes written per record (RecordBatch framing included), by record value size and records per partition batch. */
  readonly storedBytes: { readonly valueBytes: number; readonly recordsPerBatch: number; readonly s3BytesPerRecord: number }[];
  /**
   * Two successive maintenance runs over a 16-partition topic, each after `producesBefore` produce
   * requests touching every partition: all requests of the run, and what it did.
   */
  readonly maintenance: {
    readonly run: number;
    readonly partitions: number;
    readonly producesBefore: number;
    readonly merges: number;
    readonly replacedItems: number;
    /** Produce ranges those items listed (a spilled STATE tail lists several). */
    readonly replacedRanges: number;
    readonly rewrittenBytes: number;
    readonly counts: RequestCounts;
  }[];
}

const records = (n: number, valueBytes: number, tag: number, timestamp = 1_700_000_000_000): RecordInput[] =>
  Array.from({ length: n }, (_, i) => ({ timestamp: timestamp + i, key: Buffer.from(`k${tag}-${i}`), value: Buffer.alloc(valueBytes, 97) }));

function average(counts: RequestCounts, n: number): RequestCounts {
  return Object.fromEntries(
    Object.entries(counts)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => [k, Math.round((v / n) * 100) / 100]),
  );
}

export async function benchRequests(storage: BenchStorage, progress: (step: string) => void): Promise<RequestsResult> {
  const produce: RequestsResult['produce'][number][] = [];
  const storedBytes: RequestsResult['storedBytes'][number][] = [];
  // The last shape: an idempotent producer (its sequence entry grows every STATE item it writes).
  const shapes = [
    { partitions: 1, idempotent: false },
    { partitions: 8, idempotent: false },
    { partitions: 16, idempotent: false },
    { partitions: 16, idempotent: true },
  ];
  for (const { partitions, idempotent } of shapes) {
    progress(`produce requests touching ${partitions} partition(s)${idempotent ? ', idempotent' : ''}`);
    const ctx = await storage.newContext();
    const counter = countStorageRequests(ctx);
    const request = (tag: number) =>
      Array.from({ length: partitions }, (_, p) => ({
        partition: p,
        records: records(4, 1024, tag),
        producer: idempotent ? { producerId: 4001, producerEpoch: 0, baseSequence: 4 * tag } : undefined,
      }));
    await appendToPartitions(ctx, 't', request(0)); // cold: takes the leases
    counter.reset();
    const n = 20;
    const counted: RequestCounts = {};
    const largestItems = { state: 0, segment: 0 };
    let writeUnits = 0;
    for (let i = 1; i <= n; i++) {
      await appendToPartitions(ctx, 't', request(i));
      for (const [kind, count] of Object.entries(counter.byKind())) counted[kind] = (counted[kind] ?? 0) + count;
      writeUnits += counter.writeUnits;
      // The items' sizes after every request (their largest is what a write is billed by), not counted.
      const sizes = await largestPartitionItems(ctx, 't', partitions);
      largestItems.state = Math.max(largestItems.state, sizes.state);
      largestItems.segment = Math.max(largestItems.segment, sizes.segment);
      counter.reset();
    }
    const perRequest = average(counted, n);
    const requests = Object.values(counted).reduce((a, b) => a + b, 0) / n;
    produce.push({ partitions, idempotent, requests, perRequest, largestItems, writeUnits: Math.round((writeUnits / n) * 100) / 100 });
  }

  progress('fetch cost in a 300-segment partition');
  const ctx = await storage.newContext();
  for (let i = 0; i < 300; i++) await appendToPartitions(ctx, 't', [{ partition: 0, records: records(1, 100, i) }]);
  const fetch: RequestsResult['fetch'][number][] = [];
  for (const offset of [3, 150, 290, 299]) {
    const counter = countStorageRequests(ctx);
    await readRecords(ctx, 't', 0, { offset, maxBytes: 1 << 20 });
    fetch.push({ segments: 300, offset, perFetch: counter.byKind() });
  }

  progress('bytes stored per record');
  for (const valueBytes of [100, 1024, 10240]) {
    for (const recordsPerBatch of [1, 16, 256]) {
      const c = await storage.newContext();
      const counter = countStorageRequests(c);
      await appendToPartitions(c, 't', [{ partition: 0, records: records(recordsPerBatch, valueBytes, 0) }]);
      storedBytes.push({ valueBytes, recordsPerBatch, s3BytesPerRecord: Math.round((counter.putBytes / recordsPerBatch) * 10) / 10 });
    }
  }
  progress('maintenance runs (compaction, retention, sweep) over many small produce items');
  const maintenance: RequestsResult['maintenance'][number][] = [];
  const m = await storage.newContext();
  const partitions = 16;
  await createTopic(m, 'm', partitions);
  const producesBefore = 24;
  for (let run = 1; run <= 2; run++) {
    for (let i = 0; i < producesBefore; i++) {
      await appendToPartitions(m, 'm', Array.from({ length: partitions }, (_, p) => ({ partition: p, records: records(16, 1024, i, Date.now()) })));
    }
    const counter = countStorageRequests(m);
    const report = await runMaintenance(m, { timeLeftMs: () => 600_000, reserveMs: 0 });
    if (report.errors.length > 0) throw new Error(`maintenance failed: ${report.errors.join('; ')}`);
    maintenance.push({
      run,
      partitions,
      producesBefore,
      merges: report.compaction.merges,
      replacedItems: report.compaction.replacedItems,
      replacedRanges: report.compaction.replacedRanges,
      rewrittenBytes: report.compaction.rewrittenBytes,
      counts: counter.byKind(),
    });
  }
  return { produce, fetch, storedBytes, maintenance };
}
