// Kafka's `kafka-consumer-groups.sh --reset-offsets` for one topic: to the earliest or latest
// offset, to the first offset at or after a timestamp, or to a given offset (clamped into
// [logStartOffset, highWatermark] as Kafka's tool does). Only for a group with no live members
// (NON_EMPTY_GROUP otherwise); a group that does not exist yet is created Empty, so offsets can be
// prepared before its consumers start. Everything is validated before anything is written.
import type { SluiceContext } from '../context.js';
import { SluiceError } from '../errors.js';
import { listOffsets } from '../log/list-offsets.js';
import { getPartitionState } from '../metadata/partition-state.js';
import { requireTopic } from '../metadata/topics.js';
import type { TopicRef } from '../metadata/types.js';
import { claimInactiveGroup, inBatches, writeOffsets, type CommittedOffset } from './offsets.js';

export type ResetTarget = 'earliest' | 'latest' | { readonly timestamp: number } | { readonly offset: number };

export interface ResetRequest {
  readonly group: string;
  readonly topic: string;
  /** @default every partition of the topic */
  readonly partitions?: readonly number[];
  readonly to: ResetTarget;
}

async function targetOffset(ctx: SluiceContext, topic: TopicRef, partition: number, to: ResetTarget): Promise<number> {
  if (to === 'earliest' || to === 'latest') return (await listOffsets(ctx, topic, partition, to)).offset;
  if ('timestamp' in to) return (await listOffsets(ctx, topic, partition, to.timestamp)).offset;
  const state = await getPartitionState(ctx, topic, partition);
  return Math.min(Math.max(to.offset, state.logStartOffset), state.logEndOffset);
}

export async function resetOffsets(ctx: SluiceContext, req: ResetRequest): Promise<CommittedOffset[]> {
  const topic = await requireTopic(ctx, req.topic);
  const count = topic.partitions;
  const partitions = req.partitions ? [...new Set(req.partitions)].sort((a, b) => a - b) : Array.from({ length: count }, (_, p) => p);
  const missing = partitions.find((p) => p >= count);
  if (missing !== undefined) {
    throw new SluiceError('UNKNOWN_TOPIC_OR_PARTITION', `topic '${req.topic}' has no partition ${missing}`, { topic: req.topic, partition: missing });
  }
  const generation = await claimInactiveGroup(
    ctx,
    req.group,
    () => new SluiceError('NON_EMPTY_GROUP', `group '${req.group}' has active members; stop its consumers before resetting offsets`),
  );
  const offsets = await inBatches(partitions, async (partition) => ({
    topic: req.topic,
    partition,
    offset: await targetOffset(ctx, topic, partition, req.to),
  }));
  return writeOffsets(ctx, req.group, generation, offsets);
}
