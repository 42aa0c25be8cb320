// Partition counts of the topics a group subscribes to, read from the topics' META items
// (`TOPIC#<topic>` / `META`, attribute `partitions`). A topic that does not exist counts as zero
// partitions: as in Kafka, a consumer may subscribe before the topic is created and simply gets
// nothing from it until the next join after creation.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';
import { topicKey } from '../metadata/keys.js';
import type { PartitionsPerTopic } from './assignors/types.js';

export async function topicPartitionCount(ctx: SluiceContext, topic: string): Promise<number> {
  const out = await ctx.ddb.send(new GetCommand({ TableName: ctx.table, Key: topicKey(topic), ConsistentRead: true }));
  return Number(out.Item?.partitions ?? 0);
}

/** Counts for `topics`, reading only those missing from `known` (a per-request cache across retries). */
export async function partitionsPerTopic(
  ctx: SluiceContext,
  topics: Iterable<string>,
  known: Map<string, number> = new Map(),
): Promise<PartitionsPerTopic> {
  const wanted = [...new Set(topics)];
  await Promise.all(
    wanted.filter((t) => !known.has(t)).map(async (t) => known.set(t, await topicPartitionCount(ctx, t))),
  );
  const out: Record<string, number> = {};
  for (const t of wanted.sort()) if (known.get(t)! > 0) out[t] = known.get(t)!;
  return out;
}
