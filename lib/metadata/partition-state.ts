// Access to a partition's `STATE` item (PART#<topic>#<partition> / STATE, see keys.ts): log end
// offset (= high watermark), log start offset, leader lease and idempotent-producer sequences.
// The item is created lazily by the first lease acquisition (lease.ts); until then a partition
// reads as empty. Every read here is strongly consistent: the append and read protocols decide on it.
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';
import { stateKey } from './keys.js';
import type { PartitionState, ProducerBatchState } from './types.js';

export function emptyPartitionState(topic: string, partition: number): PartitionState {
  return { topic, partition, nextOffset: 0, logStartOffset: 0, epoch: 0, expiresAt: 0, bytes: 0, segments: 0 };
}

export function partitionStateFromItem(topic: string, partition: number, item: Record<string, unknown> | undefined): PartitionState {
  if (!item) return emptyPartitionState(topic, partition);
  return {
    topic,
    partition,
    nextOffset: Number(item.nextOffset ?? 0),
    logStartOffset: Number(item.logStartOffset ?? 0),
    owner: typeof item.owner === 'string' ? item.owner : undefined,
    epoch: Number(item.epoch ?? 0),
    expiresAt: Number(item.expiresAt ?? 0),
    bytes: Number(item.bytes ?? 0),
    segments: Number(item.segments ?? 0),
    producers: (item.producers as Record<string, ProducerBatchState> | undefined) ?? {},
    tail: (item.tail as string[] | undefined) ?? [],
  };
}

/** Strongly consistent read of the partition state; zeros when the partition was never written. */
export async function getPartitionState(ctx: SluiceContext, topic: string, partition: number): Promise<PartitionState> {
  const got = await ctx.ddb.send(
    new GetCommand({ TableName: ctx.table, Key: stateKey(topic, partition), ConsistentRead: true }),
  );
  return partitionStateFromItem(topic, partition, got.Item);
}

export interface CommitAppendRequest {
  readonly topic: string;
  readonly partition: number;
  readonly epoch: number;
  readonly baseOffset: number;
  readonly count: number;
  readonly bytes: number;
  /** New lease expiry: the commit doubles as the lease renewal. */
  readonly expiresAt: number;
  /**
   * STATE's tail after this commit (lib/log/partition-tail.ts), listing the range committed.
   * Absent only where a test plants SEG items itself: the tail is then left as it is.
   */
  readonly tail?: readonly string[];
  /** Change of the `segments` counter (SEG items + tail ranges). @default 1 */
  readonly segmentsDelta?: number;
  /** Idempotent producer: the entry expected now (undefined = none) and the one to store. */
  readonly producer?: {
    readonly producerId: number;
    readonly expected: ProducerBatchState | undefined;
    readonly next: ProducerBatchState;
  };
  /** Producer ids whose entries expired (Kafka's producer.id.expiration.ms): removed by this commit. */
  readonly expiredProducerIds?: readonly string[];
}

/**
 * Step 2 of the append protocol: makes [baseOffset, baseOffset + count) visible, its range listed
 * in the tail it writes. Succeeds only if
 * this owner still holds the lease epoch and the log end is exactly `baseOffset` (and the
 * producer's entry is what the leader validated the sequence against). Throws the SDK error as is:
 * ConditionalCheckFailedException is a definite refusal, anything else is ambiguous.
 */
export async function commitAppend(ctx: SluiceContext, req: CommitAppendRequest): Promise<void> {
  const names: Record<string, string> = {
    '#owner': 'owner',
    '#epoch': 'epoch',
    '#nextOffset': 'nextOffset',
    '#expiresAt': 'expiresAt',
    '#bytes': 'bytes',
    '#segments': 'segments',
  };
  const values: Record<string, unknown> = {
    ':me': ctx.ownerId,
    ':epoch': req.epoch,
    ':base': req.baseOffset,
    ':next': req.baseOffset + req.count,
    ':exp': req.expiresAt,
    ':bytes': req.bytes,
    ':segments': req.segmentsDelta ?? 1,
  };
  if (req.tail) {
    names['#tail'] = 'tail';
    values[':tail'] = req.tail;
  }
  let condition = '#epoch = :epoch AND #nextOffset = :base AND #owner = :me';
  let set = `SET #nextOffset = :next, #expiresAt = :exp${req.tail ? ', #tail = :tail' : ''}`;
  if (req.producer) {
    names['#pid'] = String(req.producer.producerId);
    names['#producers'] = 'producers';
    values[':producer'] = req.producer.next;
    set += ', #producers.#pid = :producer';
    const expected = req.producer.expected;
    if (expected) {
      values[':pEpoch'] = expected.producerEpoch;
      values[':pLast'] = expected.lastSequence;
      values[':pBase'] = expected.baseOffset;
      condition +=
        ' AND #producers.#pid.producerEpoch = :pEpoch AND #producers.#pid.lastSequence = :pLast' +
        ' AND #producers.#pid.baseOffset = :pBase';
    } else {
      condition += ' AND attribute_not_exists(#producers.#pid)';
    }
  }
  let remove = '';
  const expired = (req.expiredProducerIds ?? []).filter((id) => id !== names['#pid']);
  if (expired.length > 0) {
    names['#producers'] = 'producers';
    expired.forEach((id, i) => (names[`#x${i}`] = id));
    remove = ` REMOVE ${expired.map((_, i) => `#producers.#x${i}`).join(', ')}`;
  }
  await ctx.ddb.send(
    new UpdateCommand({
      TableName: ctx.table,
      Key: stateKey(req.topic, req.partition),
      ConditionExpression: condition,
      UpdateExpression: `${set} ADD #bytes :bytes, #segments :segments${remove}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }),
  );
}
