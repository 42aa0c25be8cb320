// Metadata (key 3), versions 0-12 (9+ flexible; kafkajs uses up to 6, librdkafka 2.0 up to 4,
// Java clients 12). The gateway names itself as the only broker, the controller and the leader
// (and sole replica and ISR member) of every partition, as WarpStream's agents do: any gateway
// serves any partition, so a client needs no other. Partition leader epochs are 0, the epoch
// Sluice's batches carry.
//
// Topics are never auto-created: `allowAutoTopicCreation` is ignored and an unknown topic is
// UNKNOWN_TOPIC_OR_PARTITION, because Sluice creates topics only on an explicit request
// (CreateTopics, the HTTP API, the CLI) with explicit partition counts and configs.
import { isSluiceError } from '../../errors.js';
import { getTopic, listTopics, validateTopicName, type TopicMetadata } from '../../metadata/topics.js';
import type { KafkaApi } from '../api-handler.js';
import type { GatewayServices } from '../gateway-services.js';
import { ZERO_UUID } from '../protocol/codec.js';
import { KafkaError, NONE, kafkaErrorCode } from '../protocol/error-codes.js';
import { ApiKey, type MetadataRequest, type MetadataResponse } from '../protocol/messages.js';
import { topicUuid } from '../topic-id.js';

/** More names than this in one request are answered from one listing instead of a read per name. */
const LIST_ABOVE_NAMES = 8;

export const metadataApi: KafkaApi<MetadataRequest, MetadataResponse> = {
  apiKey: ApiKey.Metadata,
  name: 'Metadata',
  minVersion: 0,
  maxVersion: 12,
  async handle(request, call) {
    const gateway = call.gateway;
    // v0 asks for every topic with an empty list; v1+ with null (and an empty list means none).
    const all = request.topics === null || (call.apiVersion === 0 && request.topics.length === 0);
    const topics = all ? (await listTopics(gateway.ctx)).map((t) => topicEntry(gateway, t)) : await requestedTopics(gateway, request.topics ?? []);
    return {
      throttleTimeMs: 0,
      brokers: [{ nodeId: gateway.nodeId, host: gateway.advertisedHost, port: gateway.advertisedPort, rack: null }],
      clusterId: gateway.clusterId,
      controllerId: gateway.nodeId,
      topics,
    };
  },
  errorResponse(request, errorCode, call) {
    return {
      brokers: [{ nodeId: call.gateway.nodeId, host: call.gateway.advertisedHost, port: call.gateway.advertisedPort }],
      clusterId: call.gateway.clusterId,
      controllerId: call.gateway.nodeId,
      topics: (request.topics ?? []).map((t) => ({ errorCode, name: t.name ?? '', topicId: t.topicId, partitions: [] })),
    };
  },
};

async function requestedTopics(gateway: GatewayServices, requested: readonly MetadataRequest.MetadataRequestTopic[]): Promise<MetadataResponse.MetadataResponseTopic[]> {
  const byId = requested.some((t) => t.name === null);
  let listing: Map<string, TopicMetadata> | undefined;
  if (byId || requested.length > LIST_ABOVE_NAMES) listing = new Map((await listTopics(gateway.ctx)).map((t) => [t.name, t]));
  return Promise.all(
    requested.map(async (wanted): Promise<MetadataResponse.MetadataResponseTopic> => {
      if (wanted.name === null) {
        // v10+ may name a topic by id only.
        const found = [...listing!.values()].find((t) => topicUuid(t.id) === wanted.topicId);
        if (!found || wanted.topicId === ZERO_UUID) return { errorCode: KafkaError.UNKNOWN_TOPIC_ID, name: null, topicId: wanted.topicId, partitions: [] };
        return topicEntry(gateway, found);
      }
      const name = wanted.name;
      try {
        validateTopicName(name);
      } catch (e) {
        if (!isSluiceError(e)) throw e;
        return { errorCode: kafkaErrorCode(e), name, partitions: [] };
      }
      const topic = listing ? listing.get(name) : await getTopic(gateway.ctx, name);
      if (!topic) return { errorCode: KafkaError.UNKNOWN_TOPIC_OR_PARTITION, name, partitions: [] };
      return topicEntry(gateway, topic);
    }),
  );
}

function topicEntry(gateway: GatewayServices, topic: TopicMetadata): MetadataResponse.MetadataResponseTopic {
  const node = gateway.nodeId;
  return {
    errorCode: NONE,
    name: topic.name,
    topicId: topicUuid(topic.id),
    isInternal: false,
    partitions: Array.from({ length: topic.partitions }, (_, partitionIndex) => ({
      errorCode: NONE,
      partitionIndex,
      leaderId: node,
      leaderEpoch: 0,
      replicaNodes: [node],
      isrNodes: [node],
      offlineReplicas: [],
    })),
  };
}
