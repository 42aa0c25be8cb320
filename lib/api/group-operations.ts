// Consumer-group operations (Kafka's JoinGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch,
// DescribeGroups, ListGroups, DeleteGroups and kafka-consumer-groups.sh --reset-offsets):
//   POST   /v1/groups/{group}/members                     {memberId?, clientId?, topics, assignor?, sessionTimeoutMs?}
//                                                         -> {memberId, generation, assignor, sessionTimeoutMs, assignment}
//   POST   /v1/groups/{group}/members/{memberId}/heartbeat {generation} -> {generation, rebalance}
//   DELETE /v1/groups/{group}/members/{memberId}          -> 204
//   POST   /v1/groups/{group}/offsets                     {memberId?, generation?, offsets: [{topic, partition, offset, metadata?}]}
//                                                         -> {offsets: [{topic, partition, offset, metadata}]}
//   GET    /v1/groups/{group}/offsets?topic=              -> {offsets: [{topic, partition, offset, metadata, highWatermark, lag}]}
//   POST   /v1/groups/{group}/offsets/reset               {topic, partitions?, to: 'earliest'|'latest'|{timestamp}|{offset}}
//                                                         -> {offsets: [{topic, partition, offset, metadata}]}
//   GET    /v1/groups                                     -> {groups: [{group, state, generation, assignor, members}]}
//   GET    /v1/groups/{group}                             -> {group, state, generation, assignor, members, pending, offsets}
//   DELETE /v1/groups/{group}                             -> 204
// Group ids and client ids are 1–249 characters of [a-zA-Z0-9._-]; sessionTimeoutMs is
// 1000–300000 (default 10000). Coordinator semantics are documented in lib/groups/*.
import * as z from 'zod';
import { validateTopicName } from '../metadata/topics.js';
import { ASSIGNOR_NAMES, normalizeAssignor } from '../groups/assignors/types.js';
import { deleteGroup } from '../groups/delete-group.js';
import { describeGroup, listGroups, toTopicPartitions } from '../groups/describe.js';
import {
  DEFAULT_SESSION_TIMEOUT_MS,
  MAX_SESSION_TIMEOUT_MS,
  MAX_SUBSCRIBED_TOPICS,
  MIN_SESSION_TIMEOUT_MS,
} from '../groups/group-state.js';
import { heartbeat, joinGroup, leaveGroup } from '../groups/membership.js';
import { commitOffsets, fetchOffsetsWithLag, MAX_OFFSET_METADATA_LENGTH } from '../groups/offsets.js';
import { resetOffsets } from '../groups/reset-offsets.js';
import { SluiceError } from '../errors.js';
import type { Operation } from './operation.js';
import { intField, intParam, parseInput, topicName } from './validation.js';

/** Most partitions one commit may carry. */
export const MAX_COMMIT_PARTITIONS = 1000;

const name = z.string().regex(/^[a-zA-Z0-9._-]{1,249}$/, 'must be 1 to 249 characters of [a-zA-Z0-9._-]');
const partition = intField(0, 2_147_483_647);

const joinSchema = z.strictObject({
  group: name,
  memberId: z.string().min(1).max(400).optional(),
  clientId: name.default('consumer'),
  topics: z.array(topicName).min(1).max(MAX_SUBSCRIBED_TOPICS),
  assignor: z.enum(ASSIGNOR_NAMES).optional(),
  sessionTimeoutMs: intField(MIN_SESSION_TIMEOUT_MS, MAX_SESSION_TIMEOUT_MS).default(DEFAULT_SESSION_TIMEOUT_MS),
});
const memberSchema = z.strictObject({ group: name, memberId: z.string().min(1).max(400) });
const heartbeatSchema = memberSchema.extend({ generation: intParam(0) });
const groupSchema = z.strictObject({ group: name });
const commitSchema = z.strictObject({
  group: name,
  memberId: z.string().min(1).max(400).optional(),
  generation: intField(0).optional(),
  offsets: z
    .array(z.strictObject({ topic: topicName, partition, offset: intField(0), metadata: z.string().max(MAX_OFFSET_METADATA_LENGTH).optional() }))
    .min(1)
    .max(MAX_COMMIT_PARTITIONS),
});
const fetchSchema = z.strictObject({ group: name, topic: topicName.optional() });
const resetSchema = z.strictObject({
  group: name,
  topic: topicName,
  partitions: z.array(partition).min(1).max(MAX_COMMIT_PARTITIONS).optional(),
  to: z.union([
    z.enum(['earliest', 'latest']),
    z.strictObject({ timestamp: intField(0) }),
    z.strictObject({ offset: intField(0) }),
  ]),
});

