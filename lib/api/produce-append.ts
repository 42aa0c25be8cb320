// The write half of Produce, shared by both request bodies (JSON records and record batches): one
// append of a batch per partition, then the per-partition answer. Partitions succeed or fail on
// their own (Kafka's per-partition error codes): the request fails as a whole only when every
// partition failed; otherwise `offsets` carries an `error` for each failed partition. An idempotent
// producer's id must be one the cluster issued (producer-ids.ts), checked before anything is written.
import type { SluiceContext } from '../context.js';
import { appendToPartitions, type PartitionAppend, type PartitionAppendResult } from '../log/append.js';
import { isIssuedProducerId } from '../metadata/producer-ids.js';
import type { TopicMetadata } from '../metadata/topics.js';
import { SluiceError, isSluiceError } from '../errors.js';

/**
 * Records per produce request, whatever the body. The JSON answer lists every record's offset, and
 * it must fit a 6 MB Lambda response (~45 bytes per record at worst).
 */
export const MAX_RECORDS_PER_REQUEST = 100_000;

export type PartitionOffsets =
  | { readonly partition: number; readonly baseOffset: number; readonly count: number; readonly duplicate?: true }
  | { readonly partition: number; readonly error: ReturnType<SluiceError['toBody']>['error'] };

export interface AppendAnswer {
  /** One entry per append, in the order of `appends`. */
  readonly offsets: PartitionOffsets[];
  /** Each partition's log result, for callers that answer per record. */
  readonly byPartition: ReadonlyMap<number, PartitionAppendResult>;
}

/** Appends every partition's batch; throws the first error when all partitions failed. */
export async function appendAndAnswer(
  ctx: SluiceContext,
  topic: TopicMetadata,
  appends: readonly PartitionAppend[],
): Promise<AppendAnswer> {
  const producer = appends.find((a) => a.producer)?.producer;
  if (producer && !(await isIssuedProducerId(ctx, producer.producerId))) {
    throw new SluiceError('UNKNOWN_PRODUCER_ID', `producer id ${producer.producerId} was not issued by this cluster; get one from POST /v1/producers`);
  }
  const results = await appendToPartitions(ctx, topic, appends);
  const byPartition = new Map<number, PartitionAppendResult>();
  for (const r of results) byPartition.set(r.partition, r);
  const ordered = appends.map((a) => byPartition.get(a.partition)!);
  const failures = ordered.filter((r): r is Extract<PartitionAppendResult, { error: unknown }> => 'error' in r);
  if (failures.length === ordered.length) throw failures[0].error;

  const offsets = ordered.map((r): PartitionOffsets => {
    if ('error' in r) {
      const e = isSluiceError(r.error) ? r.error : new SluiceError('UNKNOWN_SERVER_ERROR', 'append failed');
      return { partition: r.partition, error: e.toBody().error };
    }
    return { partition: r.partition, baseOffset: r.baseOffset, count: r.count, ...(r.duplicate ? { duplicate: true as const } : {}) };
  });
  return { offsets, byPartition };
}
