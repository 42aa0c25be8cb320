// Kafka's OffsetCommit (v0–7) and OffsetFetch (v0–5) on the same `OFFSET#` items as the HTTP API
// (offsets.ts), so Kafka and HTTP consumers, describe and lag all see one set of offsets.
//
// OffsetCommit follows Kafka's coordinator: a commit with generation -1 (a consumer that manages
// its own partitions) is accepted only while the group has no live members, and creates the
// group if needed; otherwise FENCED_INSTANCE_ID, UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION (also for
// a group that does not exist), and REBALANCE_IN_PROGRESS while the group waits for its leader's
// assignment (CompletingRebalance). Commits are accepted while a rebalance is being prepared: the
// member still owns its partitions until it rejoins. Each offset write is fenced by generation
// (`putCommittedOffset`), so a zombie of an older generation never overwrites a newer commit.
// Partition errors are per partition: UNKNOWN_TOPIC_OR_PARTITION, OFFSET_METADATA_TOO_LARGE
// (Kafka's offset.metadata.max.bytes), INVALID_REQUEST for a negative offset.
import type { SluiceContext } from '../context.js';
import { SluiceError, type ErrorCode } from '../errors.js';
import { checkMember } from './classic-state.js';
import { putCommittedOffset } from './group-store.js';
import { claimInactiveGroup, fetchCommittedOffsets, inBatches, MAX_OFFSET_METADATA_LENGTH } from './offsets.js';
import { loadGroup } from './session-expiry.js';
import { validateTopicName } from '../metadata/topics.js';
import { topicPartitionCount } from './topic-partitions.js';

export interface KafkaOffsetCommit {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly metadata: string | null;
}

export interface KafkaCommitRequest {
  readonly group: string;
  /** -1 for a commit outside group membership. */
  readonly generation: number;
  /** '' for a commit outside group membership. */
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly offsets: readonly KafkaOffsetCommit[];
}

export interface PartitionError {
  readonly topic: string;
  readonly partition: number;
  /** Absent when the partition's offset was committed. */
  readonly error?: ErrorCode;
}

/** The generation the commit is made in, after Kafka's membership checks (throws their errors). */
async function commitGeneration(ctx: SluiceContext, req: KafkaCommitRequest): Promise<number> {
  if (req.generation < 0 && req.memberId === '') {
    return claimInactiveGroup(ctx, req.group, () => new SluiceError('UNKNOWN_MEMBER_ID', `group '${req.group}' has active members; commit as one of them`));
  }
  const state = await loadGroup(ctx, req.group);
  if (!state) throw new SluiceError('ILLEGAL_GENERATION', `group '${req.group}' does not exist, so generation ${req.generation} is not its generation`);
  if (state.classic) {
    checkMember(state, req.group, req.memberId, req.groupInstanceId);
  } else if (!state.members[req.memberId]) {
    throw new SluiceError('UNKNOWN_MEMBER_ID', `member '${req.memberId}' is not in group '${req.group}' (expired or left); join again`);
  }
  if (req.generation !== state.generation) {
    throw new SluiceError('ILLEGAL_GENERATION', `generation ${req.generation} is not the current generation ${state.generation} of group '${req.group}'; join again`);
  }
  if (state.classic?.state === 'CompletingRebalance') {
    throw new SluiceError('REBALANCE_IN_PROGRESS', `group '${req.group}' is waiting for its leader's assignment; commit after SyncGroup`);
  }
  return state.generation;
}

export async function commitKafkaOffsets(ctx: SluiceContext, req: KafkaCommitRequest): Promise<PartitionError[]> {
  if (req.group === '') throw new SluiceError('INVALID_GROUP_ID', 'the group id must not be empty');
  const counts = new Map<string, number>();
  // A name no topic can have is a topic that does not exist (never a storage lookup).
  const validName = (t: string) => {
    try {
      validateTopicName(t);
      return true;
    } catch {
      return false;
    }
  };
  await Promise.all([...new Set(req.offsets.map((o) => o.topic))].map(async (t) => counts.set(t, validName(t) ? await topicPartitionCount(ctx, t) : 0)));
  const problem = (o: KafkaOffsetCommit): ErrorCode | undefined => {
    if (o.partition < 0 || o.partition >= counts.get(o.topic)!) return 'UNKNOWN_TOPIC_OR_PARTITION';
    if ((o.metadata?.length ?? 0) > MAX_OFFSET_METADATA_LENGTH) return 'OFFSET_METADATA_TOO_LARGE';
    if (o.offset < 0 || !Number.isSafeInteger(o.offset)) return 'INVALID_REQUEST';
    return undefined;
  };
  const valid = req.offsets.filter((o) => problem(o) === undefined);
  // Membership is checked (and an Empty group created) only when something would be written.
  const generation = valid.length > 0 ? await commitGeneration(ctx, req) : 0;
  const memberId = req.memberId === '' ? undefined : req.memberId;
  const now = ctx.now();
  return inBatches(req.offsets, async (o): Promise<PartitionError> => {
    const error = problem(o);
    if (error) return { topic: o.topic, partition: o.partition, error };
    const written = await putCommittedOffset(ctx, req.group, {
      topic: o.topic,
      partition: o.partition,
      offset: o.offset,
      metadata: o.metadata ?? '',
      commitGeneration: generation,
      memberId,
      committedAt: now,
    });
    return written ? { topic: o.topic, partition: o.partition } : { topic: o.topic, partition: o.partition, error: 'ILLEGAL_GENERATION' };
  });
}

export interface KafkaCommittedOffset {
  readonly topic: string;
  readonly partition: number;
  /** -1 when the group has committed nothing for the partition. */
  readonly offset: number;
  readonly metadata: string;
}

/** The group's committed offsets of `topics` (null: every partition it committed), -1 where none. */
export async function fetchKafkaOffsets(
  ctx: SluiceContext,
  group: string,
  topics: readonly { readonly topic: string; readonly partitions: readonly number[] }[] | null,
): Promise<KafkaCommittedOffset[]> {
  const committed = await fetchCommittedOffsets(ctx, group);
  if (topics === null) return committed;
  const byKey = new Map(committed.map((c) => [`${c.topic}\u0000${c.partition}`, c]));
  return topics.flatMap(({ topic, partitions }) =>
    partitions.map((partition) => byKey.get(`${topic}\u0000${partition}`) ?? { topic, partition, offset: -1, metadata: '' }),
  );
}
