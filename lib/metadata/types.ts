// Stored shapes of the metadata items (see keys.ts for where each lives).

/**
 * A topic as its items and objects name it: the name users see and the random id it got at
 * creation (Kafka's KIP-516 topic id). Keys carry both, so a deleted and re-created topic never
 * shares an item or an object with its predecessor. TopicMetadata (topics.ts) is one.
 */
export interface TopicRef {
  readonly name: string;
  readonly id: string;
}

/**
 * `PART#<topic>#<topicId>#<partition>` / `STATE`: the partition's offsets, the newest manifest
 * entries (its tail), idempotent producers' entries and the partition leader's lease. Created with
 * the topic (topics.ts), never by an append: every update expression below relies on its
 * attributes existing.
 */
export interface PartitionState {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
  /** Log end offset = high watermark: a record is visible only below it. */
  readonly logEndOffset: number;
  readonly logStartOffset: number;
  /** Offset of the first tail entry: tailBase + Σ tail counts = logEndOffset. */
  readonly tailBase: number;
  /** The newest manifest entries, oldest first, each encoded as lib/log/manifest-entry.ts describes. */
  readonly tail: readonly string[];
  /** Partition leader (maintenance) lease: a process-start id, absent when never leased. */
  readonly owner?: string;
  /** Leader epoch: +1 on every lease acquisition. Fences a stale maintainer. */
  readonly epoch: number;
  /** Lease expiry, ms since epoch. */
  readonly expiresAt: number;
  /** Bytes appended below logEndOffset and at/after logStartOffset (for describe). */
  readonly bytes: number;
  /** SEG items + tail entries (for describe). */
  readonly segments: number;
  /** Idempotent producers: the last batch each producer id appended (the key is the id as a string). */
  readonly producers: Readonly<Record<string, ProducerEntry>>;
  /** The base offset each producer's last batch received (copied from logEndOffset by its append). */
  readonly producerBases: Readonly<Record<string, number>>;
}

/** An idempotent producer's last appended batch on one partition. */
export interface ProducerEntry {
  readonly producerEpoch: number;
  /** Sequence of the first and last record of the batch. */
  readonly baseSequence: number;
  readonly lastSequence: number;
  /** Records in the batch. */
  readonly count: number;
  /** When it was appended (ms): entries idle past PRODUCER_ENTRY_IDLE_MS are removed by maintenance. */
  readonly lastUpdated: number;
}

/**
 * One run of a partition's RecordBatches at [position, position + size) of an S3 object: a tail
 * entry with its base offset resolved, one of the entries a spilled SEG item lists, or a merged
 * segment. The unit a fetch reads.
 */
export interface ManifestRange {
  readonly baseOffset: number;
  readonly lastOffset: number;
  /** Records in the run (lastOffset - baseOffset + 1: runs are dense). */
  readonly count: number;
  readonly objectKey: string;
  readonly position: number;
  readonly size: number;
  /** Sibling OffsetIndex object (merged segments). Positions in it are relative to `position`. */
  readonly indexKey?: string;
  /** Sibling TimeIndex object (merged segments). */
  readonly timeIndexKey?: string;
  readonly minTimestamp: number;
  readonly maxTimestamp: number;
  /** When the batches were written (intake) or merged (ms). */
  readonly createdAt: number;
  /**
   * The batches lie in an intake object with offsets relative to the range (the first batch's base
   * is 0): a reader stamps the range's offsets on them (lib/log/batch-stamp.ts). Merged segments
   * hold their offsets already.
   */
  readonly intake?: boolean;
}

/**
 * `PART#<topic>#<topicId>#<partition>` / `SEG#<base20>`: a spilled part of the tail (`entries`
 * lists it, in offset order from `baseOffset`), or a merged segment (one range of its own object,
 * with indexes). The summary fields cover everything the item stands for.
 */
export interface SegmentItem extends ManifestRange {
  /** Spilled tail entries, as stored in STATE's tail. Absent on a merged segment. */
  readonly entries?: readonly string[];
  /** Leader epoch of the maintainer that merged it (0 for spilled items). */
  readonly epoch: number;
  /** How many items a merge replaced (merged segments only). */
  readonly mergedCount?: number;
}
