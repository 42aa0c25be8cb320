// Fetch and ListOffsets: the consumer's read path.
//   GET /v1/topics/{topic}/partitions/{partition}/records?offset&maxBytes&maxWaitMs&encoding
//   GET /v1/topics/{topic}/partitions/{partition}/offsets?at=earliest|latest|<timestamp ms>
// A fetch at the high watermark with maxWaitMs > 0 long-polls: it re-reads the partition's STATE
// item (one strongly consistent GetItem, no S3 request) every LONG_POLL_INTERVAL_MS until the log
// end moves or the wait runs out, as a Kafka broker holds a fetch until fetch.min.bytes arrive.
// `format: 'batches'` (HTTP: `Accept: application/vnd.sluice.record-batches`) answers with the
// stored RecordBatches undecoded (batch-body.ts), as a Kafka broker answers a Fetch.
import { setTimeout as sleep } from 'node:timers/promises';
import * as z from 'zod';
import { SluiceError } from '../errors.js';
import type { SluiceContext } from '../context.js';
import { listOffsets } from '../log/list-offsets.js';
import { readBatches, readRecords, type ReadResult } from '../log/read.js';
import { getPartitionState } from '../metadata/partition-state.js';
import { getTopicCached, validateTopicName } from '../metadata/topics.js';
import type { TopicRef } from '../metadata/types.js';
import { readBatchHeader } from '../records/index.js';
import { MAX_BATCH_RESPONSE_BYTES, RecordBatchesReply } from './batch-body.js';
import { encodeBytes } from './encoding.js';
import type { Operation } from './operation.js';
import { type Encoding, encoding, intParam, parseInput, topicName } from './validation.js';

export const DEFAULT_FETCH_MAX_BYTES = 1_048_576;
/** Largest accepted maxBytes: Kafka's fetch.max.bytes default. */
export const MAX_FETCH_MAX_BYTES = 52_428_800;
/**
 * Bytes read from the log per fetch, whatever maxBytes asks: about what one response can carry
 * (records grow by 4/3 in base64, more with JSON framing), so a fetch never reads what it must drop.
 */
export const MAX_READ_BYTES_PER_FETCH = 3 * 1024 * 1024;
export const LONG_POLL_INTERVAL_MS = 75;
/** JSON bytes of records per fetch response, under Lambda's 6 MB response limit with room to spare. */
export const RESPONSE_BUDGET_BYTES = 5 * 1024 * 1024;
/**
 * Most JSON bytes one record may take in an answer: Lambda's 6 MB response limit less the
 * answer's own fields. A record of max.message.bytes (at most 4 MiB) always fits in base64.
 */
export const MAX_JSON_RECORD_BYTES = 6_000_000;

const partitionParam = intParam(0, 2_147_483_647);

export const fetchSchema = z.strictObject({
  topic: topicName,
  partition: partitionParam,
  offset: intParam(0),
  maxBytes: intParam(1, MAX_FETCH_MAX_BYTES).default(DEFAULT_FETCH_MAX_BYTES),
  maxWaitMs: intParam(0, 2_147_483_647).default(0),
  encoding: encoding.default('utf8'),
  /** 'batches': the stored RecordBatches as they are (batch-body.ts), instead of JSON records. */
  format: z.enum(['records', 'batches']).default('records'),
});

type FetchInput = z.output<typeof fetchSchema>;

const offset = z.int().min(0);
const bytesOrNull = z.string().nullable().describe("UTF-8 text or base64, as the request's encoding says; null when absent");

/** The JSON answer of a fetch (docs/openapi.json); a record-batches answer is binary. */
export const fetchResponseSchema = z.strictObject({
  records: z.array(
    z.strictObject({
      offset,
      timestamp: z.int(),
      key: bytesOrNull,
      value: bytesOrNull,
      headers: z.array(z.strictObject({ key: z.string(), value: bytesOrNull })),
    }),
  ),
  nextOffset: offset.describe('The offset to fetch next'),
  highWatermark: offset,
  logStartOffset: offset,
});

const listOffsetsSchema = z.strictObject({
  topic: topicName,
  partition: partitionParam,
  at: z.union([z.enum(['earliest', 'latest']), intParam(0)]),
});

