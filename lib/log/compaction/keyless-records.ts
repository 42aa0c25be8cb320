// Kafka refuses a record without a key in a compacted topic at produce (INVALID_RECORD: "Compacted
// topic cannot accept message without key"): the cleaner keeps the newest record of each key, and
// a keyless record has none. Every produce path (JSON records, record batches, the Kafka gateway's
// batcher) ends in append.ts (appendToPartitions, appendRequests), which asks this before it writes
// anything; a refused partition gets the error in its result and nothing of it is written.
import { SluiceError } from '../../errors.js';
import type { SluiceContext } from '../../context.js';
import { MAX_MESSAGE_BYTES_LIMIT, type TopicConfig, getTopicCached, isCompacted } from '../../metadata/topics.js';
import type { TopicRef } from '../../metadata/types.js';
import { decodeRecordBatch } from '../../records/index.js';

/** What a produce carries for one partition: records to encode, or a client's encoded batch. */
interface KeyedInput {
  readonly partition: number;
  readonly records?: readonly { readonly key: Buffer | null }[];
  readonly batch?: { readonly bytes: Buffer };
}

/**
 * For each of `appends`, the INVALID_RECORD error when the topic is compacted and a record of it
 * has no key, else undefined. The topic's config comes with its metadata, or from the warm cache.
 */
export async function keylessRecordRefusals(
  ctx: SluiceContext,
  topic: TopicRef | (TopicRef & { readonly config: TopicConfig }),
  appends: readonly KeyedInput[],
): Promise<(SluiceError | undefined)[]> {
  const config = 'config' in topic ? topic.config : await configOf(ctx, topic);
  if (!config || !isCompacted(config)) return appends.map(() => undefined);
  return appends.map((append) => (hasKeylessRecord(append) ? keylessError(topic, append.partition) : undefined));
}

async function configOf(ctx: SluiceContext, topic: TopicRef): Promise<TopicConfig | undefined> {
  try {
    const meta = await getTopicCached(ctx, topic.name);
    return meta.id === topic.id ? meta.config : undefined;
  } catch {
    // A topic gone or unreadable: the append itself reports it.
    return undefined;
  }
}

function hasKeylessRecord(append: KeyedInput): boolean {
  if (append.records) return append.records.some((r) => r.key === null);
  if (!append.batch) return false;
  try {
    // Checked by the caller already (CRC, size); decoding again is the compacted topic's cost.
    return decodeRecordBatch(append.batch.bytes, 0, { maxDecompressedBytes: MAX_MESSAGE_BYTES_LIMIT }).records.some((r) => r.key === null);
  } catch {
    // A batch that does not decode is refused by the append's own checks.
    return false;
  }
}

function keylessError(topic: TopicRef, partition: number): SluiceError {
  return new SluiceError(
    'INVALID_RECORD',
    `compacted topic cannot accept a record without a key in ${topic.name}-${partition} (cleanup.policy includes 'compact')`,
    { topic: topic.name, partition },
  );
}
