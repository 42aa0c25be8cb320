// CreateTopics (key 19), versions 0-7 (kafkajs uses up to 3, librdkafka 2.0 up to 4, Java
// clients 4.x 2-7; 5+ are flexible and answer the created topic's partitions and configs, 7 its id).
// Each topic is created or refused on its own, as by a Kafka controller:
//   - numPartitions -1 takes the default (num.partitions, 1, as Kafka's); replicationFactor -1 or
//     1 is accepted (every partition's data lives in S3 and DynamoDB, no broker holds a replica);
//     anything else is INVALID_REPLICATION_FACTOR;
//   - a manual replica assignment is INVALID_REQUEST: a gateway leads every partition;
//   - configs are validated as over HTTP (INVALID_CONFIG; a null value too, as Kafka);
//   - a name twice in one request is INVALID_REQUEST for it;
//   - validateOnly checks all of that and whether the topic exists, and creates nothing.
import type { SluiceContext } from '../../context.js';
import { SluiceError } from '../../errors.js';
import { topicConfigEntries } from '../../metadata/topic-config-entries.js';
import {
  type TopicConfig,
  createTopic,
  getTopic,
  resolveTopicConfig,
  validatePartitionCount,
  validateTopicName,
} from '../../metadata/topics.js';
import type { KafkaApi } from '../api-handler.js';
import { ZERO_UUID } from '../protocol/codec.js';
import { KafkaError } from '../protocol/error-codes.js';
import { ApiKey, type CreateTopicsRequest, type CreateTopicsResponse } from '../protocol/messages.js';
import { topicUuid } from '../topic-id.js';
import { type ItemError, duplicateError, duplicates, itemError, kafkaItemError, sourceId } from './admin-results.js';

/** Kafka's num.partitions default: the partition count of a topic created with numPartitions -1. */
export const DEFAULT_NUM_PARTITIONS = 1;

/** The only replication factor Sluice has: the storage services replicate, not brokers. */
export const REPLICATION_FACTOR = 1;

interface Created {
  readonly partitions: number;
  readonly config: TopicConfig;
  readonly topicId: string;
}

/** The topic's configs as CreateTopics v5+ answers them. */
function configsOf(config: TopicConfig): CreateTopicsResponse.CreatableTopicConfigs[] {
  return topicConfigEntries(config).map((e) => ({
    name: e.name,
    value: e.value,
    readOnly: e.readOnly,
    configSource: sourceId(e.source),
    isSensitive: e.sensitive,
  }));
}

/** The request's configs as a map; a null value or a name twice is refused as Kafka refuses them. */
function configMap(topic: CreateTopicsRequest.CreatableTopic): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { name, value } of topic.configs) {
    if (value === null) throw new SluiceError('INVALID_CONFIG', `null value not supported for topic config '${name}'`);
    if (Object.hasOwn(out, name)) throw new SluiceError('INVALID_CONFIG', `topic config '${name}' is given more than once`);
    out[name] = value;
  }
  return out;
}

async function createOne(
  topic: CreateTopicsRequest.CreatableTopic,
  validateOnly: boolean,
  ctx: SluiceContext,
): Promise<Created | ItemError> {
  try {
    validateTopicName(topic.name);
    if (topic.assignments.length > 0) {
      throw new SluiceError('INVALID_REQUEST', 'manual replica assignment is not supported: every partition is served by every gateway');
    }
    if (topic.replicationFactor !== -1 && topic.replicationFactor !== REPLICATION_FACTOR) {
      return kafkaItemError(
        KafkaError.INVALID_REPLICATION_FACTOR,
        `replication factor must be 1 or -1 (the default), got ${topic.replicationFactor}: S3 and DynamoDB replicate every partition, brokers hold no replicas`,
      );
    }
    const partitions = topic.numPartitions === -1 ? DEFAULT_NUM_PARTITIONS : topic.numPartitions;
    validatePartitionCount(partitions);
    const configs = configMap(topic);
    if (validateOnly) {
      const config = resolveTopicConfig(configs);
      const existing = await getTopic(ctx, topic.name);
      if (existing) throw new SluiceError('TOPIC_ALREADY_EXISTS', `topic '${topic.name}' already exists`);
      return { partitions, config, topicId: ZERO_UUID };
    }
    const created = await createTopic(ctx, topic.name, partitions, configs);
    return { partitions: created.partitions, config: created.config, topicId: topicUuid(created.id) };
  } catch (e) {
    return itemError(e, `create topic ${topic.name}`);
  }
}

export const createTopicsApi: KafkaApi<CreateTopicsRequest, CreateTopicsResponse> = {
  apiKey: ApiKey.CreateTopics,
  name: 'CreateTopics',
  minVersion: 0,
  maxVersion: 7,
  async handle(request, call) {
    const twice = duplicates(request.topics.map((t) => t.name));
    const results = await Promise.all(
      request.topics.map(async (topic): Promise<CreateTopicsResponse.CreatableTopicResult> => {
        const outcome = twice.has(topic.name)
          ? itemError(duplicateError('topic', topic.name), '')
          : await createOne(topic, request.validateOnly, call.gateway.ctx);
        if ('errorCode' in outcome) return { name: topic.name, errorCode: outcome.errorCode, errorMessage: outcome.errorMessage, configs: null };
        return {
          name: topic.name,
          topicId: outcome.topicId,
          errorCode: KafkaError.NONE,
          errorMessage: null,
          numPartitions: outcome.partitions,
          replicationFactor: REPLICATION_FACTOR,
          configs: configsOf(outcome.config),
        };
      }),
    );
    return { throttleTimeMs: 0, topics: dedupe(results) };
  },
  errorResponse(request, errorCode) {
    return { throttleTimeMs: 0, topics: dedupe(request.topics.map((t) => ({ name: t.name, errorCode, errorMessage: null, configs: null }))) };
  },
};

/** One result per name, as Kafka's response keys results by topic name. */
function dedupe<T extends { name?: string }>(results: readonly T[]): T[] {
  const seen = new Set<string>();
  return results.filter((r) => !seen.has(r.name!) && (seen.add(r.name!), true));
}
