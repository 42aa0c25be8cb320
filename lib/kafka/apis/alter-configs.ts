// AlterConfigs (key 33), versions 0-2 (kafkajs uses up to 1, librdkafka 2.0 0; 2 is flexible).
// Kafka's AlterConfigs REPLACES a resource's whole config: the keys listed get their values and
// every other key reverts to its default (IncrementalAlterConfigs changes only the keys named).
// A topic's change is validated whole and written at once (metadata/alter-topic-config.ts): one
// unknown key or bad value is INVALID_CONFIG and nothing changes; a null value or a key twice is
// INVALID_REQUEST. Broker configs are fixed: a broker resource accepts only the empty set (nothing
// to change), anything else is INVALID_REQUEST. validateOnly checks and changes nothing.
import { SluiceError } from '../../errors.js';
import { alterTopicConfig, topicConfigKeys } from '../../metadata/alter-topic-config.js';
import type { KafkaApi, KafkaCall } from '../api-handler.js';
import { ApiKey, type AlterConfigsRequest, type AlterConfigsResponse } from '../protocol/messages.js';
import { ConfigResourceType, alterEachResource, checkBrokerName, duplicateError, duplicates, unsupportedResource } from './admin-results.js';

/** Fixed broker configs: a change to any is refused, as Kafka refuses a static broker config. */
export function refuseBrokerChange(names: readonly string[]): void {
  if (names.length > 0) {
    throw new SluiceError('INVALID_REQUEST', `broker configs cannot be changed (${names.join(', ')}): Sluice's broker defaults are fixed; change topic configs instead`);
  }
}

async function alterResource(resource: AlterConfigsRequest.AlterConfigsResource, validateOnly: boolean, call: KafkaCall): Promise<void> {
  const names = resource.configs.map((c) => c.name);
  const twice = [...duplicates(names)];
  if (twice.length > 0) throw duplicateError('config', twice[0]);
  switch (resource.resourceType) {
    case ConfigResourceType.TOPIC: {
      const set: Record<string, string> = {};
      for (const { name, value } of resource.configs) {
        if (value === null) throw new SluiceError('INVALID_REQUEST', `null value not supported for topic config '${name}'`);
        set[name] = value;
      }
      const reverted = topicConfigKeys().filter((k) => !Object.hasOwn(set, k));
      await alterTopicConfig(call.gateway.ctx, resource.resourceName, { set, delete: reverted }, { validateOnly });
      return;
    }
    case ConfigResourceType.BROKER:
      checkBrokerName(resource.resourceName, call.gateway.nodeId);
      refuseBrokerChange(names);
      return;
    default:
      throw unsupportedResource(resource.resourceType, resource.resourceName);
  }
}

export const alterConfigsApi: KafkaApi<AlterConfigsRequest, AlterConfigsResponse> = {
  apiKey: ApiKey.AlterConfigs,
  name: 'AlterConfigs',
  minVersion: 0,
  maxVersion: 2,
  async handle(request, call) {
    const responses = await alterEachResource(request.resources, (r) => alterResource(r, request.validateOnly, call));
    return { throttleTimeMs: 0, responses };
  },
  errorResponse(request, errorCode) {
    return { throttleTimeMs: 0, responses: request.resources.map((r) => ({ errorCode, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName })) };
  },
};
