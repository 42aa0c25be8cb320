// The HTTP contract of README.md as typed calls, one method per operation, over any Transport.
// The producer, consumer, admin and CLI speak only through this class, so the paths, op names and
// shapes live in exactly one place on the client side.
import type { BatchesReply, SluiceRequest, Transport } from './transport.js';

export type { BatchesReply } from './transport.js';

/** How produce and fetch carry records: Kafka's RecordBatches (binary), or the JSON contract. */
export type WireFormat = 'batches' | 'json';

export type Encoding = 'utf8' | 'base64';

export interface WireHeader {
  readonly key: string;
  readonly value: string | null;
}

export interface WireRecord {
  readonly key?: string | null;
  readonly value: string | null;
  readonly headers?: readonly WireHeader[];
  readonly partition?: number;
  readonly timestamp?: number;
}

export interface ProduceRequest {
  readonly records: readonly WireRecord[];
  readonly encoding?: Encoding;
  readonly producerId?: number | string;
  readonly producerEpoch?: number;
  readonly sequences?: readonly { partition: number; baseSequence: number }[];
}

/**
 * One partition's answer in a produce reply: its offsets, or (when other partitions of the request
 * succeeded) its error (README.md: 200 with per-partition errors).
 */
export type PartitionOffsetsReply =
  | { readonly partition: number; readonly baseOffset: number; readonly count: number; readonly duplicate?: boolean; readonly error?: undefined }
  | { readonly partition: number; readonly error: { readonly code: string; readonly message: string; readonly retriable: boolean } };

export interface ProduceBatchesReply {
  readonly offsets: readonly PartitionOffsetsReply[];
}

export interface ProduceReply {
  readonly offsets: readonly PartitionOffsetsReply[];
  readonly records: readonly { partition: number; offset: number }[];
}

export interface FetchedRecord {
  readonly offset: number;
  readonly timestamp: number;
  readonly key: string | null;
  readonly value: string | null;
  readonly headers: readonly WireHeader[];
}

export interface FetchReply {
  readonly records: readonly FetchedRecord[];
  readonly nextOffset: number;
  readonly highWatermark: number;
  readonly logStartOffset: number;
}

export interface TopicConfig {
  readonly [key: string]: string | number;
}

export interface PartitionDescription {
  readonly partition: number;
  readonly logStartOffset: number;
  readonly highWatermark: number;
  readonly leaderEpoch: number;
  readonly segments: number;
  readonly bytes: number;
}

export interface TopicDescription {
  readonly name: string;
  readonly config: TopicConfig;
  readonly partitions: readonly PartitionDescription[];
}

export type ConfigSourceName = 'DYNAMIC_TOPIC_CONFIG' | 'DEFAULT_CONFIG';

/** One config of a topic as GET /v1/topics/{topic}/configs lists it (Kafka's DescribeConfigs). */
export interface TopicConfigDescription {
  readonly name: string;
  readonly value: string;
  readonly source: ConfigSourceName;
  readonly isDefault: boolean;
  readonly readOnly: boolean;
  readonly sensitive: boolean;
  readonly synonyms: readonly { name: string; value: string; source: ConfigSourceName }[];
}

export interface TopicPartitions {
  readonly topic: string;
  readonly partitions: readonly number[];
}

export type Assignor = 'range' | 'roundrobin' | 'sticky';

export interface JoinReply {
  readonly memberId: string;
  readonly generation: number;
  readonly assignment: readonly TopicPartitions[];
}

export interface CommittedOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly metadata?: string | null;
  readonly lag?: number;
}

export interface GroupListing {
  readonly group: string;
  readonly state: string;
  readonly generation: number;
  readonly assignor: string | null;
  /** Live members. */
  readonly members: number;
}

export interface GroupDescription {
  readonly group: string;
  readonly state: string;
  readonly generation: number;
  readonly assignor?: string;
  readonly members: readonly { memberId: string; topics: readonly string[]; assignment: readonly TopicPartitions[] }[];
}

/** Where a subscription delivers: a Lambda function, or an HTTPS endpoint (signed requests). */
export type SubscriptionTarget = { readonly type: 'lambda'; readonly functionArn: string } | { readonly type: 'https'; readonly url: string };

/** Where the metadata of records that could not be delivered goes. */
export type OnFailureDestination =
  | { readonly type: 'sqs'; readonly queueArn: string }
  | { readonly type: 'sns'; readonly topicArn: string }
  | { readonly type: 'topic'; readonly topic: string };

export type StartingPosition = 'TRIM_HORIZON' | 'LATEST' | 'AT_TIMESTAMP';

