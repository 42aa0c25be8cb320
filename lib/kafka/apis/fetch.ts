// Fetch (key 1), versions 0-11 advertised (min 0 as every API; 12+ is flexible). RecordBatch v2 is
// what Sluice stores, and it travels in Fetch 4+ only: kafkajs decodes a v0-3 answer as the old
// MessageSet format, so v0-3 is answered UNSUPPORTED_VERSION per partition (no client that knows
// v4 sends them once the gateway advertises 11).
//
// Each partition is read as the HTTP fetch reads it (lib/log/read.ts readBatches: stored batches,
// stamped with their offsets, the first one holding the fetch offset even if it starts before it).
// Sizes as Kafka (KIP-74): whole batches within partition_max_bytes and, from v3, within the
// response's max_bytes in request order, except that the first batch of the first partition with
// data is returned whole even when larger, so a consumer always progresses.
//
// max_wait_ms / min_bytes: when fewer than min_bytes are available, the fetch waits (at most
// max_wait_ms, capped by SLUICE_MAX_WAIT_MS) in the gateway's FetchWaiter for any of its partitions
// to grow past what it saw, then reads again; it is answered as soon as min_bytes are there, at the
// deadline, or at once on any partition's error, and stops waiting when its connection closes.
//
// isolation_level: Sluice has no transactions, so every record is committed and read_committed
// reads what read_uncommitted reads: last_stable_offset = high watermark, no aborted transactions.
// Fetch sessions (KIP-227) are not kept: every answer has session_id 0, which tells the client to
// send full requests; a request naming a session gets FETCH_SESSION_ID_NOT_FOUND.
import type { SluiceError } from '../../errors.js';
import { isSluiceError } from '../../errors.js';
import { readBatches } from '../../log/read.js';
import type { TopicMetadata } from '../../metadata/topics.js';
import { logger } from '../../observability/logger.js';
import { readBatchHeader } from '../../records/index.js';
import type { KafkaApi, KafkaCall } from '../api-handler.js';
import type { WatchedPartition } from '../fetch-waiter.js';
import { KafkaError, NONE, UNSUPPORTED_VERSION, kafkaErrorCode } from '../protocol/error-codes.js';
import { ApiKey, type FetchRequest, type FetchResponse } from '../protocol/messages.js';
import { topicForPartitions } from '../topic-lookup.js';

/** The first version whose answers carry RecordBatches (magic 2). */
const FIRST_RECORD_BATCH_VERSION = 4;
/** The first version with a response-level max_bytes. */
const FIRST_MAX_BYTES_VERSION = 3;
/** Partitions read at once. */
const READ_CONCURRENCY = 16;
/** Bytes one partition read asks of the log at most (readBatches' maxBytes), whatever the request says. */
const MAX_READ_BYTES = 8 * 1024 * 1024;

/** One requested partition: where it is in the request, what to read, and its answer. */
interface Target {
  readonly topicIndex: number;
  readonly topic?: TopicMetadata;
  readonly partition: number;
  readonly offset: number;
  readonly maxBytes: number;
  /** Set when the partition cannot be read (unknown topic, offset out of range...). */
  errorCode?: number;
  batches: Buffer[];
  highWatermark: bigint;
  logStartOffset: bigint;
}

export const fetchApi: KafkaApi<FetchRequest, FetchResponse> = {
  apiKey: ApiKey.Fetch,
  name: 'Fetch',
  minVersion: 0,
  maxVersion: 11,
  async handle(request, call) {
    if (call.apiVersion < FIRST_RECORD_BATCH_VERSION) {
      logger.warn('kafka fetch: versions 0-3 carry the old MessageSet format, which Sluice does not store; answered UNSUPPORTED_VERSION', {
        apiVersion: call.apiVersion,
        clientId: call.clientId,
      });
      return errorAnswer(request, UNSUPPORTED_VERSION);
    }
    if (request.sessionId !== 0) return { throttleTimeMs: 0, errorCode: KafkaError.FETCH_SESSION_ID_NOT_FOUND, sessionId: 0, responses: [] };
    // Epoch 0 asks to open a session, -1 for none: both get a full answer and session_id 0.
    if (request.sessionEpoch > 0) return { throttleTimeMs: 0, errorCode: KafkaError.INVALID_FETCH_SESSION_EPOCH, sessionId: 0, responses: [] };

    const targets = await resolveTargets(request, call);
    const { ctx, fetchWaiter } = call.gateway;
    const waitMs = Math.min(Math.max(0, request.maxWaitMs), ctx.maxWaitMsLimit);
    const deadline = Date.now() + waitMs;
    const minBytes = Math.max(1, request.minBytes);
    const responseMaxBytes = call.apiVersion >= FIRST_MAX_BYTES_VERSION ? request.maxBytes : Number.MAX_SAFE_INTEGER;
    for (;;) {
      await readTargets(call, targets);
      const bytes = fitToLimits(targets, responseMaxBytes);
      const left = deadline - Date.now();
      if (bytes >= minBytes || left <= 0 || targets.some((t) => t.errorCode !== undefined && t.errorCode !== NONE)) break;
      // Wait for any partition to grow past what this read saw.
      const watched: WatchedPartition[] = targets.map((t) => ({ topic: t.topic!, partition: t.partition, offset: Number(t.highWatermark) }));
      if (!(await fetchWaiter.wait(watched, left, call.connection.signal))) break;
    }
    let records = 0;
    let bytes = 0;
    for (const t of targets) {
      for (const b of t.batches) {
        records += readBatchHeader(b).recordCount;
        bytes += b.length;
      }
    }
    ctx.metrics.fetched(records, bytes);
    return answer(request, targets);
  },
  errorResponse(request, errorCode) {
    return errorAnswer(request, errorCode);
  },
};

