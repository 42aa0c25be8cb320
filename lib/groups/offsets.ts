// Committed offsets: one item per group/topic/partition, `GROUP#<group>` / `OFFSET#<topic>#<p>`:
//   { pk, sk, group, topic, partition, offset, metadata, commitGeneration, memberId?, committedAt }
//
// Fencing (Kafka's OffsetCommit rules): a commit naming a member must name a live member
// (UNKNOWN_MEMBER_ID) of the current generation (ILLEGAL_GENERATION); a standalone commit (no
// member, no generation) is accepted only while the group has no live members, else
// UNKNOWN_MEMBER_ID as Kafka answers. The generation is checked on a strongly consistent read of
// META and each offset write is conditional on `commitGeneration <= :generation`, so a commit from
// an older generation can never overwrite one made by a newer generation. (Without transactions a
// commit checked just before a rebalance can still land just after it, before the new owner's
// first commit: consumption stays at-least-once, nothing is skipped.) Commits do not extend a
// member's session; heartbeats do.
//
// Lag per partition = high watermark (the partition's logEndOffset) − committed offset, floored at 0.
import type { SluiceContext } from '../context.js';
import { SluiceError } from '../errors.js';
import { groupPk } from '../metadata/keys.js';
import { queryAll } from '../metadata/query-all.js';
import { readPartitionState } from '../metadata/partition-state.js';
import { getTopicCached } from '../metadata/topics.js';
import { compareTopicPartitions } from './assignors/types.js';
import { OFFSET_PREFIX } from './group-keys.js';
import { emptyGroupState } from './group-state.js';
import { putCommittedOffset, updateGroup } from './group-store.js';
import { expiryWrite, loadGroup, removeExpiredMembers } from './session-expiry.js';
import { topicPartitionCount } from './topic-partitions.js';

/** Kafka's offset.metadata.max.bytes default. */
export const MAX_OFFSET_METADATA_LENGTH = 4096;
const CONCURRENCY = 25;

export interface OffsetCommit {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly metadata?: string;
}

export interface CommitRequest {
  readonly group: string;
  readonly memberId?: string;
  readonly generation?: number;
  readonly offsets: readonly OffsetCommit[];
}

export interface CommittedOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly metadata: string;
}

export interface OffsetWithLag extends CommittedOffset {
  readonly highWatermark: number;
  readonly lag: number;
}

/** Runs `fn` over `items` at most CONCURRENCY at a time. */
export async function inBatches<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += CONCURRENCY) out.push(...(await Promise.all(items.slice(i, i + CONCURRENCY).map(fn))));
  return out;
}

/** UNKNOWN_TOPIC_OR_PARTITION unless every topic-partition exists. */
async function requirePartitions(ctx: SluiceContext, partitions: readonly { topic: string; partition: number }[]): Promise<void> {
  const topics = [...new Set(partitions.map((p) => p.topic))];
  const counts = new Map(await Promise.all(topics.map(async (t) => [t, await topicPartitionCount(ctx, t)] as const)));
  for (const { topic, partition } of partitions) {
    if (partition >= counts.get(topic)!) {
      throw new SluiceError('UNKNOWN_TOPIC_OR_PARTITION', counts.get(topic) === 0 ? `topic '${topic}' does not exist` : `topic '${topic}' has no partition ${partition}`, { topic, partition });
    }
  }
}

/**
 * The generation of a group with no live members, creating the group (Empty) if it does not exist;
 * dead members are removed on the way. Throws `busy()` if members are live.
 */
export function claimInactiveGroup(ctx: SluiceContext, group: string, busy: () => SluiceError): Promise<number> {
  return updateGroup(ctx, group, (current, now) => {
    const { state, expired } = removeExpiredMembers(current ?? emptyGroupState(group, now), now);
    const next = current ? expiryWrite(state, expired, now) : state; // a group that does not exist is created Empty
    if (Object.keys(state.members).length > 0) return { next, error: busy() };
    return { next, result: (next ?? state).generation };
  });
}

/** Writes offsets fenced by `generation`; ILLEGAL_GENERATION if a newer generation already committed one. */
export async function writeOffsets(
  ctx: SluiceContext,
  group: string,
  generation: number,
  offsets: readonly OffsetCommit[],
  memberId?: string,
): Promise<CommittedOffset[]> {
  const now = ctx.now();
  return inBatches(offsets, async ({ topic, partition, offset, metadata = '' }) => {
    if (!(await putCommittedOffset(ctx, group, { topic, partition, offset, metadata, commitGeneration: generation, memberId, committedAt: now }))) {
      throw new SluiceError('ILLEGAL_GENERATION', `an offset for ${topic}-${partition} was committed by a generation newer than ${generation}`);
    }
    return { topic, partition, offset, metadata };
  });
}

export async function commitOffsets(ctx: SluiceContext, req: CommitRequest): Promise<CommittedOffset[]> {
  if ((req.memberId === undefined) !== (req.generation === undefined)) {
    throw new SluiceError('INVALID_REQUEST', 'give both memberId and generation, or neither for a standalone commit');
  }
  await requirePartitions(ctx, req.offsets);
  let generation: number;
  if (req.memberId !== undefined) {
    const state = await loadGroup(ctx, req.group);
    if (!state?.members[req.memberId]) {
      throw new SluiceError('UNKNOWN_MEMBER_ID', `member '${req.memberId}' is not in group '${req.group}' (expired or left); join again`);
    }
    if (req.generation !== state.generation) {
      throw new SluiceError('ILLEGAL_GENERATION', `generation ${req.generation} is not the current generation ${state.generation} of group '${req.group}'; join again`, {
        generation: state.generation,
      });
    }
    generation = state.generation;
  } else {
    generation = await claimInactiveGroup(
      ctx,
      req.group,
      () => new SluiceError('UNKNOWN_MEMBER_ID', `group '${req.group}' has active members; commit with memberId and generation`),
    );
  }
  return writeOffsets(ctx, req.group, generation, req.offsets, req.memberId);
}

/** The group's committed offsets (optionally one topic), sorted by topic and partition. */
export async function fetchCommittedOffsets(ctx: SluiceContext, group: string, topic?: string): Promise<CommittedOffset[]> {
  const out: CommittedOffset[] = [];
  const items = queryAll(ctx, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': groupPk(group), ':prefix': topic === undefined ? OFFSET_PREFIX : `${OFFSET_PREFIX}${topic}#` },
    ConsistentRead: true,
  });
  for await (const item of items) {
    out.push({ topic: item.topic as string, partition: item.partition as number, offset: item.offset as number, metadata: (item.metadata as string) ?? '' });
  }
  return out.sort(compareTopicPartitions);
}

/** Committed offsets with the partition's high watermark and the lag behind it. */
export async function fetchOffsetsWithLag(ctx: SluiceContext, group: string, topic?: string): Promise<OffsetWithLag[]> {
  const committed = await fetchCommittedOffsets(ctx, group, topic);
  return inBatches(committed, async (c) => {
    // A topic deleted (or a partition never created) since the commit has no log end: lag 0.
    const topic = await getTopicCached(ctx, c.topic).catch(() => undefined);
    const state = topic && c.partition < topic.partitions ? await readPartitionState(ctx, topic, c.partition) : undefined;
    const highWatermark = state?.logEndOffset ?? c.offset;
    return { ...c, highWatermark, lag: Math.max(0, highWatermark - c.offset) };
  });
}
