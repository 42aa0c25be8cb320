// Admin operations (kafkajs' admin client names where they exist): topics, partitions, groups and
// committed offsets, offset resets (kafka-consumer-groups.sh --reset-offsets) and the per-partition
// lag table `sluice groups describe` prints.
import { SluiceClientError } from './errors.js';
import type { CommittedOffset, GroupDescription, SluiceApi, TopicConfig, TopicDescription } from './wire.js';

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
}