/**
 * Reads once; when that finds nothing at the high watermark and the caller may wait, long-polls the
 * partition's STATE until the log end passes the offset or the wait runs out, then reads again.
 */
async function readOrWait<T>(
  ctx: SluiceContext,
  topic: TopicRef,
  input: FetchInput,
  read: () => Promise<T>,
  isEmpty: (result: T) => boolean,
  highWatermark: (result: T) => number,
): Promise<T> {
  const result = await read();
  const waitMs = Math.min(input.maxWaitMs, ctx.maxWaitMsLimit);
  if (!isEmpty(result) || waitMs <= 0 || input.offset < highWatermark(result)) return result;
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    await sleep(Math.min(LONG_POLL_INTERVAL_MS, Math.max(0, deadline - Date.now())));
    const state = await getPartitionState(ctx, topic, input.partition);
    if (state.logEndOffset > input.offset) return read();
  }
  return result;
}

async function fetchRecords(ctx: SluiceContext, raw: Record<string, unknown>) {
  const input = parseInput(fetchSchema, raw);
  validateTopicName(input.topic);
  const topic = await getTopicCached(ctx, input.topic, input.partition);
  const request = { offset: input.offset, maxBytes: Math.min(input.maxBytes, MAX_READ_BYTES_PER_FETCH) };
  if (input.format === 'batches') {
    const read = () => readBatches(ctx, topic, input.partition, request);
    const result = await readOrWait(ctx, topic, input, read, (r) => r.batches.length === 0, (r) => r.highWatermark);
    return toBatchesReply(ctx, result.batches, result.nextFetchOffset, result.highWatermark, result.logStartOffset);
  }
  const read = () => readRecords(ctx, topic, input.partition, request);
  const result = await readOrWait(ctx, topic, input, read, (r) => r.records.length === 0, (r) => r.highWatermark);
  const { response, payloadBytes } = toResponse(result, input.offset, input.encoding);
  ctx.metrics.fetched(response.records.length, payloadBytes);
  return response;
}

/**
 * Whole batches up to MAX_BATCH_RESPONSE_BYTES (the body goes out base64, under Lambda's 6 MB),
 * cut at a batch boundary and never below one batch; the offset to fetch next follows the last batch sent.
 */
function toBatchesReply(
  ctx: SluiceContext,
  batches: readonly Buffer[],
  nextFetchOffset: number,
  highWatermark: number,
  logStartOffset: number,
): RecordBatchesReply {
  let bytes = 0;
  let records = 0;
  let kept = 0;
  for (; kept < batches.length; kept++) {
    if (kept > 0 && bytes + batches[kept].length > MAX_BATCH_RESPONSE_BYTES) break;
    bytes += batches[kept].length;
    records += readBatchHeader(batches[kept]).recordCount;
  }
  if (kept < batches.length) nextFetchOffset = readBatchHeader(batches[kept - 1]).lastOffset + 1;
  // Records and bytes of whole batches: the consumer, not the server, drops those below the offset.
  ctx.metrics.fetched(records, bytes);
  // The HTTP API names it Sluice-Next-Offset (or `nextOffset` in the JSON of an invocation).
  return new RecordBatchesReply(batches.slice(0, kept), nextFetchOffset, highWatermark, logStartOffset);
}

/** Characters JSON.stringify escapes (quote, backslash, controls, lone surrogates): a string without them is copied as is. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** UTF-8 bytes of JSON.stringify(value) for a string or null, without building it when nothing needs escaping. */
function jsonBytes(value: string | null): number {
  if (value === null) return 4;
  return NEEDS_ESCAPE.test(value) ? Buffer.byteLength(JSON.stringify(value)) : Buffer.byteLength(value) + 2;
}

/**
 * UTF-8 bytes of JSON.stringify(record), computed from its parts: the whole response is serialized
 * once (by the router), not once per record here and again there.
 */
