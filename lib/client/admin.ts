// Admin operations (kafkajs' admin client names where they exist): topics, partitions, topic
// configs (describeConfigs, alterConfigs as kafkajs; incrementalAlterConfigs as Kafka's Java
// admin), groups and committed offsets, offset resets (kafka-consumer-groups.sh --reset-offsets), the per-partition
// lag table `sluice groups describe` prints, and subscriptions (push delivery to a Lambda function
// or an HTTPS endpoint, with Lambda event source mapping option names).
import { SluiceClientError } from './errors.js';
import type {
  CommittedOffset,
  ConfigSourceName,
  CreateSubscriptionRequest,
  GroupDescription,
  SluiceApi,
  SubscriptionDescription,
  SubscriptionInfo,
  TopicConfig,
  TopicDescription,
} from './wire.js';

export type { CreateSubscriptionRequest, SubscriptionDescription, SubscriptionInfo } from './wire.js';

/** kafkajs' ConfigResourceTypes (Kafka's ConfigResource.Type ids). Sluice has topic configs only. */
export const ConfigResourceTypes = { UNKNOWN: 0, TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8 } as const;

/** kafkajs' ConfigSource (DescribeConfigs' config_source ids). */
export const ConfigSource = {
  UNKNOWN: 0,
  TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  DYNAMIC_BROKER_LOGGER_CONFIG: 6,
} as const;

const SOURCE_IDS: Readonly<Record<ConfigSourceName, number>> = { DYNAMIC_TOPIC_CONFIG: ConfigSource.TOPIC_CONFIG, DEFAULT_CONFIG: ConfigSource.DEFAULT_CONFIG };

export interface DescribeConfigResource {
  readonly type: number;
  readonly name: string;
  /** Only these configs; all when absent or null. */
  readonly configNames?: readonly string[] | null;
}

export interface ConfigEntry {
  readonly configName: string;
  readonly configValue: string;
  readonly readOnly: boolean;
  readonly isDefault: boolean;
  readonly configSource: number;
  readonly isSensitive: boolean;
  readonly configSynonyms: readonly { configName: string; configValue: string; configSource: number }[];
}

export interface DescribeConfigResponse {
  readonly resources: readonly {
    readonly errorCode: 0;
    readonly errorMessage: null;
    readonly resourceName: string;
    readonly resourceType: number;
    readonly configEntries: readonly ConfigEntry[];
  }[];
  readonly throttleTime: 0;
}

export interface AlterConfigResource {
  readonly type: number;
  readonly name: string;
  readonly configEntries: readonly { readonly name: string; readonly value: string }[];
}

/** Kafka's AlterConfigOp.OpType for incrementalAlterConfigs (APPEND/SUBTRACT: no topic config Sluice keeps is a list). */
export type AlterConfigOpType = 'SET' | 'DELETE';

export interface IncrementalAlterConfigResource {
  readonly type: number;
  readonly name: string;
  readonly configEntries: readonly { readonly name: string; readonly value?: string | null; readonly operation: AlterConfigOpType }[];
}

export interface AlterConfigsResponse {
  readonly resources: readonly { readonly errorCode: 0; readonly errorMessage: null; readonly resourceName: string; readonly resourceType: number }[];
  readonly throttleTime: 0;
}

function requireTopicResources(resources: readonly { type: number; name: string }[] | undefined, what: string): void {
  if (!Array.isArray(resources) || resources.length === 0) throw new SluiceClientError('INVALID_REQUEST', `${what}: resources must be a non-empty array`);
  for (const r of resources) {
    if (r.type !== ConfigResourceTypes.TOPIC) {
      throw new SluiceClientError('INVALID_REQUEST', `${what}: resource type ${r.type} of '${r.name}' is not supported; Sluice has topic configs only (ConfigResourceTypes.TOPIC)`);
    }
    if (typeof r.name !== 'string' || r.name.length === 0) throw new SluiceClientError('INVALID_REQUEST', `${what}: invalid resource name ${JSON.stringify(r.name)}`);
  }
}

export interface TopicSpec {
  readonly topic: string;
  /** @default 1 */
  readonly numPartitions?: number;
  /** Kafka config names, e.g. `{'retention.ms': '3600000'}`. */
  readonly config?: TopicConfig;
}

export interface PartitionOffsets {
  readonly partition: number;
  /** Log start offset. */
  readonly low: number;
  /** High watermark. */
  readonly high: number;
}

export type ResetTarget = { readonly earliest: true } | { readonly latest: true } | { readonly timestamp: number } | { readonly offset: number };

export interface GroupLag {
  readonly topic: string;
  readonly partition: number;
  readonly currentOffset: number | null;
  readonly logEndOffset: number;
  readonly lag: number | null;
  readonly memberId: string | null;
}

export class Admin {
  constructor(private readonly api: SluiceApi) {}