/** A subscription's options, named as Lambda's event source mappings name them (times in ms). */
export interface SubscriptionOptions {
  readonly batchSize?: number;
  readonly maximumBatchingWindowMs?: number;
  readonly startingPosition?: StartingPosition;
  readonly startingPositionTimestamp?: number;
  readonly bisectBatchOnFunctionError?: boolean;
  readonly functionResponseTypes?: readonly 'ReportBatchItemFailures'[];
  readonly maximumRetryAttempts?: number;
  readonly maximumRecordAgeMs?: number;
  readonly onFailure?: OnFailureDestination;
  readonly parallelizationFactor?: number;
  readonly enabled?: boolean;
}

export interface CreateSubscriptionRequest extends SubscriptionOptions {
  readonly name: string;
  readonly topic: string;
  readonly target: SubscriptionTarget;
  readonly signingSecret?: string;
}

export interface SubscriptionInfo extends Required<Omit<SubscriptionOptions, 'startingPositionTimestamp' | 'onFailure'>> {
  readonly name: string;
  readonly topic: string;
  readonly topicId: string;
  /** The consumer group holding its committed offsets. */
  readonly group: string;
  readonly target: SubscriptionTarget;
  readonly startingPositionTimestamp?: number;
  readonly onFailure?: OnFailureDestination;
  readonly createdAt: number;
  /** HTTPS targets, in createSubscription's answer only: the request-signing key. */
  readonly signingSecret?: string;
}

export interface SubscriptionPartitionStatus {
  readonly partition: number;
  readonly committedOffset: number | null;
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  readonly lag: number;
  readonly oldestUndeliveredAgeMs: number;
  readonly lease?: { readonly owner?: string; readonly epoch: number; readonly expiresAt: number; readonly active: boolean };
}

export interface SubscriptionDescription extends SubscriptionInfo {
  readonly topicExists: boolean;
  readonly lag: number;
  readonly oldestUndeliveredAgeMs: number;
  readonly partitions: readonly SubscriptionPartitionStatus[];
}

export class SluiceApi {
  constructor(readonly transport: Transport) {}

  private call<T>(request: SluiceRequest): Promise<T> {
    return this.transport.request<T>(request);
  }

  createTopic(name: string, partitions: number, config?: TopicConfig) {
    return this.call<{ name: string; partitions: number; config: TopicConfig }>({
      op: 'createTopic', method: 'POST', path: '/v1/topics', body: { name, partitions, config },
    });
  }

  listTopics() {
    return this.call<{ topics: { name: string; partitions: number }[] }>({ op: 'listTopics', method: 'GET', path: '/v1/topics' });
  }

  describeTopic(topic: string) {
    return this.call<TopicDescription>({ op: 'describeTopic', method: 'GET', path: '/v1/topics/{topic}', params: { topic } });
  }

  describeTopicConfigs(topic: string) {
    return this.call<{ name: string; configs: TopicConfigDescription[] }>({
      op: 'describeTopicConfigs', method: 'GET', path: '/v1/topics/{topic}/configs', params: { topic },
    });
  }

  /** Merge-patches the topic's config: a value sets the key, null reverts it to its default. */
  alterTopicConfig(topic: string, config: Readonly<Record<string, string | number | null>>, options: { validateOnly?: boolean } = {}) {
    return this.call<{ name: string; topicId: string; partitions: number; config: TopicConfig }>({
      op: 'alterTopicConfig', method: 'PATCH', path: '/v1/topics/{topic}', params: { topic },
      body: { config, ...(options.validateOnly ? { validateOnly: true } : {}) },
    });
  }

  createPartitions(topic: string, count: number) {
    return this.call<unknown>({ op: 'createPartitions', method: 'POST', path: '/v1/topics/{topic}/partitions', params: { topic }, body: { count } });
  }

  deleteTopic(topic: string) {
    return this.call<void>({ op: 'deleteTopic', method: 'DELETE', path: '/v1/topics/{topic}', params: { topic } });
  }

  produce(topic: string, body: ProduceRequest) {
    return this.call<ProduceReply>({ op: 'produce', method: 'POST', path: '/v1/topics/{topic}/records', params: { topic }, body });
  }

  /** Produce a record-batches body: frames of (partition, RecordBatch), lib/records/batch-frames.ts. */
  produceBatches(topic: string, frames: Buffer) {
    return this.call<ProduceBatchesReply>({ op: 'produce', method: 'POST', path: '/v1/topics/{topic}/records', params: { topic }, batches: frames });
  }

  initProducer() {
    return this.call<{ producerId: number | string; producerEpoch: number }>({ op: 'initProducerId', method: 'POST', path: '/v1/producers', body: {} });
  }

