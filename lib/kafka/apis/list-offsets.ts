// ListOffsets (key 2), versions 0-5 (kafkajs uses up to 3, librdkafka 2.0 up to 2, Java clients
// 4.x from 1; 4 adds leader epochs, 5 changes nothing on the wire; 6+ are flexible and bring
// max-timestamp and tiered-storage lookups, not served). Per partition, through
// lib/log/list-offsets.ts as the HTTP offsets route:
//   - timestamp -2 (EARLIEST): the log start offset; -1 (LATEST): the high watermark;
//   - a timestamp >= 0: the earliest offset whose record timestamp is at least it, with that
//     timestamp; when no record is that late, offset -1 and timestamp -1, as Kafka answers;
//   - v0 answers `oldStyleOffsets`: that one offset (none for a timestamp no record reaches).
// Sluice has no transactions, so read_committed (isolationLevel 1) sees what read_uncommitted
// sees: the last stable offset is the high watermark. The epoch is 0, the one every batch carries
// (log/batch-stamp.ts) and Metadata reports: a client's currentLeaderEpoch (v4+) below it is
// FENCED_LEADER_EPOCH, above it UNKNOWN_LEADER_EPOCH. A partition asked twice is INVALID_REQUEST.
import { SluiceError } from '../../errors.js';
import { PARTITION_LEADER_EPOCH } from '../../log/batch-stamp.js';
import { listOffsets } from '../../log/list-offsets.js';
import { type TopicMetadata, getTopicCached, validateTopicName } from '../../metadata/topics.js';
import type { KafkaApi, KafkaCall } from '../api-handler.js';
import { KafkaError } from '../protocol/error-codes.js';
import { ApiKey, type ListOffsetsRequest, type ListOffsetsResponse } from '../protocol/messages.js';
import { itemError } from './admin-results.js';

/** Kafka's ListOffsetsRequest special timestamps. */
export const EARLIEST_TIMESTAMP = -2n;
export const LATEST_TIMESTAMP = -1n;

type PartitionResult = ListOffsetsResponse.ListOffsetsPartitionResponse;

const UNKNOWN = -1n;

function failed(partitionIndex: number, errorCode: number): PartitionResult {
  return { partitionIndex, errorCode, oldStyleOffsets: [], timestamp: UNKNOWN, offset: UNKNOWN, leaderEpoch: -1 };
}

async function offsetOf(topic: TopicMetadata, p: ListOffsetsRequest.ListOffsetsPartition, call: KafkaCall): Promise<PartitionResult> {
  const ctx = call.gateway.ctx;
  if (call.apiVersion >= 4 && p.currentLeaderEpoch >= 0 && p.currentLeaderEpoch !== PARTITION_LEADER_EPOCH) {
    return failed(p.partitionIndex, p.currentLeaderEpoch < PARTITION_LEADER_EPOCH ? KafkaError.FENCED_LEADER_EPOCH : KafkaError.UNKNOWN_LEADER_EPOCH);
  }
  const found = (offset: number, timestamp: bigint): PartitionResult => ({
    partitionIndex: p.partitionIndex,
    errorCode: KafkaError.NONE,
    oldStyleOffsets: [BigInt(offset)],
    timestamp,
    offset: BigInt(offset),
    leaderEpoch: PARTITION_LEADER_EPOCH,
  });
  if (p.timestamp === EARLIEST_TIMESTAMP || p.timestamp === LATEST_TIMESTAMP) {
    const { offset } = await listOffsets(ctx, topic, p.partitionIndex, p.timestamp === EARLIEST_TIMESTAMP ? 'earliest' : 'latest');
    return found(offset, UNKNOWN);
  }
  if (p.timestamp < 0n) {
    throw new SluiceError('INVALID_REQUEST', `timestamp ${p.timestamp} is not supported: give -2 (earliest), -1 (latest) or a time in ms`);
  }
  // Later than any time a record can carry: no record is that late.
  if (p.timestamp > BigInt(Number.MAX_SAFE_INTEGER)) return { ...found(0, UNKNOWN), oldStyleOffsets: [], offset: UNKNOWN };
  const hit = await listOffsets(ctx, topic, p.partitionIndex, Number(p.timestamp));
  // No timestamp: no record is that late (the log answers the high watermark, Kafka -1/-1).
  if (hit.timestamp === undefined) return { ...found(0, UNKNOWN), oldStyleOffsets: [], offset: UNKNOWN };
  return found(hit.offset, BigInt(hit.timestamp));
}

async function topicResult(t: ListOffsetsRequest.ListOffsetsTopic, call: KafkaCall): Promise<ListOffsetsResponse.ListOffsetsTopicResponse> {
  let topic: TopicMetadata;
  try {
    validateTopicName(t.name);
    topic = await getTopicCached(call.gateway.ctx, t.name);
  } catch (e) {
    const { errorCode } = itemError(e, `list offsets of ${t.name}`);
    return { name: t.name, partitions: t.partitions.map((p) => failed(p.partitionIndex, errorCode)) };
  }
  const seen = new Set<number>();
  const twice = new Set(t.partitions.map((p) => p.partitionIndex).filter((i) => seen.has(i) || !seen.add(i)));
  const partitions = await Promise.all(
    t.partitions.map(async (p) => {
      if (twice.has(p.partitionIndex)) return failed(p.partitionIndex, KafkaError.INVALID_REQUEST);
      try {
        // A partition above the cached count is re-checked against the table (the topic may have grown).
        if (p.partitionIndex < 0) throw new SluiceError('UNKNOWN_TOPIC_OR_PARTITION', `partition ${p.partitionIndex} does not exist`);
        const current = p.partitionIndex < topic.partitions ? topic : await getTopicCached(call.gateway.ctx, t.name, p.partitionIndex);
        return await offsetOf(current, p, call);
      } catch (e) {
        return failed(p.partitionIndex, itemError(e, `list offsets of ${t.name}-${p.partitionIndex}`).errorCode);
      }
    }),
  );
  return { name: t.name, partitions };
}

export const listOffsetsApi: KafkaApi<ListOffsetsRequest, ListOffsetsResponse> = {
  apiKey: ApiKey.ListOffsets,
  name: 'ListOffsets',
  minVersion: 0,
  maxVersion: 5,
  async handle(request, call) {
    return { throttleTimeMs: 0, topics: await Promise.all(request.topics.map((t) => topicResult(t, call))) };
  },
  errorResponse(request, errorCode) {
    return { throttleTimeMs: 0, topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => failed(p.partitionIndex, errorCode)) })) };
  },
};
