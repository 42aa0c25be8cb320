// POST /v1/topics/{topic}/records — Kafka's Produce. The whole request is validated (schema,
// topic, partitions, encodings, sizes, idempotence fields) before any write. Records are grouped
// by partition in order of first appearance; each group becomes one RecordBatch appended
// atomically. Partitioning, as Kafka's producer does it:
//   - explicit `partition`: used as is (must exist);
//   - a key: Kafka's default partitioner, murmur2(key bytes) & 0x7fffffff % partitions;
//   - no key: sticky per request — every keyless record of one request goes to one partition,
//     and successive requests to the topic move round-robin across partitions (per process).
// A body of record batches (lib/records/batch-frames.ts) takes the other route, produce-batches.ts;
// both end in produce-append.ts.
import * as z from 'zod';
import { type SluiceContext, cacheSlot } from '../context.js';
import { getTopicCached, validateTopicName, type TopicMetadata } from '../metadata/topics.js';
import { RoundRobinPartitioner, partitionForKey } from '../partitioners/index.js';
import { RECORD_BATCH_OVERHEAD, type RecordInput } from '../records/index.js';
import { decodeBytes } from './encoding.js';
import { SluiceError, isSluiceError } from '../errors.js';
import { errorBodySchema } from './errors.js';
import { MAX_RECORDS_PER_REQUEST, appendAndAnswer } from './produce-append.js';
import { produceBatches } from './produce-batches.js';
import type { Operation } from './operation.js';
import { encoding, intField, parseInput, topicName } from './validation.js';

const headerSchema = z.strictObject({ key: z.string(), value: z.string().nullable() });

const recordSchema = z.strictObject({
  key: z.string().nullable().optional(),
  // Required but nullable: a null value is a tombstone, a missing one is a client bug.
  value: z.string().nullable(),
  headers: z.array(headerSchema).optional(),
  partition: intField(0, 2_147_483_647).optional(),
  timestamp: intField(0).optional(),
});

const produceSchema = z
  .strictObject({
    topic: topicName,
    records: z
      .array(recordSchema)
      .min(1, 'at least one record is required')
      .max(MAX_RECORDS_PER_REQUEST, `at most ${MAX_RECORDS_PER_REQUEST} records per request`),
    encoding: encoding.default('utf8'),
    producerId: intField(0).optional(),
    producerEpoch: intField(0, 32_767).optional(),
    sequences: z
      .array(z.strictObject({ partition: intField(0, 2_147_483_647), baseSequence: intField(0, 2_147_483_647) }))
      .optional(),
  });

type ProduceInput = z.output<typeof produceSchema>;

const errorObject = errorBodySchema.shape.error;

/** The answer to a produce, JSON or record-batches body (docs/openapi.json). */
const produceResponseSchema = z.strictObject({
  offsets: z
    .array(
      z.union([
        z.strictObject({
          partition: z.int(),
          baseOffset: z.int().min(0),
          count: z.int().min(1),
          duplicate: z.literal(true).optional().describe('A retried idempotent batch, acknowledged with its original offsets'),
        }),
        z.strictObject({ partition: z.int(), error: errorObject }),
      ]),
    )
    .describe("One entry per partition written, in order of first appearance; each partition's batch is appended or refused whole"),
  records: z
    .array(z.union([z.strictObject({ partition: z.int(), offset: z.int().min(0) }), z.strictObject({ partition: z.int(), error: errorObject.shape.code })]))
    .optional()
    .describe('Per record of a JSON body, in request order (absent for a record-batches body: record i of a batch is at baseOffset + i)'),
});

/**
 * Approximate encoded size of a record written alone in a batch: the batch header plus the
 * record's worst-case varint overheads, key, value and headers. Compared with `max.message.bytes`,
 * which Kafka applies to a batch.
 */
function estimateRecordSize(record: RecordInput): number {
  let size = RECORD_BATCH_OVERHEAD + 21 + (record.key?.length ?? 0) + (record.value?.length ?? 0);
  for (const h of record.headers ?? []) size += 10 + Buffer.byteLength(h.key, 'utf8') + (h.value?.length ?? 0);
  return size;
}

// Picks the sticky keyless partition of each request: Kafka's RoundRobinPartitioner asked once
// per request (not per record), so one request's keyless records make one batch. Its counters are
// the context's `keylessRotation` cache slot (lib/context.ts): one rotation per process.
const KEYLESS_ROTATION = cacheSlot('keylessRotation', () => new RoundRobinPartitioner());

function nextKeylessPartition(ctx: SluiceContext, topic: TopicMetadata): number {
  return ctx.caches.get(KEYLESS_ROTATION).partition({ topic: topic.name, partitionCount: topic.partitions, key: null });
}

interface PlannedRecord {
  readonly input: RecordInput;
  readonly partition: number | undefined;
}

