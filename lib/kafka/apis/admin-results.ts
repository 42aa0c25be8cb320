// What the topic admin handlers (CreateTopics, DeleteTopics, CreatePartitions, the config APIs)
// share: a per-item result from a failure, Kafka's config resource types and sources, and the
// check that a request names each item once. Each item of an admin request succeeds or fails on
// its own, as in Kafka: a failure is answered in that item's errorCode/errorMessage, never by
// failing the whole request.
import { SluiceError, isSluiceError } from '../../errors.js';
import { toSluiceError } from '../../metadata/aws-errors.js';
import type { ConfigSource as ConfigSourceName } from '../../metadata/topic-config-entries.js';
import { KafkaError, kafkaErrorCode } from '../protocol/error-codes.js';

export interface ItemError {
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

/**
 * The errorCode and errorMessage of an item that failed with `e`: a SluiceError's code by name,
 * a storage failure mapped (and logged) as everywhere else, its SDK text kept out of the answer.
 */
export function itemError(e: unknown, what: string): ItemError {
  const error = isSluiceError(e) ? e : toSluiceError(e, what);
  return { errorCode: kafkaErrorCode(error), errorMessage: error.message };
}

/** An item refused with a Kafka error that has no Sluice name (INVALID_REPLICATION_FACTOR). */
export function kafkaItemError(code: number, message: string): ItemError {
  return { errorCode: code, errorMessage: message };
}

/** Runs `work` for one item; its failure becomes the item's error. */
export async function perItem(what: string, work: () => Promise<void>): Promise<ItemError> {
  try {
    await work();
    return { errorCode: KafkaError.NONE, errorMessage: null };
  } catch (e) {
    return itemError(e, what);
  }
}

/** Names that appear more than once in one request: Kafka answers each of them INVALID_REQUEST. */
export function duplicates(names: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const n of names) (seen.has(n) ? twice : seen).add(n);
  return twice;
}

export const duplicateError = (kind: string, name: string): SluiceError =>
  new SluiceError('INVALID_REQUEST', `${kind} '${name}' appears more than once in the request`);

/** Kafka's ConfigResource.Type ids. */
export const ConfigResourceType = { UNKNOWN: 0, TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8 } as const;

/** Kafka's DescribeConfigs config_source ids. */
export const ConfigSourceId = {
  UNKNOWN: 0,
  DYNAMIC_TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
} as const;

export const sourceId = (source: ConfigSourceName): number => ConfigSourceId[source];

/**
 * A broker resource names this gateway's node id, or '' for the cluster-wide default (Kafka's
 * rule: any other id is INVALID_REQUEST, it is not this broker's to answer).
 */
export function checkBrokerName(name: string, nodeId: number): void {
  if (name !== '' && name !== String(nodeId)) {
    throw new SluiceError('INVALID_REQUEST', `unexpected broker id, expected ${nodeId} or the empty string, got '${name}'`);
  }
}

/** A resource type the config APIs do not serve: INVALID_REQUEST, as Kafka answers one it does not know. */
export function unsupportedResource(type: number, name: string): SluiceError {
  return new SluiceError('INVALID_REQUEST', `config resource type ${type} ('${name}') is not supported: Sluice has topic configs and fixed broker defaults`);
}

/** A config resource of an alter request, as AlterConfigs and IncrementalAlterConfigs name it. */
export interface ConfigResourceRef {
  readonly resourceType: number;
  readonly resourceName: string;
}

/**
 * One answer per resource of an alter request, in request order. Each resource succeeds or fails
 * on its own, as a Kafka controller answers; a resource named twice is refused for both mentions.
 */
export function alterEachResource<R extends ConfigResourceRef>(
  resources: readonly R[],
  alter: (resource: R) => Promise<void>,
): Promise<(ConfigResourceRef & ItemError)[]> {
  const key = (r: ConfigResourceRef) => `${r.resourceType}:${r.resourceName}`;
  const twice = duplicates(resources.map(key));
  return Promise.all(
    resources.map(async (r) => {
      const base = { resourceType: r.resourceType, resourceName: r.resourceName };
      if (twice.has(key(r))) return { ...base, ...itemError(duplicateError('resource', r.resourceName), '') };
      return { ...base, ...(await perItem(`alter configs of ${r.resourceName}`, () => alter(r))) };
    }),
  );
}
