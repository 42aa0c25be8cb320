// Deleting a topic (Kafka's DeleteTopics): the topic item first, so the topic disappears for
// producers and consumers at once; then every partition's STATE, manifest and segment objects
// (delete-partition.ts), then anything else under the topic's folder. Intake objects the topic
// shared go with the maintenance sweep once nothing references them, and a deletion cut short here
// is finished by the maintenance job (cleanup.ts sweeps folders of topic ids no topic has).
import type { SluiceContext } from '../context.js';
import { deleteTopicItem } from '../metadata/topics.js';
import { deleteTopicObjects } from './cleanup.js';
import { deletePartitionData } from './delete-partition.js';

/** Partitions deleted at once: each deletion is itself many requests. */
const CONCURRENCY = 8;

export async function deleteTopic(ctx: SluiceContext, name: string): Promise<void> {
  const topic = await deleteTopicItem(ctx, name);
  for (let start = 0; start < topic.partitions; start += CONCURRENCY) {
    const batch: Promise<void>[] = [];
    for (let p = start; p < Math.min(topic.partitions, start + CONCURRENCY); p++) batch.push(deletePartitionData(ctx, topic, p));
    await Promise.all(batch);
  }
  await deleteTopicObjects(ctx, topic);
}
