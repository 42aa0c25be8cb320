// The topic a Produce or Fetch names, from the process's topic cache, read again when the cached
// one lacks a partition the request names (partitions may have been added since it was cached).
import type { SluiceContext } from '../context.js';
import { type TopicMetadata, getTopic, getTopicCached, validateTopicName } from '../metadata/topics.js';

/** @throws SluiceError INVALID_TOPIC_EXCEPTION for a bad name, UNKNOWN_TOPIC_OR_PARTITION for an unknown topic */
export async function topicForPartitions(ctx: SluiceContext, name: string, partitions: readonly number[]): Promise<TopicMetadata> {
  validateTopicName(name);
  const cached = await getTopicCached(ctx, name);
  const highest = Math.max(0, ...partitions);
  if (highest < cached.partitions) return cached;
  const fresh = await getTopic(ctx, name);
  return fresh ?? cached;
}
