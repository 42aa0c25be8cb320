// Kafka's DescribeGroups / ListGroups (plus the lag kafka-consumer-groups.sh --describe shows).
// Describe first expires dead members (session-expiry.ts), so what it reports is what the next
// heartbeat will see. List is read-only (a Query of the group directory, then BatchGets of the META
// items); a group whose members have all timed out is listed as Empty, one with some timed out as
// PreparingRebalance.
import { setTimeout as sleep } from 'node:timers/promises';
import { BatchGetCommand, type BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';
import { SluiceError } from '../errors.js';
import type { AssignorName, MemberAssignment } from './assignors/types.js';
import { GROUPS_PK } from '../metadata/keys.js';
import { queryAll } from '../metadata/query-all.js';
import { groupMetaKey } from './group-keys.js';
import { groupFromItem } from './group-store.js';
import { groupStateName, type GroupState, type GroupStateName } from './group-state.js';
import { fetchOffsetsWithLag, type OffsetWithLag } from './offsets.js';
import { loadGroup, removeExpiredMembers } from './session-expiry.js';

export interface TopicPartitions {
  readonly topic: string;
  readonly partitions: number[];
}

export interface MemberDescription {
  readonly memberId: string;
  readonly clientId: string;
  readonly topics: readonly string[];
  readonly assignment: TopicPartitions[];
  readonly sessionTimeoutMs: number;
  /** The latest generation the member heartbeated with. */
  readonly ackGeneration: number;
}

export interface GroupDescription {
  readonly group: string;
  readonly state: GroupStateName;
  readonly generation: number;
  readonly assignor: AssignorName | null;
  readonly members: MemberDescription[];
  /** Partitions taken from `from` and not yet handed to their new owner. */
  readonly pending: { topic: string; partition: number; from: string }[];
  readonly offsets: OffsetWithLag[];
}

export interface GroupListing {
  readonly group: string;
  readonly state: GroupStateName;
  readonly generation: number;
  readonly assignor: AssignorName | null;
  readonly members: number;
}

/** `{topic: [p...]}` as the API's `[{topic, partitions}]`, sorted by topic. */
export function toTopicPartitions(assignment: MemberAssignment | undefined): TopicPartitions[] {
  return Object.keys(assignment ?? {})
    .sort()
    .map((topic) => ({ topic, partitions: [...assignment![topic]] }));
}

function describeState(state: GroupState, offsets: OffsetWithLag[]): GroupDescription {
  return {
    group: state.group,
    state: groupStateName(state),
    generation: state.generation,
    assignor: state.assignor,
    members: Object.keys(state.members)
      .sort()
      .map((memberId) => {
        const m = state.members[memberId];
        return {
          memberId,
          clientId: m.clientId,
          topics: m.topics,
          assignment: toTopicPartitions(state.assignment[memberId]),
          sessionTimeoutMs: m.sessionTimeoutMs,
          ackGeneration: m.ackGeneration,
        };
      }),
    pending: state.pending.map(({ topic, partition, from }) => ({ topic, partition, from })),
    offsets,
  };
}

export async function describeGroup(ctx: SluiceContext, group: string): Promise<GroupDescription> {
  const state = await loadGroup(ctx, group);
  if (!state) throw new SluiceError('GROUP_ID_NOT_FOUND', `group '${group}' does not exist`);
  return describeState(state, await fetchOffsetsWithLag(ctx, group));
}

/** Every listed group as stored, with its state as listing reports it and its live member count. */
export async function listGroupStates(ctx: SluiceContext): Promise<{ stored: GroupState; state: GroupStateName; live: number }[]> {
  const now = ctx.now();
  const names: string[] = [];
  const entries = queryAll(ctx, { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': GROUPS_PK }, ConsistentRead: true });
  for await (const entry of entries) names.push(entry.sk as string);
  return (await readGroups(ctx, names))
    .map((stored) => {
      const { state, expired } = removeExpiredMembers(stored, now);
      const live = Object.keys(state.members).length;
      return { stored, state: live > 0 && expired.length > 0 ? ('PreparingRebalance' as const) : groupStateName(state), live };
    })
    .sort((a, b) => (a.stored.group < b.stored.group ? -1 : a.stored.group > b.stored.group ? 1 : 0));
}

export async function listGroups(ctx: SluiceContext): Promise<GroupListing[]> {
  return (await listGroupStates(ctx)).map(({ stored, state, live }) => ({
    group: stored.group,
    state,
    generation: stored.generation,
    assignor: stored.assignor,
    members: live,
  }));
}

/** The META items of the named groups (BatchGet, 100 keys a call); names without one are skipped. */
async function readGroups(ctx: SluiceContext, names: readonly string[]): Promise<GroupState[]> {
  const groups: GroupState[] = [];
  for (let i = 0; i < names.length; i += 100) {
    let keys: Record<string, unknown>[] | undefined = names.slice(i, i + 100).map(groupMetaKey);
    for (let attempt = 0; keys && keys.length > 0; attempt++) {
      if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
      const out: BatchGetCommandOutput = await ctx.ddb.send(
        new BatchGetCommand({ RequestItems: { [ctx.table]: { Keys: keys, ConsistentRead: true } } }),
      );
      for (const item of out.Responses?.[ctx.table] ?? []) groups.push(groupFromItem(item));
      keys = out.UnprocessedKeys?.[ctx.table]?.Keys;
    }
  }
  return groups;
}
