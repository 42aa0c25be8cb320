// Topic administration (Kafka's CreateTopics, Metadata/DescribeConfigs, CreatePartitions,
// DeleteTopics):
//   POST   /v1/topics                       {name, partitions, config?}  -> 201
//   GET    /v1/topics                                                     -> {topics: [{name, partitions}]}
//   GET    /v1/topics/{topic}                                             -> config + per-partition state
//   GET    /v1/topics/{topic}/configs                                     -> {name, configs: [{name, value, source, isDefault, ...}]}
//   PATCH  /v1/topics/{topic}               {config, validateOnly?}       -> {name, topicId, partitions, config}
//   POST   /v1/topics/{topic}/partitions    {count}: the new total        -> {name, partitions, config}
//   DELETE /v1/topics/{topic}                                             -> 204, data deleted
import * as z from 'zod';
import type { SluiceContext } from '../context.js';
import { PARTITION_LEADER_EPOCH } from '../log/batch-stamp.js';
import { getPartitionState } from '../metadata/partition-state.js';
import type { TopicRef } from '../metadata/types.js';
import { deleteTopic } from '../log/delete-topic.js';
import { alterTopicConfig } from '../metadata/alter-topic-config.js';
import { topicConfigEntries } from '../metadata/topic-config-entries.js';
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
// JSON Merge Patch (RFC 7396) of the config: a value sets the key, null reverts it to its default.
const alterConfigSchema = z.strictObject({
  topic: topicName,
  config: z
    .record(z.string(), z.union([z.string(), z.number(), z.null()]))
    .describe("Configs to change, Kafka's names: a value sets the key, null reverts it to the default; keys not named keep their values"),
  validateOnly: z.boolean().optional().describe('Validate and answer the resulting config without changing anything (Kafka validateOnly)'),
});

// Answers (docs/openapi.json; test/api/openapi.test.ts checks real answers against them).
const topicConfig = z.record(z.string(), z.union([z.string(), z.number()])).describe("The topic's configuration, defaults filled in");
const topicId = z.string().describe('Random topic id: 22 characters of base64url, as Kafka prints a topic UUID');
const createdTopic = z.strictObject({ name: z.string(), topicId, partitions: z.int(), config: topicConfig });
const topicListing = z.strictObject({ topics: z.array(z.strictObject({ name: z.string(), topicId, partitions: z.int() })) });
const topicDescription = z.strictObject({
  name: z.string(),
  topicId,
  config: topicConfig,
  partitions: z.array(
    z.strictObject({
      partition: z.int(),
      logStartOffset: z.int(),
      highWatermark: z.int(),
      leaderEpoch: z.int(),
      segments: z.int(),
      bytes: z.int(),
    }),
  ),
});
const alteredTopic = z.strictObject({ name: z.string(), topicId, partitions: z.int(), config: topicConfig });
const configSource = z.enum(['DYNAMIC_TOPIC_CONFIG', 'DEFAULT_CONFIG']).describe("Kafka's ConfigSource: set on the topic, or the default");
const topicConfigs = z.strictObject({
  name: z.string(),
  configs: z.array(
    z.strictObject({
      name: z.string(),
      value: z.string().describe('As Kafka describes configs: a string'),
      source: configSource,
      isDefault: z.boolean(),
      readOnly: z.boolean(),
      sensitive: z.boolean(),
      synonyms: z
        .array(z.strictObject({ name: z.string(), value: z.string(), source: configSource }))
        .describe("Kafka's synonyms: the topic's own setting, then the broker default it falls back to"),
    }),
  ),
});
const partitionsAdded = z.strictObject({ name: z.string(), partitions: z.int(), config: topicConfig });

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
        highWatermark: s.logEndOffset,
        // The epoch every batch of the partition carries (batch-stamp.ts), as Kafka's describe
        // answers the epoch its batches are stamped with; the maintenance lease's own epoch fences
        // maintainers only and is not the clients' business.
        leaderEpoch: PARTITION_LEADER_EPOCH,
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
  summary: 'Create a topic (Kafka CreateTopics)',
  input: createTopicSchema,
  response: { status: 201, body: createdTopic },
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
  summary: 'List the topics (Kafka Metadata)',
  input: z.strictObject({}),
  response: { status: 200, body: topicListing },
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
  summary: "A topic's configuration and its partitions' offsets (Kafka Metadata, DescribeConfigs)",
  input: topicOnly,
  response: { status: 200, body: topicDescription },
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

const describeTopicConfigsOperation: Operation = {
  name: 'describeTopicConfigs',
  method: 'GET',
  path: '/v1/topics/{topic}/configs',
  summary: "A topic's configs with their sources: set on the topic or default (Kafka DescribeConfigs)",
  input: topicOnly,
  response: { status: 200, body: topicConfigs },
  async run(ctx, raw) {
    const input = parseInput(topicOnly, raw);
    validateTopicName(input.topic);
    const topic = await requireTopic(ctx, input.topic);
    return { status: 200, body: { name: topic.name, configs: topicConfigEntries(topic.config) } };
  },
};

const alterTopicConfigOperation: Operation = {
  name: 'alterTopicConfig',
  method: 'PATCH',
  path: '/v1/topics/{topic}',
  summary: "Change a topic's configs (Kafka AlterConfigs); an invalid key or value refuses the whole change",
  input: alterConfigSchema,
  response: { status: 200, body: alteredTopic },
  async run(ctx, raw) {
    const input = parseInput(alterConfigSchema, raw);
    const entries = Object.entries(input.config);
    const set = Object.fromEntries(entries.filter((e): e is [string, string | number] => e[1] !== null));
    const del = entries.filter(([, v]) => v === null).map(([k]) => k);
    const topic = await alterTopicConfig(ctx, input.topic, { set, delete: del }, { validateOnly: input.validateOnly });
    return { status: 200, body: { name: topic.name, topicId: topic.id, partitions: topic.partitions, config: topic.config } };
  },
};

const createPartitionsOperation: Operation = {
  name: 'createPartitions',
  method: 'POST',
  path: '/v1/topics/{topic}/partitions',
  summary: 'Grow a topic to `count` partitions (Kafka CreatePartitions)',
  input: addPartitionsSchema,
  response: { status: 200, body: partitionsAdded },
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
  summary: 'Delete a topic and its data (Kafka DeleteTopics)',
  input: topicOnly,
  response: { status: 204 },
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
  describeTopicConfigsOperation,
  alterTopicConfigOperation,
  createPartitionsOperation,
  deleteTopicOperation,
];
