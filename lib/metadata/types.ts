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
  /** The newest manifest entries, oldest first. */
  readonly tail: readonly ManifestEntry[];
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
 * One entry of STATE's tail (or of a spilled SEG item's `entries`): one append's run of batches for
 * one partition, encoded as a short string without its base offset (lib/log/manifest-entry.ts:
 * `encodeEntry` makes them, `decodeEntry` turns one into a ManifestRange once its base is known).
 * Stored as a plain string; the brand only keeps other strings out of the signatures that take one.
 */
export type ManifestEntry = string & { readonly __brand: 'ManifestEntry' };

/**
 * One run of a partition's RecordBatches at [position, position + size) of an S3 object: a tail
 * entry or spilled entry decoded at its base offset, or the bytes of a merged segment. The unit a
 * fetch reads. Never stored as such: a SEG item (SegmentItem) is not a range, rangesOf
 * (lib/log/manifest-entry.ts) gives the ranges it stands for.
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
   * True: the batches lie in an intake object with offsets relative to the range (the first
   * batch's base is 0), and a reader stamps the range's offsets on them (lib/log/batch-stamp.ts).
   * False: a merged segment, whose batches hold their offsets already.
   */
  readonly intake: boolean;
  /**
   * Written by the log cleaner (compacted topics): offsets of dropped records are gaps, so the
   * range may hold no batch at an offset it covers, or none at all. A reader goes on to the next range.
   */
  readonly cleaned?: boolean;
}

/** What every SEG item says about the offsets it stands for (the stored attributes both kinds share). */
interface SegmentItemSummary {
  readonly baseOffset: number;
  readonly lastOffset: number;
  /** Offsets it stands for (lastOffset - baseOffset + 1; a cleaned segment holds fewer records). */
  readonly count: number;
  /**
   * A merged segment's object; a spilled item's first entry's object. With `lastOffset`, what a
   * swap or delete is conditioned on (manifest.ts SeenItem).
   */
  readonly objectKey: string;
  /** A merged segment's position in its object (0); a spilled item's first entry's. */
  readonly position: number;
  /** Bytes it stands for (a spilled item: its entries' together, possibly in several objects). */
  readonly size: number;
  readonly minTimestamp: number;
  readonly maxTimestamp: number;
  /** When it was spilled (or its spill adopted) or merged, ms: merges wait a grace period from it. */
  readonly createdAt: number;
  /** Leader epoch of the maintainer that merged it (0 for spilled items). */
  readonly epoch: number;
}

/** A spilled part of STATE's tail: its entries, in offset order from `baseOffset`. */
export interface SpilledItem extends SegmentItemSummary {
  /** Spilled tail entries, as they were in STATE's tail. */
  readonly entries: readonly ManifestEntry[];
  readonly indexKey?: undefined;
  readonly timeIndexKey?: undefined;
  readonly mergedCount?: undefined;
  readonly cleanedThrough?: undefined;
  readonly deleteHorizonMs?: undefined;
}

/** A merged segment: one range of its own object ([position, position + size)), with indexes. */
export interface MergedSegmentItem extends SegmentItemSummary {
  readonly entries?: undefined;
  /** Sibling OffsetIndex object. Positions in it are relative to `position`. */
  readonly indexKey?: string;
  /** Sibling TimeIndex object. */
  readonly timeIndexKey?: string;
  /** How many items the merge (or the cleaning) replaced. */
  readonly mergedCount?: number;
  /**
   * Written by the log cleaner (lib/log/compaction/): the last offset of the key map it cleaned
   * this segment against (Kafka's cleaner checkpoint, per segment: offsets after the lowest
   * `cleanedThrough + 1` of a partition are dirty). Its records are not dense: dropped ones are gaps.
   */
  readonly cleanedThrough?: number;
  /** The earliest delete horizon of its batches holding tombstones (ms): a cleaning is due then. */
  readonly deleteHorizonMs?: number;
}

/**
 * `PART#<topic>#<topicId>#<partition>` / `SEG#<base20>`: the manifest below STATE's tail. A
 * spilled part of the tail (`entries` set), or a merged segment. The summary fields cover
 * everything the item stands for.
 */
export type SegmentItem = SpilledItem | MergedSegmentItem;
