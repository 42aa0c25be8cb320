// Produce (key 0), versions 0-7 advertised (min 0: librdkafka turns gzip, snappy and lz4 on only
// when Produce 0 is; 9+ is flexible). Only RecordBatch v2 is stored: a v0-2 request carrying an old
// MessageSet (magic 0 or 1) is answered UNSUPPORTED_FOR_MESSAGE_FORMAT per partition. Clients that
// know v3 (kafkajs, librdkafka, Java) always send RecordBatches.
//
// Each partition's batch is checked as the record-batches HTTP body checks it (lib/api/batch-body.ts
// checkProducedBatch: CRC, structure, producer rules, max.message.bytes; an idempotent producer's
// id must be one the cluster issued), then the whole request goes into the gateway's produce
// batching window (produce-batcher.ts), which writes the requests of every connection with one
// intake object, and is answered once committed: per partition its base offset or Kafka's error.
// An idempotent producer's resent last batch is answered with its original offset and no error,
// as a Kafka broker answers it. From v5 a partition's answer carries its log start offset, read
// off the STATE its commit returns (no extra request); -1 with an error, as Kafka answers.
//
// acks: 1 and -1 are answered after the commit (Sluice has no replicas to wait for: a commit is
// durable in S3 and DynamoDB); 0 gets no response, and a partition that failed closes the
// connection, as Kafka does, so the client notices and refreshes its metadata. A connection's
// requests enter the batching window in the order they arrived, so pipelined requests keep their
// order in each partition. Transactions are not supported: a request with a transactionalId is
// answered TRANSACTIONAL_ID_AUTHORIZATION_FAILED (InitProducerId refuses such producers first).
import { isSluiceError } from '../../errors.js';
import { ProducedBatchError, checkProducedBatch } from '../../api/batch-body.js';
import type { AppendRequest, PartitionAppend, PartitionAppendResult } from '../../log/append.js';
import { isIssuedProducerId } from '../../metadata/producer-ids.js';
import type { TopicMetadata } from '../../metadata/topics.js';
import { logger } from '../../observability/logger.js';
import type { KafkaApi, KafkaCall } from '../api-handler.js';
import { topicForPartitions } from '../topic-lookup.js';
import { KafkaError, NONE, kafkaErrorCode, kafkaErrorName } from '../protocol/error-codes.js';
import { ApiKey, type ProduceRequest, type ProduceResponse } from '../protocol/messages.js';

/** RecordBatch v2: the magic byte's position and the bytes before the batch length's end. */
const MAGIC_AT = 16;
const LOG_OVERHEAD = 12;
const INT16_MAX = 0x7fff;

/** One partition of the request: the append to make, or the error it is answered with. */
interface PartitionPlan {
  readonly index: number;
  errorCode?: number;
  append?: PartitionAppend;
  /** Set once committed. */
  baseOffset?: bigint;
  /** The partition's log start offset the commit found (Produce v5+); -1 with an error, as Kafka answers. */
  logStartOffset?: bigint;
}

interface TopicPlan {
  readonly name: string;
  readonly topic?: TopicMetadata;
  readonly partitions: PartitionPlan[];
}

export const produceApi: KafkaApi<ProduceRequest, ProduceResponse> = {
  apiKey: ApiKey.Produce,
  name: 'Produce',
  minVersion: 0,
  maxVersion: 7,
  async handle(request, call) {
    const planned = plan(request, call);
    planned.catch(() => undefined); // awaited in the lane below; this only marks a rejection as handled meanwhile
    // Enter the window after this connection's previous request did, whatever finished planning
    // first; the lane waits for the entry only, not for the commit, so pipelined requests overlap.
    const { topics, committed } = await call.connection.serially('produce', async () => {
      const topics = await planned;
      return { topics, committed: append(call, topics) };
    });
    if (request.acks === 0) {
      void committed.then(
        () => {
          if (topics.some((t) => t.partitions.some((p) => p.errorCode !== NONE))) call.connection.close();
        },
        () => call.connection.close(),
      );
      return undefined;
    }
    await committed;
    return {
      throttleTimeMs: 0,
      responses: topics.map((t) => ({
        name: t.name,
        partitionResponses: t.partitions.map((p) => ({ index: p.index, errorCode: p.errorCode ?? NONE, baseOffset: p.baseOffset ?? -1n, logAppendTimeMs: -1n, logStartOffset: p.logStartOffset ?? -1n })),
      })),
    };
  },
  errorResponse(request, errorCode) {
    return {
      responses: request.topicData.map((t) => ({
        name: t.name,
        partitionResponses: t.partitionData.map((p) => ({ index: p.index, errorCode, baseOffset: -1n })),
      })),
    };
  },
};