function errorAnswer(request: FetchRequest, errorCode: number): FetchResponse {
  // As Kafka's FetchRequest.getErrorResponse: the error at the top (v7+) and on every partition.
  return {
    throttleTimeMs: 0,
    errorCode,
    sessionId: 0,
    responses: request.topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode, highWatermark: -1n, lastStableOffset: -1n, logStartOffset: -1n, records: null })),
    })),
  };
}

async function resolveTargets(request: FetchRequest, call: KafkaCall): Promise<Target[]> {
  const { ctx } = call.gateway;
  const perTopic = await Promise.all(
    request.topics.map(async (t, topicIndex): Promise<Target[]> => {
      let topic: TopicMetadata | undefined;
      let topicError: number | undefined;
      try {
        topic = await topicForPartitions(ctx, t.topic, t.partitions.map((p) => p.partition));
      } catch (e) {
        if (!isSluiceError(e)) throw e;
        topicError = kafkaErrorCode(e);
      }
      return t.partitions.map((p): Target => {
        const target: Target = {
          topicIndex,
          topic,
          partition: p.partition,
          offset: Number(p.fetchOffset),
          maxBytes: Math.max(0, p.partitionMaxBytes),
          batches: [],
          highWatermark: -1n,
          logStartOffset: -1n,
          errorCode: topicError,
        };
        if (topic && (p.partition < 0 || p.partition >= topic.partitions)) target.errorCode = KafkaError.UNKNOWN_TOPIC_OR_PARTITION;
        else if (topic && (p.fetchOffset < 0n || p.fetchOffset > BigInt(Number.MAX_SAFE_INTEGER))) target.errorCode = KafkaError.OFFSET_OUT_OF_RANGE;
        return target;
      });
    }),
  );
  return perTopic.flat();
}

/** Reads every readable target's batches at its offset (again, on a later round of a long-poll). */
async function readTargets(call: KafkaCall, targets: readonly Target[]): Promise<void> {
  const { ctx } = call.gateway;
  const readable = targets.filter((t) => t.errorCode === undefined || t.errorCode === NONE);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < readable.length; i = next++) {
      const t = readable[i];
      try {
        const read = await readBatches(ctx, t.topic!, t.partition, { offset: t.offset, maxBytes: Math.max(1, Math.min(t.maxBytes, MAX_READ_BYTES)) });
        t.errorCode = NONE;
        t.batches = read.batches;
        t.highWatermark = BigInt(read.highWatermark);
        t.logStartOffset = BigInt(read.logStartOffset);
      } catch (e) {
        if (!isSluiceError(e)) throw e;
        t.errorCode = kafkaErrorCode(e);
        t.batches = [];
        if (e.code === 'OFFSET_OUT_OF_RANGE') {
          const { highWatermark, logStartOffset } = (e as SluiceError).details as { highWatermark?: number; logStartOffset?: number };
          if (highWatermark !== undefined) t.highWatermark = BigInt(highWatermark);
          if (logStartOffset !== undefined) t.logStartOffset = BigInt(logStartOffset);
        } else if (t.errorCode === KafkaError.UNKNOWN_SERVER_ERROR) {
          logger.error('kafka fetch: read failed', { topic: t.topic!.name, partition: t.partition, error: e });
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, readable.length) }, worker));
}

/**
 * Keeps whole batches within each partition's max bytes and the response's, in request order; the
 * first batch of the first partition with data is kept even when larger (Kafka's KIP-74). Returns
 * the bytes kept.
 */
function fitToLimits(targets: readonly Target[], responseMaxBytes: number): number {
  let total = 0;
  let first = true;
  for (const t of targets) {
    const kept: Buffer[] = [];
    let bytes = 0;
    const limit = Math.min(t.maxBytes, responseMaxBytes - total);
    for (const b of t.batches) {
      if (bytes + b.length > limit && !(first && kept.length === 0)) break;
      kept.push(b);
      bytes += b.length;
    }
    t.batches = kept;
    total += bytes;
    if (kept.length > 0) first = false;
  }
  return total;
}

function answer(request: FetchRequest, targets: readonly Target[]): FetchResponse {
  const abortedTransactions = request.isolationLevel === 1 ? [] : null;
  return {
    throttleTimeMs: 0,
    errorCode: NONE,
    sessionId: 0,
    responses: request.topics.map((t, topicIndex) => ({
      topic: t.topic,
      partitions: targets
        .filter((target) => target.topicIndex === topicIndex)
        .map((target) => ({
          partitionIndex: target.partition,
          errorCode: target.errorCode ?? NONE,
          highWatermark: target.highWatermark,
          lastStableOffset: target.highWatermark,
          logStartOffset: target.logStartOffset,
          abortedTransactions,
          preferredReadReplica: -1,
          records: target.batches.length === 0 ? Buffer.alloc(0) : target.batches.length === 1 ? target.batches[0] : Buffer.concat(target.batches),
        })),
    })),
  };
}
