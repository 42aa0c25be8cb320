// Sets of topic-partitions, the unit of assignment: the wire's `[{topic, partitions}]` lists and
// the `topic\0partition` keys the consumer indexes its state by.
import type { TopicPartitions } from './wire.js';

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

export function tpKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

/** The inverse of tpKey (topic names never contain NUL). */
export function fromTpKey(key: string): TopicPartition {
  const at = key.lastIndexOf('\u0000');
  return { topic: key.slice(0, at), partition: Number(key.slice(at + 1)) };
}

export function flatten(list: readonly TopicPartitions[]): TopicPartition[] {
  return list.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition })));
}

/** Back to the wire's grouped form, topics and partitions sorted. */
export function group(tps: readonly TopicPartition[]): TopicPartitions[] {
  const byTopic = new Map<string, number[]>();
  for (const tp of tps) {
    const list = byTopic.get(tp.topic) ?? [];
    list.push(tp.partition);
    byTopic.set(tp.topic, list);
  }
  return [...byTopic].sort(([a], [b]) => a.localeCompare(b)).map(([topic, partitions]) => ({ topic, partitions: partitions.sort((x, y) => x - y) }));
}

/** Partitions in `a` and not in `b`. */
export function minus(a: readonly TopicPartition[], b: readonly TopicPartition[]): TopicPartition[] {
  const keys = new Set(b.map((tp) => tpKey(tp.topic, tp.partition)));
  return a.filter((tp) => !keys.has(tpKey(tp.topic, tp.partition)));
}