function decodeRecords(ctx: SluiceContext, input: ProduceInput): PlannedRecord[] {
  const now = ctx.now();
  return input.records.map((r, i) => ({
    partition: r.partition,
    input: {
      timestamp: r.timestamp ?? now,
      key: decodeBytes(r.key, input.encoding, `records[${i}].key`),
      value: decodeBytes(r.value, input.encoding, `records[${i}].value`),
      headers: (r.headers ?? []).map((h, j) => ({
        key: h.key,
        value: decodeBytes(h.value, input.encoding, `records[${i}].headers[${j}].value`),
      })),
    },
  }));
}

/** The idempotent-producer fields hang together: both ids, explicit partitions, one sequence per partition. */
function checkIdempotence(input: ProduceInput): Map<number, number> | undefined {
  const { producerId, producerEpoch, sequences } = input;
  if (producerId === undefined && producerEpoch === undefined && sequences === undefined) return undefined;
  if (producerId === undefined || producerEpoch === undefined || sequences === undefined) {
    throw new SluiceError('INVALID_REQUEST', "idempotent produce needs all of 'producerId', 'producerEpoch' and 'sequences'");
  }
  const bySeq = new Map<number, number>();
  sequences.forEach((s, i) => {
    if (bySeq.has(s.partition)) throw new SluiceError('INVALID_REQUEST', `'sequences[${i}]': partition ${s.partition} appears twice`);
    bySeq.set(s.partition, s.baseSequence);
  });
  const touched = new Set<number>();
  input.records.forEach((r, i) => {
    if (r.partition === undefined) {
      throw new SluiceError('INVALID_REQUEST', `'records[${i}].partition' is required in an idempotent produce (sequences are per partition)`);
    }
    if (!bySeq.has(r.partition)) {
      throw new SluiceError('INVALID_REQUEST', `'sequences' has no baseSequence for partition ${r.partition} (used by records[${i}])`);
    }
    touched.add(r.partition);
  });
  for (const p of bySeq.keys()) {
    if (!touched.has(p)) throw new SluiceError('INVALID_REQUEST', `'sequences' names partition ${p}, but no record goes to it`);
  }
  return bySeq;
}

export async function produce(ctx: SluiceContext, raw: Record<string, unknown>) {
  const input = parseInput(produceSchema, raw);
  validateTopicName(input.topic);
  const sequences = checkIdempotence(input);
  const planned = decodeRecords(ctx, input);

  let maxExplicit = -1;
  for (const r of planned) if (r.partition !== undefined && r.partition > maxExplicit) maxExplicit = r.partition;
  // Refused with UNKNOWN_TOPIC_OR_PARTITION when the highest explicit partition does not exist.
  const topic = await getTopicCached(ctx, input.topic, maxExplicit >= 0 ? maxExplicit : undefined);

  const limit = topic.config['max.message.bytes'];
  planned.forEach((r, i) => {
    const size = estimateRecordSize(r.input);
    if (size > limit) {
      throw new SluiceError(
        'MESSAGE_TOO_LARGE',
        `records[${i}] is about ${size} bytes encoded, over the topic's max.message.bytes of ${limit}`,
        { index: i, size, maxMessageBytes: limit },
      );
    }
  });

  // Assign partitions; keep first-appearance order of partitions for batches and `offsets`.
  let keyless: number | undefined;
  const assigned = planned.map((r) => {
    if (r.partition !== undefined) return r.partition;
    if (r.input.key !== null) return partitionForKey(r.input.key, topic.partitions);
    return (keyless ??= nextKeylessPartition(ctx, topic));
  });
  const groups = new Map<number, RecordInput[]>();
  assigned.forEach((p, i) => {
    let list = groups.get(p);
    if (!list) groups.set(p, (list = []));
    list.push(planned[i].input);
  });

  const appends = [...groups].map(([partition, records]) => ({
    partition,
    records,
    producer:
      sequences && input.producerId !== undefined && input.producerEpoch !== undefined
        ? { producerId: input.producerId, producerEpoch: input.producerEpoch, baseSequence: sequences.get(partition)! }
        : undefined,
  }));
  const { offsets, byPartition } = await appendAndAnswer(ctx, topic, appends);
  // Each record's offset = its batch's baseOffset + its position within the partition's batch.
  const seen = new Map<number, number>();
  const records = assigned.map((p) => {
    const index = seen.get(p) ?? 0;
    seen.set(p, index + 1);
    const r = byPartition.get(p)!;
    return 'error' in r ? { partition: p, error: isSluiceError(r.error) ? r.error.code : 'UNKNOWN_SERVER_ERROR' } : { partition: p, offset: r.baseOffset + index };
  });
  return { offsets, records };
}

export const produceOperation: Operation = {
  name: 'produce',
  method: 'POST',
  path: '/v1/topics/{topic}/records',
  acceptsBatchBody: true,
  summary: 'Append records to partitions of a topic (Kafka Produce)',
  input: produceSchema,
  response: { status: 200, body: produceResponseSchema },
  async run(ctx, input) {
    // A record-batches body arrives as `batches` (bytes over HTTP, base64 by direct invoke).
    return { status: 200, body: 'batches' in input ? await produceBatches(ctx, input) : await produce(ctx, input) };
  },
};
