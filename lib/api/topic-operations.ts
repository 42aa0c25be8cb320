// Topic administration (Kafka's CreateTopics, Metadata/DescribeConfigs, CreatePartitions,
// DeleteTopics):
//   POST   /v1/topics                       {name, partitions, config?}  -> 201
//   GET    /v1/topics                                                     -> {topics: [{name, partitions}]}
//   GET    /v1/topics/{topic}                                             -> config + per-partition state
//   POST   /v1/topics/{topic}/partitions    {count}: the new total        -> {name, partitions, config}
//   DELETE /v1/topics/{topic}                                             -> 204, data deleted
import * as z from 'zod';
import type { SluiceContext } from '../context.js';
import { getPartitionState } from '../metadata/partition-state.js';
import type { TopicRef } from '../metadata/types.js';
import { deleteTopic } from '../log/delete-topic.js';
import { addPartitions, createTopic, listTopics, requireTopic, validateTopicName } from '../metadata/topics.js';
import type { Operation } from './operation.js';
import { intField, parseInput, topicName } from './validation.js';

// Partition counts are checked by the metadata layer (INVALID_PARTITIONS), not here: only the type.
const anyInt = intField(Number.MIN_SAFE_INTEGER);

const createTopicSchema = z.strictObject({
  name: topicName,
  partitions: anyInt,
  config: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
});
const topicOnly = z.strictObject({ topic: topicName });
const addPartitionsSchema = z.strictObject({ topic: topicName, count: anyInt });

/** Reads partition states a few at a time: a topic can have up to 1000 partitions. */
async function describePartitions(ctx: SluiceContext, topic: TopicRef, count: number) {
  const out = [];
  const concurrency = 25;
  for (let start = 0; start < count; start += concurrency) {
    const ids = Array.from({ length: Math.min(concurrency, count - start) }, (_, i) => start + i);
    const states = await Promise.all(ids.map((p) => getPartitionState(ctx, topic, p)));
    for (const s of states) {
      out.push({
        partition: s.partition,
        logStartOffset: s.logStartOffset,
        highWatermark: s.nextOffset,
        leaderEpoch: s.epoch,
        segments: s.segments,
        bytes: s.bytes,
      });
    }
  }
  return out;
}

const createTopicOperation: Operation = {
  name: 'createTopic',
  method: 'POST',
  path: '/v1/topics',
  async run(ctx, raw) {
    const input = parseInput(createTopicSchema, raw);
    const topic = await createTopic(ctx, input.name, input.partitions, input.config);
    return { status: 201, body: { name: topic.name, topicId: topic.id, partitions: topic.partitions, config: topic.config } };
  },
};

const listTopicsOperation: Operation = {
  name: 'listTopics',
  method: 'GET',
  path: '/v1/topics',
  async run(ctx, raw) {
    parseInput(z.strictObject({}), raw);
    const topics = await listTopics(ctx);
    return { status: 200, body: { topics: topics.map((t) => ({ name: t.name, topicId: t.id, partitions: t.partitions })) } };
  },
};

const describeTopicOperation: Operation = {
  name: 'describeTopic',
  method: 'GET',
  path: '/v1/topics/{topic}',
  async run(ctx, raw) {
    const input = parseInput(topicOnly, raw);
    validateTopicName(input.topic);
    const topic = await requireTopic(ctx, input.topic);
    return {
      status: 200,
      body: { name: topic.name, topicId: topic.id, config: topic.config, partitions: await describePartitions(ctx, topic, topic.partitions) },
    };
  },
};

const createPartitionsOperation: Operation = {
  name: 'createPartitions',
  method: 'POST',
  path: '/v1/topics/{topic}/partitions',
  async run(ctx, raw) {
    const input = parseInput(addPartitionsSchema, raw);
    const topic = await addPartitions(ctx, input.topic, input.count);
    return { status: 200, body: { name: topic.name, partitions: topic.partitions, config: topic.config } };
  },
};

const deleteTopicOperation: Operation = {
  name: 'deleteTopic',
  method: 'DELETE',
  path: '/v1/topics/{topic}',
  async run(ctx, raw) {
    const input = parseInput(topicOnly, raw);
    validateTopicName(input.topic);
    await deleteTopic(ctx, input.topic);
    return { status: 204 };
  },
};

export const topicOperations: readonly Operation[] = [
  createTopicOperation,
  listTopicsOperation,
  describeTopicOperation,
  createPartitionsOperation,
  deleteTopicOperation,
];