  fetch(topic: string, partition: number, options: { offset: number; maxBytes?: number; maxWaitMs?: number; encoding?: Encoding; signal?: AbortSignal }) {
    return this.call<FetchReply>({
      op: 'fetch', method: 'GET', path: '/v1/topics/{topic}/partitions/{partition}/records', params: { topic, partition },
      query: { offset: options.offset, maxBytes: options.maxBytes, maxWaitMs: options.maxWaitMs, encoding: options.encoding },
      // a long poll legitimately takes maxWaitMs; allow that plus the ordinary request budget
      timeoutMs: options.maxWaitMs ? options.maxWaitMs + 30_000 : undefined,
      signal: options.signal,
    });
  }

  /** Fetch the stored RecordBatches holding `offset` and after (the first may start before it). */
  fetchBatches(topic: string, partition: number, options: { offset: number; maxBytes?: number; maxWaitMs?: number; signal?: AbortSignal }) {
    return this.call<BatchesReply>({
      op: 'fetch', method: 'GET', path: '/v1/topics/{topic}/partitions/{partition}/records', params: { topic, partition },
      query: { offset: options.offset, maxBytes: options.maxBytes, maxWaitMs: options.maxWaitMs },
      acceptBatches: true,
      timeoutMs: options.maxWaitMs ? options.maxWaitMs + 30_000 : undefined,
      signal: options.signal,
    });
  }

  listOffsets(topic: string, partition: number, at: 'earliest' | 'latest' | number) {
    return this.call<{ offset: number; timestamp?: number }>({
      op: 'listOffsets', method: 'GET', path: '/v1/topics/{topic}/partitions/{partition}/offsets', params: { topic, partition }, query: { at },
    });
  }

  joinGroup(group: string, body: { memberId?: string; clientId?: string; topics: readonly string[]; assignor?: Assignor; sessionTimeoutMs?: number }) {
    return this.call<JoinReply>({ op: 'joinGroup', method: 'POST', path: '/v1/groups/{group}/members', params: { group }, body });
  }

  heartbeat(group: string, memberId: string, generation: number) {
    return this.call<{ generation: number; rebalance: boolean }>({
      op: 'heartbeat', method: 'POST', path: '/v1/groups/{group}/members/{memberId}/heartbeat', params: { group, memberId }, body: { generation },
    });
  }

  leaveGroup(group: string, memberId: string) {
    return this.call<void>({ op: 'leaveGroup', method: 'DELETE', path: '/v1/groups/{group}/members/{memberId}', params: { group, memberId } });
  }

  commitOffsets(group: string, body: { memberId?: string; generation?: number; offsets: readonly CommittedOffset[] }) {
    return this.call<unknown>({ op: 'commitOffsets', method: 'POST', path: '/v1/groups/{group}/offsets', params: { group }, body });
  }

  fetchOffsets(group: string) {
    return this.call<{ offsets: CommittedOffset[] }>({ op: 'fetchOffsets', method: 'GET', path: '/v1/groups/{group}/offsets', params: { group } });
  }

  listGroups() {
    return this.call<{ groups: GroupListing[] }>({ op: 'listGroups', method: 'GET', path: '/v1/groups' });
  }

  describeGroup(group: string) {
    return this.call<GroupDescription>({ op: 'describeGroup', method: 'GET', path: '/v1/groups/{group}', params: { group } });
  }

  deleteGroup(group: string) {
    return this.call<void>({ op: 'deleteGroup', method: 'DELETE', path: '/v1/groups/{group}', params: { group } });
  }

  createSubscription(body: CreateSubscriptionRequest) {
    return this.call<SubscriptionInfo>({ op: 'createSubscription', method: 'POST', path: '/v1/subscriptions', body });
  }

  listSubscriptions() {
    return this.call<{ subscriptions: SubscriptionInfo[] }>({ op: 'listSubscriptions', method: 'GET', path: '/v1/subscriptions' });
  }

  describeSubscription(name: string) {
    return this.call<SubscriptionDescription>({ op: 'describeSubscription', method: 'GET', path: '/v1/subscriptions/{name}', params: { name } });
  }

  deleteSubscription(name: string) {
    return this.call<void>({ op: 'deleteSubscription', method: 'DELETE', path: '/v1/subscriptions/{name}', params: { name } });
  }

  resetOffsets(group: string, body: { topic: string; partitions?: readonly number[]; to: 'earliest' | 'latest' | { timestamp: number } | { offset: number } }) {
    return this.call<{ offsets: CommittedOffset[] }>({ op: 'resetOffsets', method: 'POST', path: '/v1/groups/{group}/offsets/reset', params: { group }, body });
  }
}
