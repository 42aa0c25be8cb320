// Stored shapes of the metadata items (see keys.ts for where each lives).

/** `PART#<topic>#<partition>` / `STATE`: the partition's log end, log start and leader lease. */
export interface PartitionState {
  readonly topic: string;
  readonly partition: number;
  /** Log end offset = high watermark: a record is visible only below it. */
  readonly nextOffset: number;
  readonly logStartOffset: number;
  /** Lease holder (a process-start id); absent when never leased. */
  readonly owner?: string;
  /** Leader epoch; +1 on every change of owner. Fences stale writers. */
  readonly epoch: number;
  /** Lease expiry, ms since epoch. */
  readonly expiresAt: number;
  /** Committed bytes, and SEG items + tail ranges, below nextOffset and at/after logStartOffset (for describe). */
  readonly bytes: number;
  readonly segments: number;
  /** Idempotent producers: last appended batch per producer id (as a string key). */
  readonly producers?: Readonly<Record<string, ProducerBatchState>>;
  /**
   * The manifest's newest entries: the ranges of the latest committed appends not yet in a SEG
   * item, in offset order, each encoded as lib/log/segment-range.ts describes. Written only by
   * the leader's commit (lib/log/partition-tail.ts), so one write per append makes it visible.
   */
  readonly tail?: readonly string[];
}

export interface ProducerBatchState {
  readonly producerEpoch: number;
  /** Sequence of the first and last record of the last batch appended by this producer. */
  readonly baseSequence: number;
  readonly lastSequence: number;
  /** Offsets that batch received, to acknowledge a retry with the original offsets. */
  readonly baseOffset: number;
  readonly count: number;
  readonly lastUpdated: number;
}

/** `PART#<topic>#<partition>` / `SEG#<base20>`: one run of RecordBatches in an S3 object. */
export interface SegmentItem {
  readonly baseOffset: number;
  readonly lastOffset: number;
  /** Records in the run (lastOffset - baseOffset + 1 for a dense run). */
  readonly count: number;
  /** The `.log` object and the byte range [position, position + size) holding this partition's batches. */
  readonly objectKey: string;
  readonly position: number;
  readonly size: number;
  /** Sibling OffsetIndex object, when the run has index entries. Positions in it are relative to `position`. */
  readonly indexKey?: string;
  /** Sibling TimeIndex object (compacted segments). */
  readonly timeIndexKey?: string;
  readonly minTimestamp: number;
  readonly maxTimestamp: number;
  /** Leader epoch of the writer. */
  readonly epoch: number;
  readonly createdAt: number;
  /**
   * A spilled tail (lib/log/partition-tail.ts): the ranges, encoded as in STATE's tail, this item
   * stands for, each in its own object. The fields above then summarize them: objectKey and
   * position are the first range's, size is their sum, epoch is the spilling leader's (at least
   * every range's).
   */
  readonly ranges?: readonly string[];
}