/** Checks the whole request; nothing is written for a partition that has an errorCode here. */
async function plan(request: ProduceRequest, call: KafkaCall): Promise<TopicPlan[]> {
  const everywhere = (errorCode: number) =>
    request.topicData.map((t) => ({ name: t.name, partitions: t.partitionData.map((p) => ({ index: p.index, errorCode })) }));
  if (request.acks !== 0 && request.acks !== 1 && request.acks !== -1) return everywhere(KafkaError.INVALID_REQUIRED_ACKS);
  if (request.transactionalId !== null) return everywhere(KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  const { ctx } = call.gateway;
  const producerIds = new Map<number, Promise<boolean>>();
  const issued = (id: number) => {
    let known = producerIds.get(id);
    if (!known) producerIds.set(id, (known = isIssuedProducerId(ctx, id)));
    return known;
  };
  return Promise.all(
    request.topicData.map(async (t): Promise<TopicPlan> => {
      const failAll = (errorCode: number) => ({ name: t.name, partitions: t.partitionData.map((p) => ({ index: p.index, errorCode })) });
      let topic: TopicMetadata;
      try {
        topic = await topicForPartitions(ctx, t.name, t.partitionData.map((p) => p.index));
      } catch (e) {
        if (!isSluiceError(e)) throw e;
        return failAll(kafkaErrorCode(e));
      }
      const partitions = await Promise.all(t.partitionData.map((p) => planPartition(topic, p, call.apiVersion, issued)));
      return { name: t.name, topic, partitions };
    }),
  );
}

async function planPartition(
  topic: TopicMetadata,
  p: ProduceRequest.PartitionProduceData,
  apiVersion: number,
  issued: (producerId: number) => Promise<boolean>,
): Promise<PartitionPlan> {
  const { index, records } = p;
  const refuse = (errorCode: number, why: string): PartitionPlan => {
    logger.info('kafka produce: partition refused', { topic: topic.name, partition: index, error: kafkaErrorName(errorCode), why });
    return { index, errorCode };
  };
  if (index < 0 || index >= topic.partitions) return { index, errorCode: KafkaError.UNKNOWN_TOPIC_OR_PARTITION };
  if (!records || records.length === 0) return refuse(KafkaError.INVALID_RECORD, 'no records');
  if (records.length <= MAGIC_AT) return refuse(KafkaError.CORRUPT_MESSAGE, `${records.length} bytes cannot hold a record batch`);
  const magic = records.readInt8(MAGIC_AT);
  if (magic !== 2) {
    return refuse(KafkaError.UNSUPPORTED_FOR_MESSAGE_FORMAT, `message format v${magic} (Produce v${apiVersion}); Sluice stores RecordBatch v2 (magic 2) only`);
  }
  const batchSize = LOG_OVERHEAD + records.readInt32BE(8);
  if (batchSize > records.length) return refuse(KafkaError.CORRUPT_MESSAGE, `the batch claims ${batchSize} bytes, ${records.length} were sent`);
  // Kafka's rule for magic 2: exactly one batch per partition in a produce request.
  if (batchSize < records.length) return refuse(KafkaError.INVALID_RECORD, 'a produce request carries exactly one record batch per partition');
  let checked: ReturnType<typeof checkProducedBatch>;
  try {
    checked = checkProducedBatch(records);
  } catch (e) {
    if (!(e instanceof ProducedBatchError)) throw e;
    const code = {
      corrupt: KafkaError.CORRUPT_MESSAGE,
      compression: KafkaError.UNSUPPORTED_COMPRESSION_TYPE,
      'producer-rule': KafkaError.INVALID_RECORD,
      'too-large': KafkaError.MESSAGE_TOO_LARGE,
    }[e.fault];
    return refuse(code, e.message);
  }
  const limit = topic.config['max.message.bytes'];
  if (checked.size > limit) return refuse(KafkaError.MESSAGE_TOO_LARGE, `the batch is ${checked.size} bytes (decompressed), over max.message.bytes ${limit}`);
  const { header } = checked;
  let producer: PartitionAppend['producer'];
  // Kafka ignores a batch's epoch and sequence when its producer id is -1 (not idempotent).
  if (header.producerId !== -1) {
    if (header.producerId < 0 || header.producerEpoch < 0 || header.producerEpoch > INT16_MAX || header.baseSequence < 0) {
      return refuse(KafkaError.INVALID_RECORD, `idempotent batch with producerId ${header.producerId}, epoch ${header.producerEpoch}, sequence ${header.baseSequence}`);
    }
    if (!(await issued(header.producerId))) return refuse(KafkaError.UNKNOWN_PRODUCER_ID, `producer id ${header.producerId} was not issued by this cluster (InitProducerId)`);
    producer = { producerId: header.producerId, producerEpoch: header.producerEpoch, baseSequence: header.baseSequence };
  }
  return { index, append: { partition: index, batch: { bytes: records, count: header.recordCount, minTimestamp: checked.minTimestamp }, producer } };
}

/** Puts the planned appends into the batching window and fills in each partition's answer once committed. */
async function append(call: KafkaCall, topics: readonly TopicPlan[]): Promise<void> {
  const requests: AppendRequest[] = [];
  const answered: PartitionPlan[][] = [];
  for (const t of topics) {
    const withAppend = t.partitions.filter((p) => p.append);
    if (!t.topic || withAppend.length === 0) continue;
    requests.push({ topic: t.topic, appends: withAppend.map((p) => p.append!) });
    answered.push(withAppend);
  }
  if (requests.length === 0) return;
  let results: PartitionAppendResult[][];
  try {
    results = await call.gateway.produceBatcher.append(requests);
  } catch (e) {
    const errorCode = kafkaErrorCode(e);
    if (!isSluiceError(e)) logger.error('kafka produce: append failed', { error: e });
    for (const list of answered) for (const p of list) p.errorCode = errorCode;
    return;
  }
  results.forEach((list, i) =>
    list.forEach((r, j) => {
      const p = answered[i][j];
      if ('error' in r) {
        p.errorCode = kafkaErrorCode(r.error);
        if (!isSluiceError(r.error) || r.error.code === 'UNKNOWN_SERVER_ERROR') logger.error('kafka produce: append failed', { partition: r.partition, error: r.error });
      } else {
        // A resent last batch of an idempotent producer (duplicate) is answered as Kafka does: no error, its original offset.
        p.errorCode = NONE;
        p.baseOffset = BigInt(r.baseOffset);
        p.logStartOffset = BigInt(r.logStartOffset ?? -1);
      }
    }),
  );
}