// Answers (docs/openapi.json; test/api/openapi.test.ts checks real answers against them).
const assignor = z.enum(['range', 'roundrobin', 'sticky']).describe("The group's assignor ('cooperative-sticky' is answered as 'sticky')");
const topicPartitions = z.array(z.strictObject({ topic: z.string(), partitions: z.array(partition) }));
const state = z.enum(['Empty', 'PreparingRebalance', 'CompletingRebalance', 'Stable']);
const committedOffset = z.strictObject({ topic: z.string(), partition, offset: z.int().min(0), metadata: z.string() });
const committedOffsets = z.strictObject({ offsets: z.array(committedOffset) });
const offsetWithLag = committedOffset.extend({ highWatermark: z.int().min(0), lag: z.int().min(0) });
const joinResponse = z.strictObject({
  memberId: z.string(),
  generation: z.int().min(0),
  assignor,
  sessionTimeoutMs: z.int(),
  assignment: topicPartitions.describe("The member's partitions in this generation"),
});
const heartbeatResponse = z.strictObject({
  generation: z.int().min(0),
  rebalance: z.boolean().describe('The group is rebalancing: rejoin to get the new assignment'),
});
const groupListing = z.strictObject({
  groups: z.array(z.strictObject({ group: z.string(), state, generation: z.int().min(0), assignor: assignor.nullable(), members: z.int().min(0) })),
});
const groupDescription = z.strictObject({
  group: z.string(),
  state,
  generation: z.int().min(0),
  assignor: assignor.nullable(),
  members: z.array(
    z.strictObject({
      memberId: z.string(),
      clientId: z.string(),
      topics: z.array(z.string()),
      assignment: topicPartitions,
      sessionTimeoutMs: z.int(),
      ackGeneration: z.int().describe('The latest generation the member heartbeated with'),
    }),
  ),
  pending: z
    .array(z.strictObject({ topic: z.string(), partition, from: z.string() }))
    .describe('Partitions taken from member `from` and not yet handed to their new owner'),
  offsets: z.array(offsetWithLag),
});

function rejectDuplicates(offsets: readonly { topic: string; partition: number }[]): void {
  const seen = new Set<string>();
  for (const { topic, partition: p } of offsets) {
    const key = `${topic}-${p}`;
    if (seen.has(key)) throw new SluiceError('INVALID_REQUEST', `partition ${key} appears more than once`);
    seen.add(key);
  }
}

const joinGroupOperation: Operation = {
  name: 'joinGroup',
  method: 'POST',
  path: '/v1/groups/{group}/members',
  summary: 'Join a consumer group, or rejoin it, and get this generation\'s assignment (Kafka JoinGroup + SyncGroup)',
  input: joinSchema,
  response: { status: 200, body: joinResponse },
  async run(ctx, raw) {
    const input = parseInput(joinSchema, raw);
    input.topics.forEach(validateTopicName);
    const joined = await joinGroup(ctx, {
      ...input,
      assignor: input.assignor === undefined ? undefined : normalizeAssignor(input.assignor),
    });
    return { status: 200, body: { ...joined, assignment: toTopicPartitions(joined.assignment) } };
  },
};

const heartbeatOperation: Operation = {
  name: 'heartbeat',
  method: 'POST',
  path: '/v1/groups/{group}/members/{memberId}/heartbeat',
  summary: 'Keep a member alive and learn of a rebalance (Kafka Heartbeat)',
  input: heartbeatSchema,
  response: { status: 200, body: heartbeatResponse },
  async run(ctx, raw) {
    const input = parseInput(heartbeatSchema, raw);
    return { status: 200, body: await heartbeat(ctx, input.group, input.memberId, input.generation) };
  },
};