  /** Resolves true when every topic was created, false when some already existed (kafkajs semantics). */
  async createTopics({ topics }: { topics: readonly TopicSpec[] }): Promise<boolean> {
    let allCreated = true;
    for (const t of topics) {
      try {
        await this.api.createTopic(t.topic, t.numPartitions ?? 1, t.config);
      } catch (e) {
        if (e instanceof SluiceClientError && e.code === 'TOPIC_ALREADY_EXISTS') allCreated = false;
        else throw e;
      }
    }
    return allCreated;
  }

  async listTopics(): Promise<string[]> {
    return (await this.api.listTopics()).topics.map((t) => t.name);
  }

  /** Name, partition count of every topic. */
  async listTopicsWithPartitions(): Promise<{ name: string; partitions: number }[]> {
    return (await this.api.listTopics()).topics;
  }

  describeTopic(topic: string): Promise<TopicDescription> {
    return this.api.describeTopic(topic);
  }

  async deleteTopics({ topics }: { topics: readonly string[] }): Promise<void> {
    for (const topic of topics) await this.api.deleteTopic(topic);
  }

  /** Raises each topic's partition count to `count`. */
  async createPartitions({ topicPartitions }: { topicPartitions: readonly { topic: string; count: number }[] }): Promise<void> {
    for (const { topic, count } of topicPartitions) await this.api.createPartitions(topic, count);
  }

  async fetchTopicOffsets(topic: string): Promise<PartitionOffsets[]> {
    const d = await this.api.describeTopic(topic);
    return d.partitions.map((p) => ({ partition: p.partition, low: p.logStartOffset, high: p.highWatermark }));
  }

  /** The configs of topics, kafkajs' shape: every config with its value, source and synonyms. */
  async describeConfigs({ resources, includeSynonyms = false }: { resources: readonly DescribeConfigResource[]; includeSynonyms?: boolean }): Promise<DescribeConfigResponse> {
    requireTopicResources(resources, 'describeConfigs');
    const out: DescribeConfigResponse['resources'][number][] = [];
    for (const r of resources) {
      const { configs } = await this.api.describeTopicConfigs(r.name);
      const wanted = r.configNames ? new Set(r.configNames) : undefined;
      out.push({
        errorCode: 0,
        errorMessage: null,
        resourceName: r.name,
        resourceType: r.type,
        configEntries: configs
          .filter((c) => !wanted || wanted.has(c.name))
          .map((c) => ({
            configName: c.name,
            configValue: c.value,
            readOnly: c.readOnly,
            isDefault: c.isDefault,
            configSource: SOURCE_IDS[c.source] ?? ConfigSource.UNKNOWN,
            isSensitive: c.sensitive,
            configSynonyms: includeSynonyms ? c.synonyms.map((y) => ({ configName: y.name, configValue: y.value, configSource: SOURCE_IDS[y.source] ?? ConfigSource.UNKNOWN })) : [],
          })),
      });
    }
    return { resources: out, throttleTime: 0 };
  }

  /**
   * Kafka's AlterConfigs, as kafkajs sends it: each resource's `configEntries` become its WHOLE
   * config — keys not listed revert to their defaults. Use incrementalAlterConfigs to change only
   * some keys. An invalid key or value refuses that topic's change whole (INVALID_CONFIG).
   */
  async alterConfigs({ resources, validateOnly = false }: { resources: readonly AlterConfigResource[]; validateOnly?: boolean }): Promise<AlterConfigsResponse> {
    requireTopicResources(resources, 'alterConfigs');
    for (const r of resources) {
      const current = await this.api.describeTopic(r.name);
      const patch: Record<string, string | null> = {};
      for (const key of Object.keys(current.config)) patch[key] = null;
      for (const e of r.configEntries) patch[e.name] = e.value;
      await this.api.alterTopicConfig(r.name, patch, { validateOnly });
    }
    return { resources: resources.map((r) => ({ errorCode: 0, errorMessage: null, resourceName: r.name, resourceType: r.type })), throttleTime: 0 };
  }

  /** Kafka's IncrementalAlterConfigs: SET a key to a value or DELETE it (back to its default); other keys keep their values. */
  async incrementalAlterConfigs({ resources, validateOnly = false }: { resources: readonly IncrementalAlterConfigResource[]; validateOnly?: boolean }): Promise<AlterConfigsResponse> {
    requireTopicResources(resources, 'incrementalAlterConfigs');
    for (const r of resources) {
      const patch: Record<string, string | null> = {};
      for (const e of r.configEntries) {
        if (Object.hasOwn(patch, e.name)) throw new SluiceClientError('INVALID_REQUEST', `incrementalAlterConfigs: config '${e.name}' appears twice for '${r.name}'`);
        if (e.operation === 'SET') {
          if (typeof e.value !== 'string') throw new SluiceClientError('INVALID_REQUEST', `incrementalAlterConfigs: SET '${e.name}' needs a string value`);
          patch[e.name] = e.value;
        } else if (e.operation === 'DELETE') {
          patch[e.name] = null;
        } else {
          throw new SluiceClientError('INVALID_REQUEST', `incrementalAlterConfigs: operation ${JSON.stringify(e.operation)} on '${e.name}' is not supported (SET or DELETE; no topic config is a list)`);
        }
      }
      await this.api.alterTopicConfig(r.name, patch, { validateOnly });
    }
    return { resources: resources.map((r) => ({ errorCode: 0, errorMessage: null, resourceName: r.name, resourceType: r.type })), throttleTime: 0 };
  }

