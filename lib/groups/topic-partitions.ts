// Partition counts of the topics a group subscribes to, from the topic metadata (strongly
// consistent reads). A topic that does not exist counts as zero partitions: as in Kafka, a consumer
// may subscribe before the topic is created and gets its partitions at the first join after creation.
import type { SluiceContext } from '../context.js';
import { getTopic } from '../metadata/topics.js';
import type { PartitionsPerTopic } from './assignors/types.js';

export async function topicPartitionCount(ctx: SluiceContext, topic: string): Promise<number> {
  return (await getTopic(ctx, topic))?.partitions ?? 0;
}

/** Counts for `topics`, reading only those missing from `known` (a per-request cache across retries). */
export async function partitionsPerTopic(
  ctx: SluiceContext,
  topics: Iterable<string>,
  known: Map<string, number> = new Map(),
): Promise<PartitionsPerTopic> {
  const wanted = [...new Set(topics)].sort();
  await Promise.all(wanted.filter((t) => !known.has(t)).map(async (t) => known.set(t, await topicPartitionCount(ctx, t))));
  const out: Record<string, number> = {};
  for (const t of wanted) if (known.get(t)! > 0) out[t] = known.get(t)!;
  return out;
}