export function recordJsonBytes(record: { offset: number; timestamp: number; key: string | null; value: string | null; headers: { key: string; value: string | null }[] }): number {
  // {"offset":,"timestamp":,"key":,"value":,"headers":[]} is 53 characters
  let size = 53 + String(record.offset).length + String(record.timestamp).length + jsonBytes(record.key) + jsonBytes(record.value);
  for (const h of record.headers) size += 18 + jsonBytes(h.key) + jsonBytes(h.value); // {"key":,"value":} (17) and a comma
  return record.headers.length > 0 ? size - 1 : size;
}

/**
 * Encodes the records for the response, stopping (after at least one record) once the JSON would
 * pass RESPONSE_BUDGET_BYTES: tiny records expand roughly tenfold from RecordBatch bytes to JSON,
 * and a Lambda response is at most 6 MB (max.message.bytes is capped so one record always fits).
 * A cut inside a batch is safe: the consumer continues from `nextOffset`, and the read path drops
 * a batch's records below the offset asked for.
 */
function toResponse(result: ReadResult, offset: number, encoding: Encoding) {
  const records = [];
  let budget = RESPONSE_BUDGET_BYTES;
  /** Key and value bytes of the records answered (the BytesOut metric). */
  let payloadBytes = 0;
  let nextFetchOffset = result.nextFetchOffset;
  for (const r of result.records) {
    // A batch may start before the requested offset; Kafka clients skip those records, so do we.
    if (r.offset < offset) continue;
    const record = {
      offset: r.offset,
      timestamp: r.timestamp,
      key: encodeBytes(r.key, encoding),
      value: encodeBytes(r.value, encoding),
      headers: r.headers.map((h) => ({ key: h.key, value: encodeBytes(h.value, encoding) })),
    };
    const size = recordJsonBytes(record) + 1;
    budget -= size;
    if (budget < 0 && records.length > 0) {
      nextFetchOffset = r.offset;
      break;
    }
    // Alone in the answer and still over what a Lambda response carries: only utf8 can do that
    // (JSON escapes a control byte into 6 characters), so say how to read it instead of failing.
    if (size > MAX_JSON_RECORD_BYTES) {
      throw new SluiceError(
        'MESSAGE_TOO_LARGE',
        `the record at offset ${r.offset} is ${size} bytes as ${encoding} JSON, over the ${MAX_JSON_RECORD_BYTES} bytes one answer carries; fetch it with encoding=base64 or the record-batches format`,
        { offset: r.offset, size, maxBytes: MAX_JSON_RECORD_BYTES },
      );
    }
    records.push(record);
    payloadBytes += (r.key?.length ?? 0) + (r.value?.length ?? 0);
  }
  // The HTTP API's name for the offset to fetch next is `nextOffset` (the contract does not change).
  return {
    response: { records, nextOffset: nextFetchOffset, highWatermark: result.highWatermark, logStartOffset: result.logStartOffset },
    payloadBytes,
  };
}

const fetchOperation: Operation = {
  name: 'fetch',
  method: 'GET',
  path: '/v1/topics/{topic}/partitions/{partition}/records',
  answersBatches: true,
  summary: "Read a partition's records from an offset, long-polling up to maxWaitMs at the end (Kafka Fetch)",
  input: fetchSchema,
  response: { status: 200, body: fetchResponseSchema },
  async run(ctx, input) {
    return { status: 200, body: await fetchRecords(ctx, input) };
  },
};

const listOffsetsOperation: Operation = {
  name: 'listOffsets',
  method: 'GET',
  path: '/v1/topics/{topic}/partitions/{partition}/offsets',
  summary: 'The earliest or latest offset, or the first at or after a timestamp (Kafka ListOffsets)',
  input: listOffsetsSchema,
  response: {
    status: 200,
    body: z.strictObject({ offset, timestamp: z.int().optional().describe("The found record's timestamp (by timestamp)") }),
  },
  async run(ctx, raw) {
    const input = parseInput(listOffsetsSchema, raw);
    validateTopicName(input.topic);
    const topic = await getTopicCached(ctx, input.topic, input.partition);
    return { status: 200, body: await listOffsets(ctx, topic, input.partition, input.at) };
  },
};

export const fetchOperations: readonly Operation[] = [fetchOperation, listOffsetsOperation];
