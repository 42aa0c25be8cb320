// IncrementalAlterConfigs (key 44), versions 0-1 (1 is flexible; newer Java clients and
// kafka-configs.sh use it, kafkajs and librdkafka 2.0 do not). Each config names an operation:
// SET a value, DELETE (back to the default), APPEND to / SUBTRACT from a list config
// (`cleanup.policy` is the one Sluice keeps; on any other key they are INVALID_REQUEST). Keys not
// named keep their values. A topic's changes are validated whole and written at once
// (metadata/alter-topic-config.ts; APPEND and SUBTRACT are derived again from the winner's config
// after a lost race): one bad value is INVALID_CONFIG and nothing changes. A null SET value, an
// unknown operation or a key twice is INVALID_REQUEST. Broker configs are fixed (alter-configs.ts).
import { SluiceError } from '../../errors.js';
import { type TopicConfigChanges, alterTopicConfig } from '../../metadata/alter-topic-config.js';
import type { TopicConfig } from '../../metadata/topics.js';
import type { KafkaApi, KafkaCall } from '../api-handler.js';
import { ApiKey, type IncrementalAlterConfigsRequest, type IncrementalAlterConfigsResponse } from '../protocol/messages.js';
import { ConfigResourceType, alterEachResource, checkBrokerName, duplicateError, duplicates, unsupportedResource } from './admin-results.js';
import { refuseBrokerChange } from './alter-configs.js';

/** Kafka's AlterConfigOp.OpType ids. */
export const OpType = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;

/** Topic configs whose value is a comma-separated list (Kafka's ConfigDef.Type.LIST). */
const LIST_CONFIGS: ReadonlySet<string> = new Set(['cleanup.policy']);

const listOf = (value: string | number | undefined): string[] =>
  String(value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v.length > 0);

type AlterableConfig = IncrementalAlterConfigsRequest.AlterableConfig;

/** Checks every operation before anything is read: shape errors need no config. */
function checkOperations(configs: readonly AlterableConfig[]): void {
  for (const c of configs) {
    switch (c.configOperation) {
      case OpType.SET:
        if (c.value === null) throw new SluiceError('INVALID_REQUEST', `null value not supported for SET of '${c.name}'`);
        break;
      case OpType.DELETE:
        break;
      case OpType.APPEND:
      case OpType.SUBTRACT:
        if (!LIST_CONFIGS.has(c.name)) {
          const op = c.configOperation === OpType.APPEND ? 'APPEND' : 'SUBTRACT';
          throw new SluiceError('INVALID_REQUEST', `config value ${op} is not allowed for '${c.name}': it is not a list config`);
        }
        if (c.value === null) throw new SluiceError('INVALID_REQUEST', `null value not supported for ${c.configOperation === OpType.APPEND ? 'APPEND' : 'SUBTRACT'} to '${c.name}'`);
        break;
      default:
        throw new SluiceError('INVALID_REQUEST', `unknown config operation ${c.configOperation} for '${c.name}' (SET 0, DELETE 1, APPEND 2, SUBTRACT 3)`);
    }
  }
}

/** The set/delete change the operations make to `current`. */
export function changesFor(configs: readonly AlterableConfig[], current: TopicConfig): TopicConfigChanges {
  const values = current as unknown as Readonly<Record<string, string | number>>;
  const set: Record<string, string> = {};
  const del: string[] = [];
  for (const c of configs) {
    if (c.configOperation === OpType.SET) set[c.name] = c.value!;
    else if (c.configOperation === OpType.DELETE) del.push(c.name);
    else {
      const items = listOf(values[c.name]);
      const operand = listOf(c.value!);
      const next = c.configOperation === OpType.APPEND ? [...items, ...operand.filter((v) => !items.includes(v))] : items.filter((v) => !operand.includes(v));
      set[c.name] = next.join(',');
    }
  }
  return { set, delete: del };
}

async function alterResource(resource: IncrementalAlterConfigsRequest.AlterConfigsResource, validateOnly: boolean, call: KafkaCall): Promise<void> {
  const names = resource.configs.map((c) => c.name);
  const twice = [...duplicates(names)];
  if (twice.length > 0) throw duplicateError('config', twice[0]);
  switch (resource.resourceType) {
    case ConfigResourceType.TOPIC:
      checkOperations(resource.configs);
      await alterTopicConfig(call.gateway.ctx, resource.resourceName, (current) => changesFor(resource.configs, current), { validateOnly });
      return;
    case ConfigResourceType.BROKER:
      checkBrokerName(resource.resourceName, call.gateway.nodeId);
      refuseBrokerChange(names);
      return;
    default:
      throw unsupportedResource(resource.resourceType, resource.resourceName);
  }
}

export const incrementalAlterConfigsApi: KafkaApi<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse> = {
  apiKey: ApiKey.IncrementalAlterConfigs,
  name: 'IncrementalAlterConfigs',
  minVersion: 0,
  maxVersion: 1,
  async handle(request, call) {
    const responses = await alterEachResource(request.resources, (r) => alterResource(r, request.validateOnly, call));
    return { throttleTimeMs: 0, responses };
  },
  errorResponse(request, errorCode) {
    return { throttleTimeMs: 0, responses: request.resources.map((r) => ({ errorCode, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName })) };
  },
};
