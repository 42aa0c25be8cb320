// DescribeConfigs (key 32), versions 0-4 (kafkajs uses up to 2, librdkafka 2.0 up to 1; 3 adds
// types and documentation, 4 is flexible).
//   - A topic: every config Sluice keeps (or the configurationKeys asked for that it has), with
//     its value, source (set on the topic, or the default; v0 says isDefault), never read-only or
//     sensitive, and with includeSynonyms (v1+) the topic's own setting then the broker default
//     it falls back to (metadata/topic-config-entries.ts).
//   - A broker (this gateway's node id, or '' for the cluster default): the broker-wide defaults
//     topics fall back to, under Kafka's broker config names, read-only — Sluice has no dynamic
//     broker configs — plus num.partitions and default.replication.factor (what CreateTopics
//     fills in for -1).
//   - Any other resource type is INVALID_REQUEST for that resource.
import { type TopicConfigEntry, brokerDefaultEntries, topicConfigEntries } from '../../metadata/topic-config-entries.js';
import { requireTopic, validateTopicName } from '../../metadata/topics.js';
import type { KafkaApi, KafkaCall } from '../api-handler.js';
import { KafkaError } from '../protocol/error-codes.js';
import { ApiKey, type DescribeConfigsRequest, type DescribeConfigsResponse } from '../protocol/messages.js';
import { ConfigResourceType, ConfigSourceId, checkBrokerName, itemError, sourceId, unsupportedResource } from './admin-results.js';
import { DEFAULT_NUM_PARTITIONS, REPLICATION_FACTOR } from './create-topics.js';

type ConfigResult = DescribeConfigsResponse.DescribeConfigsResourceResult;

/** Kafka's ConfigDef types (DescribeConfigs v3+ configType): STRING 2, INT 3, LONG 5, DOUBLE 6, LIST 7. */
const CONFIG_TYPES: Readonly<Record<string, number>> = {
  'cleanup.policy': 7,
  'min.cleanable.dirty.ratio': 6,
  'segment.bytes': 3,
  'max.message.bytes': 3,
  'index.interval.bytes': 3,
  'log.segment.bytes': 3,
  'message.max.bytes': 3,
  'log.index.interval.bytes': 3,
  'log.cleanup.policy': 7,
  'log.cleaner.min.cleanable.ratio': 6,
  'num.partitions': 3,
  'default.replication.factor': 3,
};
const LONG = 5;

const DOCUMENTATION: Readonly<Record<string, string>> = {
  'retention.ms': 'Records older than this are deleted, whole segments at a time, at the next maintenance run; -1 keeps them forever.',
  'retention.bytes': 'Per partition: the oldest segments are deleted while the rest is at least this large; -1 is unlimited.',
  'segment.bytes': 'Segment merging makes segments of at most this size.',
  'segment.ms': 'Segment merging does not grow a segment past spanning this much time.',
  'max.message.bytes': 'The largest record batch a producer may send.',
  'cleanup.policy': "'delete' (retention by time and size), 'compact' (the newest record of each key is kept), or both.",
  'index.interval.bytes': 'Bytes between offset-index entries of a merged segment.',
};

function entryResult(e: TopicConfigEntry, call: KafkaCall, request: DescribeConfigsRequest): ConfigResult {
  return {
    name: e.name,
    value: e.value,
    readOnly: e.readOnly,
    isDefault: e.isDefault,
    configSource: sourceId(e.source),
    isSensitive: e.sensitive,
    synonyms: call.apiVersion >= 1 && request.includeSynonyms ? e.synonyms.map((s) => ({ name: s.name, value: s.value, source: sourceId(s.source) })) : [],
    configType: CONFIG_TYPES[e.name] ?? LONG,
    documentation: request.includeDocumentation ? (DOCUMENTATION[e.name] ?? null) : null,
  };
}

function brokerConfigs(keys: readonly string[] | null, call: KafkaCall, request: DescribeConfigsRequest): ConfigResult[] {
  const extra = [
    { name: 'default.replication.factor', value: String(REPLICATION_FACTOR) },
    { name: 'num.partitions', value: String(DEFAULT_NUM_PARTITIONS) },
  ].filter((e) => !keys || keys.includes(e.name));
  const entries = [...brokerDefaultEntries(keys), ...extra].sort((a, b) => (a.name < b.name ? -1 : 1));
  return entries.map((e) => ({
    name: e.name,
    value: e.value,
    readOnly: true,
    isDefault: true,
    configSource: ConfigSourceId.DEFAULT_CONFIG,
    isSensitive: false,
    synonyms: call.apiVersion >= 1 && request.includeSynonyms ? [{ name: e.name, value: e.value, source: ConfigSourceId.DEFAULT_CONFIG }] : [],
    configType: CONFIG_TYPES[e.name] ?? LONG,
    documentation: null,
  }));
}

async function describeResource(resource: DescribeConfigsRequest.DescribeConfigsResource, request: DescribeConfigsRequest, call: KafkaCall): Promise<ConfigResult[]> {
  switch (resource.resourceType) {
    case ConfigResourceType.TOPIC: {
      validateTopicName(resource.resourceName);
      const topic = await requireTopic(call.gateway.ctx, resource.resourceName);
      return topicConfigEntries(topic.config, resource.configurationKeys).map((e) => entryResult(e, call, request));
    }
    case ConfigResourceType.BROKER:
      checkBrokerName(resource.resourceName, call.gateway.nodeId);
      return brokerConfigs(resource.configurationKeys, call, request);
    default:
      throw unsupportedResource(resource.resourceType, resource.resourceName);
  }
}

export const describeConfigsApi: KafkaApi<DescribeConfigsRequest, DescribeConfigsResponse> = {
  apiKey: ApiKey.DescribeConfigs,
  name: 'DescribeConfigs',
  minVersion: 0,
  maxVersion: 4,
  async handle(request, call) {
    const results = await Promise.all(
      request.resources.map(async (resource): Promise<DescribeConfigsResponse.DescribeConfigsResult> => {
        const base = { resourceType: resource.resourceType, resourceName: resource.resourceName };
        try {
          const configs = await describeResource(resource, request, call);
          return { ...base, errorCode: KafkaError.NONE, errorMessage: null, configs };
        } catch (e) {
          return { ...base, ...itemError(e, `describe configs of ${resource.resourceName}`), configs: [] };
        }
      }),
    );
    return { throttleTimeMs: 0, results };
  },
  errorResponse(request, errorCode) {
    return {
      throttleTimeMs: 0,
      results: request.resources.map((r) => ({ errorCode, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName, configs: [] })),
    };
  },
};

