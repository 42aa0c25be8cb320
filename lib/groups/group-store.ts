// Reads and conditionally writes a group's META item (layout in group-state.ts). `updateGroup` is
// the only way group state changes: read (strongly consistent) → decide (pure) → put with
// `version = :read` (or `attribute_not_exists(pk)` for a new group) → on a lost race, read again
// and decide again. Concurrent joins and leaves are thereby serialised: none is lost and no two
// writers can both build on the same generation.
//
// Every write to a group's items is a named function here:
//
//   updateGroup               META: `version = :read` (or new), and the directory entry before a new group
//   deleteGroupMeta           DeleteGroups: META only if its version is still the one read
//   removeGroupFromDirectory  DeleteGroups, last step: the GROUPS directory entry
//   putCommittedOffset        OffsetCommit: OFFSET#<topic>#<p>, fenced by `commitGeneration <= :generation`
//   deleteCommittedOffsets    DeleteGroups: the given OFFSET items, unconditionally
import { setTimeout as sleep } from 'node:timers/promises';
import { BatchWriteCommand, DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';
import { SluiceError } from '../errors.js';
import { isConditionalCheckFailed } from '../metadata/aws-errors.js';
import { groupDirectoryKey } from '../metadata/keys.js';
import { groupMetaKey, offsetKey } from './group-keys.js';
import { ASSIGNORS } from './assignors/assignors.js';
import type { AssignorName } from './assignors/types.js';
import {
  MAX_GROUP_ITEM_BYTES,
  type ClassicGroup,
  type ClassicMember,
  type ClassicStateName,
  type GroupMember,
  type GroupState,
  type PendingRevocation,
} from './group-state.js';

const CLASSIC_STATES: readonly ClassicStateName[] = ['Empty', 'PreparingRebalance', 'CompletingRebalance', 'Stable'];

/** Attempts before a contended update gives up with a retriable error. */
export const MAX_UPDATE_ATTEMPTS = 100;

/** What a decision returns: the state to write (if any), then a result to return or an error to throw. */
export interface GroupDecision<T> {
  readonly next?: GroupState;
  readonly result?: T;
  readonly error?: SluiceError;
}

/**
 * Parses a stored META item (layout in group-state.ts); a malformed one is a clear error naming
 * the group and the attribute, never undefined behaviour further on.
 */
export function groupFromItem(item: Record<string, unknown>): GroupState {
  const group = typeof item.group === 'string' ? item.group : String(item.pk ?? '?').replace(/^GROUP#/, '');
  const fail = (what: string, value: unknown): never => {
    throw new Error(`group item '${group}': ${what} is malformed (${JSON.stringify(value)?.slice(0, 200)})`);
  };
  const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const int = (v: unknown, what: string): number => (typeof v === 'number' && Number.isSafeInteger(v) ? v : fail(what, v));
  const str = (v: unknown, what: string): string => (typeof v === 'string' ? v : fail(what, v));
  const assignorName = (v: unknown, what: string): AssignorName => (typeof v === 'string' && v in ASSIGNORS ? (v as AssignorName) : fail(what, v));
  const partitions = (v: unknown, what: string): number[] =>
    Array.isArray(v) && v.every((p) => typeof p === 'number' && Number.isSafeInteger(p) && p >= 0) ? (v as number[]) : fail(what, v);

  const bool = (v: unknown, what: string): boolean => (typeof v === 'boolean' ? v : fail(what, v));
  const nullableStr = (v: unknown, what: string): string | null => (v === null || v === undefined ? null : str(v, what));

  if (typeof item.group !== 'string') fail('group', item.group);
  const kafka = item.classic !== undefined;
  const classicMember = (v: unknown, id: string): ClassicMember => {
    if (!isRecord(v)) return fail(`member '${id}' classic`, v);
    const what = (field: string) => `member '${id}' classic.${field}`;
    if (!Array.isArray(v.protocols)) fail(what('protocols'), v.protocols);
    return {
      clientHost: str(v.clientHost, what('clientHost')),
      ...(v.groupInstanceId === undefined ? {} : { groupInstanceId: str(v.groupInstanceId, what('groupInstanceId')) }),
      rebalanceTimeoutMs: int(v.rebalanceTimeoutMs, what('rebalanceTimeoutMs')),
      protocols: (v.protocols as unknown[]).map((p, i) =>
        isRecord(p) ? { name: str(p.name, what(`protocols[${i}].name`)), metadata: str(p.metadata, what(`protocols[${i}].metadata`)) } : fail(what(`protocols[${i}]`), p),
      ),
      awaitingJoin: bool(v.awaitingJoin, what('awaitingJoin')),
      joinedGeneration: int(v.joinedGeneration, what('joinedGeneration')),
      memberAssignment: str(v.memberAssignment, what('memberAssignment')),
    };
  };
  const classicGroup = (v: unknown): ClassicGroup => {
    if (!isRecord(v)) return fail('classic', v);
    if (!CLASSIC_STATES.includes(v.state as ClassicStateName)) fail('classic.state', v.state);
    if (!isRecord(v.pendingMembers)) fail('classic.pendingMembers', v.pendingMembers);
    const pendingMembers: Record<string, number> = {};
    for (const [id, at] of Object.entries(v.pendingMembers as Record<string, unknown>)) pendingMembers[id] = int(at, `classic.pendingMembers '${id}'`);
    return {
      protocolType: str(v.protocolType, 'classic.protocolType'),
      protocol: nullableStr(v.protocol, 'classic.protocol'),
      leader: nullableStr(v.leader, 'classic.leader'),
      state: v.state as ClassicStateName,
      joinDeadline: int(v.joinDeadline, 'classic.joinDeadline'),
      joinNotBefore: int(v.joinNotBefore, 'classic.joinNotBefore'),
      pendingMembers,
    };
  };
  const members: Record<string, GroupMember> = {};
  if (!isRecord(item.members)) fail('members', item.members);
  for (const [id, m] of Object.entries(item.members as Record<string, unknown>)) {
    if (!isRecord(m)) fail(`member '${id}'`, m);
    const member = m as Record<string, unknown>;
    const topics = member.topics;
    if (!Array.isArray(topics) || !topics.every((t) => typeof t === 'string')) fail(`member '${id}' topics`, topics);
    members[id] = {
      clientId: str(member.clientId, `member '${id}' clientId`),
      topics: topics as string[],
      assignor: kafka ? str(member.assignor, `member '${id}' assignor`) : assignorName(member.assignor, `member '${id}' assignor`),
      sessionTimeoutMs: int(member.sessionTimeoutMs, `member '${id}' sessionTimeoutMs`),
      expiresAt: int(member.expiresAt, `member '${id}' expiresAt`),
      ackGeneration: int(member.ackGeneration, `member '${id}' ackGeneration`),
      joinedAt: int(member.joinedAt, `member '${id}' joinedAt`),
      ...(member.classic === undefined ? {} : { classic: classicMember(member.classic, id) }),
    };
  }
  const assignment: Record<string, Record<string, number[]>> = {};
  if (!isRecord(item.assignment)) fail('assignment', item.assignment);
  for (const [id, a] of Object.entries(item.assignment as Record<string, unknown>)) {
    if (!isRecord(a)) fail(`assignment of '${id}'`, a);
    assignment[id] = {};
    for (const [topic, ps] of Object.entries(a as Record<string, unknown>)) assignment[id][topic] = partitions(ps, `assignment of '${id}' to '${topic}'`);
  }
  if (!Array.isArray(item.pending)) fail('pending', item.pending);
  const pending: PendingRevocation[] = (item.pending as unknown[]).map((r, i) => {
    if (!isRecord(r)) return fail(`pending[${i}]`, r);
    return { topic: str(r.topic, `pending[${i}].topic`), partition: int(r.partition, `pending[${i}].partition`), from: str(r.from, `pending[${i}].from`), since: int(r.since, `pending[${i}].since`) };
  });
  const partitionsPerTopic: Record<string, number> = {};
  if (!isRecord(item.partitionsPerTopic)) fail('partitionsPerTopic', item.partitionsPerTopic);
  for (const [topic, n] of Object.entries(item.partitionsPerTopic as Record<string, unknown>)) partitionsPerTopic[topic] = int(n, `partitionsPerTopic of '${topic}'`);
  return {
    group: item.group as string,
    version: int(item.version, 'version'),
    generation: int(item.generation, 'generation'),
    assignor: item.assignor === null || item.assignor === undefined ? null : assignorName(item.assignor, 'assignor'),
    members,
    assignment,
    pending,
    partitionsPerTopic,
    createdAt: int(item.createdAt, 'createdAt'),
    updatedAt: int(item.updatedAt, 'updatedAt'),
    ...(kafka ? { classic: classicGroup(item.classic) } : {}),
  };
}

export async function readGroup(ctx: SluiceContext, group: string): Promise<GroupState | undefined> {
  const out = await ctx.ddb.send(new GetCommand({ TableName: ctx.table, Key: groupMetaKey(group), ConsistentRead: true }));
  return out.Item ? groupFromItem(out.Item) : undefined;
}

/** Runs `decide` on the latest state until its write wins; returns its result or throws its error. */
export async function updateGroup<T>(
  ctx: SluiceContext,
  group: string,
  decide: (current: GroupState | undefined, now: number) => GroupDecision<T> | Promise<GroupDecision<T>>,
): Promise<T> {
  for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
    const current = await readGroup(ctx, group);
    const now = ctx.now();
    const decision = await decide(current, now);
    if (decision.next) {
      const item = { ...decision.next, ...groupMetaKey(group), group, version: (current?.version ?? 0) + 1, updatedAt: now };
      if (Buffer.byteLength(JSON.stringify(item)) > MAX_GROUP_ITEM_BYTES) {
        throw new SluiceError('INVALID_REQUEST', `group '${group}' would exceed ${MAX_GROUP_ITEM_BYTES} bytes of state; use fewer members or topics`);
      }
      // A new group enters the directory before its first write, so listing never misses it.
      if (!current) await addGroupToDirectory(ctx, group);
      try {
        await ctx.ddb.send(
          new PutCommand({
            TableName: ctx.table,
            Item: item,
            ConditionExpression: current ? 'version = :read' : 'attribute_not_exists(pk)',
            ExpressionAttributeValues: current ? { ':read': current.version } : undefined,
          }),
        );
      } catch (e) {
        if (!isConditionalCheckFailed(e)) throw e;
        // Lost the race: back off with jitter (grows with contention) and decide again.
        await sleep(Math.random() * Math.min(200, 5 * 2 ** Math.min(attempt, 6)));
        continue;
      }
    }
    if (decision.error) throw decision.error;
    return decision.result as T;
  }
  throw new SluiceError('REQUEST_TIMED_OUT', `group '${group}' is too contended to update; retry`);
}

/** The GROUPS directory entry listing reads; written before a new group's first META write. */
async function addGroupToDirectory(ctx: SluiceContext, group: string): Promise<void> {
  await ctx.ddb.send(new PutCommand({ TableName: ctx.table, Item: { ...groupDirectoryKey(group), group } }));
}

/** Last step of a delete: a crash before it leaves a directory entry that listing skips. */
export async function removeGroupFromDirectory(ctx: SluiceContext, group: string): Promise<void> {
  await ctx.ddb.send(new DeleteCommand({ TableName: ctx.table, Key: groupDirectoryKey(group) }));
}

/** Deletes META only if its version is still `version` (nobody joined meanwhile); false when it changed. */
export async function deleteGroupMeta(ctx: SluiceContext, group: string, version: number): Promise<boolean> {
  try {
    await ctx.ddb.send(
      new DeleteCommand({
        TableName: ctx.table,
        Key: groupMetaKey(group),
        ConditionExpression: 'version = :read',
        ExpressionAttributeValues: { ':read': version },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionalCheckFailed(e)) return false;
    throw e;
  }
}

/** One committed offset as stored (offsets.ts describes the item). */
export interface OffsetItem {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly metadata: string;
  readonly commitGeneration: number;
  readonly memberId?: string;
  readonly committedAt: number;
}

/**
 * Writes a committed offset unless a newer generation already committed one for the partition;
 * false then (the caller answers ILLEGAL_GENERATION).
 */
export async function putCommittedOffset(ctx: SluiceContext, group: string, offset: OffsetItem): Promise<boolean> {
  try {
    await ctx.ddb.send(
      new PutCommand({
        TableName: ctx.table,
        Item: { ...offsetKey(group, offset.topic, offset.partition), group, ...offset },
        ConditionExpression: 'attribute_not_exists(pk) OR commitGeneration <= :generation',
        ExpressionAttributeValues: { ':generation': offset.commitGeneration },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionalCheckFailed(e)) return false;
    throw e;
  }
}

/** Items per BatchWriteItem request (DynamoDB's limit). */
const BATCH_WRITE_LIMIT = 25;

/** Deletes the group's committed offsets of `partitions`, resending what DynamoDB leaves unprocessed. */
export async function deleteCommittedOffsets(
  ctx: SluiceContext,
  group: string,
  partitions: readonly { readonly topic: string; readonly partition: number }[],
): Promise<void> {
  for (let i = 0; i < partitions.length; i += BATCH_WRITE_LIMIT) {
    let requests: Record<string, unknown>[] | undefined = partitions
      .slice(i, i + BATCH_WRITE_LIMIT)
      .map((o) => ({ DeleteRequest: { Key: offsetKey(group, o.topic, o.partition) } }));
    for (let attempt = 0; requests && requests.length > 0; attempt++) {
      if (attempt > 0) await sleep(Math.min(1000, 20 * 2 ** attempt));
      const out = await ctx.ddb.send(new BatchWriteCommand({ RequestItems: { [ctx.table]: requests } }));
      requests = out.UnprocessedItems?.[ctx.table] as Record<string, unknown>[] | undefined;
    }
  }
}