  /**
   * Per partition, the first offset whose record timestamp is at least `timestamp` (ms), or the
   * high watermark where no record is that late (kafkajs' fetchTopicOffsetsByTimestamp).
   */
  async fetchTopicOffsetsByTimestamp(topic: string, timestamp: number): Promise<{ partition: number; offset: number }[]> {
    const { partitions } = await this.api.describeTopic(topic);
    return Promise.all(partitions.map(async ({ partition }) => ({ partition, offset: (await this.api.listOffsets(topic, partition, timestamp)).offset })));
  }

  async listGroups(): Promise<string[]> {
    const { groups } = await this.api.listGroups();
    return groups.map((g) => g.group);
  }

  describeGroup(groupId: string): Promise<GroupDescription> {
    return this.api.describeGroup(groupId);
  }

  async deleteGroups(groupIds: readonly string[]): Promise<void> {
    for (const group of groupIds) await this.api.deleteGroup(group);
  }

  async fetchOffsets({ groupId, topics }: { groupId: string; topics?: readonly string[] }): Promise<CommittedOffset[]> {
    const { offsets } = await this.api.fetchOffsets(groupId);
    return topics ? offsets.filter((o) => topics.includes(o.topic)) : offsets;
  }

  /** Commits explicit offsets for a group with no active members (kafkajs' setOffsets). */
  async setOffsets({ groupId, topic, partitions }: { groupId: string; topic: string; partitions: readonly { partition: number; offset: number }[] }): Promise<void> {
    await this.api.commitOffsets(groupId, { offsets: partitions.map((p) => ({ topic, partition: p.partition, offset: p.offset })) });
  }

  /** Moves a group with no active members to a target on every partition of `topic` (or only `partitions`). */
  async resetOffsets({ groupId, topic, partitions, to }: { groupId: string; topic: string; partitions?: readonly number[]; to: ResetTarget }): Promise<{ partition: number; offset: number }[]> {
    const target = 'earliest' in to ? 'earliest' : 'latest' in to ? 'latest' : 'timestamp' in to ? { timestamp: to.timestamp } : { offset: to.offset };
    const { offsets } = await this.api.resetOffsets(groupId, { topic, partitions, to: target });
    return offsets.map((o) => ({ partition: o.partition, offset: o.offset }));
  }

  /** Per-partition lag of a group on every topic it has committed offsets for or is assigned. */
  async groupLag(groupId: string): Promise<GroupLag[]> {
    // A group that only ever committed (standalone consumers) has no membership to describe:
    // GROUP_ID_NOT_FOUND means "no owners". Any other failure is the caller's to see.
    const describe = this.api.describeGroup(groupId).catch((e) => {
      if (e instanceof SluiceClientError && e.code === 'GROUP_ID_NOT_FOUND') return undefined;
      throw e;
    });
    const [description, committed] = await Promise.all([describe, this.api.fetchOffsets(groupId)]);
    const owner = new Map<string, string>();
    const topics = new Set(committed.offsets.map((o) => o.topic));
    for (const m of description?.members ?? []) {
      for (const a of m.assignment) {
        topics.add(a.topic);
        for (const p of a.partitions) owner.set(`${a.topic}\u0000${p}`, m.memberId);
      }
    }
    const rows: GroupLag[] = [];
    for (const topic of [...topics].sort()) {
      const partitions = (await this.api.describeTopic(topic)).partitions;
      for (const p of partitions) {
        const c = committed.offsets.find((o) => o.topic === topic && o.partition === p.partition);
        const current = c ? c.offset : null;
        rows.push({
          topic,
          partition: p.partition,
          currentOffset: current,
          logEndOffset: p.highWatermark,
          lag: current === null ? null : Math.max(0, p.highWatermark - current),
          memberId: owner.get(`${topic}\u0000${p.partition}`) ?? null,
        });
      }
    }
    return rows;
  }

  /**
   * Creates a subscription: `topic` delivered in batches to `target`. Resolves with it; an HTTPS
   * target's `signingSecret` is in this answer only. Rejects with SUBSCRIPTION_ALREADY_EXISTS when
   * the name is taken, INVALID_CONFIG for an option out of range.
   */
  createSubscription(subscription: CreateSubscriptionRequest): Promise<SubscriptionInfo> {
    return this.api.createSubscription(subscription);
  }

  async listSubscriptions(): Promise<SubscriptionInfo[]> {
    return (await this.api.listSubscriptions()).subscriptions;
  }

  /** The subscription with, per partition, committed offset, lag, oldest undelivered record's age and lease. */
  describeSubscription(name: string): Promise<SubscriptionDescription> {
    return this.api.describeSubscription(name);
  }

  /** Deletes the subscription with its consumer group; delivery stops. Rejects with SUBSCRIPTION_NOT_FOUND. */
  async deleteSubscription(name: string): Promise<void> {
    await this.api.deleteSubscription(name);
  }
}