const leaveGroupOperation: Operation = {
  name: 'leaveGroup',
  method: 'DELETE',
  path: '/v1/groups/{group}/members/{memberId}',
  summary: 'Leave the group, or remove a member (Kafka LeaveGroup)',
  input: memberSchema,
  response: { status: 204 },
  async run(ctx, raw) {
    const input = parseInput(memberSchema, raw);
    await leaveGroup(ctx, input.group, input.memberId);
    return { status: 204 };
  },
};

const commitOffsetsOperation: Operation = {
  name: 'commitOffsets',
  method: 'POST',
  path: '/v1/groups/{group}/offsets',
  summary: 'Commit offsets, as a member of the current generation or standalone (Kafka OffsetCommit)',
  input: commitSchema,
  response: { status: 200, body: committedOffsets },
  async run(ctx, raw) {
    const input = parseInput(commitSchema, raw);
    input.offsets.forEach((o) => validateTopicName(o.topic));
    rejectDuplicates(input.offsets);
    return { status: 200, body: { offsets: await commitOffsets(ctx, input) } };
  },
};

const fetchOffsetsOperation: Operation = {
  name: 'fetchOffsets',
  method: 'GET',
  path: '/v1/groups/{group}/offsets',
  summary: "The group's committed offsets with each partition's lag (Kafka OffsetFetch)",
  input: fetchSchema,
  response: { status: 200, body: z.strictObject({ offsets: z.array(offsetWithLag) }) },
  async run(ctx, raw) {
    const input = parseInput(fetchSchema, raw);
    if (input.topic !== undefined) validateTopicName(input.topic);
    return { status: 200, body: { offsets: await fetchOffsetsWithLag(ctx, input.group, input.topic) } };
  },
};

const resetOffsetsOperation: Operation = {
  name: 'resetOffsets',
  method: 'POST',
  path: '/v1/groups/{group}/offsets/reset',
  summary: "Reset the group's offsets of a topic (kafka-consumer-groups.sh --reset-offsets)",
  input: resetSchema,
  response: { status: 200, body: committedOffsets },
  async run(ctx, raw) {
    const input = parseInput(resetSchema, raw);
    validateTopicName(input.topic);
    return { status: 200, body: { offsets: await resetOffsets(ctx, input) } };
  },
};

const listGroupsOperation: Operation = {
  name: 'listGroups',
  method: 'GET',
  path: '/v1/groups',
  summary: 'List the consumer groups (Kafka ListGroups)',
  input: z.strictObject({}),
  response: { status: 200, body: groupListing },
  async run(ctx, raw) {
    parseInput(z.strictObject({}), raw);
    return { status: 200, body: { groups: await listGroups(ctx) } };
  },
};

const describeGroupOperation: Operation = {
  name: 'describeGroup',
  method: 'GET',
  path: '/v1/groups/{group}',
  summary: "A group's state, members, assignment and offsets (Kafka DescribeGroups)",
  input: groupSchema,
  response: { status: 200, body: groupDescription },
  async run(ctx, raw) {
    const input = parseInput(groupSchema, raw);
    return { status: 200, body: await describeGroup(ctx, input.group) };
  },
};

const deleteGroupOperation: Operation = {
  name: 'deleteGroup',
  method: 'DELETE',
  path: '/v1/groups/{group}',
  summary: 'Delete an empty group and its offsets (Kafka DeleteGroups)',
  input: groupSchema,
  response: { status: 204 },
  async run(ctx, raw) {
    const input = parseInput(groupSchema, raw);
    await deleteGroup(ctx, input.group);
    return { status: 204 };
  },
};

export const groupOperations: readonly Operation[] = [
  joinGroupOperation,
  heartbeatOperation,
  leaveGroupOperation,
  commitOffsetsOperation,
  fetchOffsetsOperation,
  resetOffsetsOperation,
  listGroupsOperation,
  describeGroupOperation,
  deleteGroupOperation,
];
