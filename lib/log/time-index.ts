// Kafka's TimeIndex, byte for byte: a sparse array of 12-byte entries, each
//
//   timestamp int64 (largest timestamp seen so far in the segment) | relativeOffset int32
//
// big-endian, where relativeOffset is (offset - segment baseOffset) of the batch that first
// reached that timestamp (its last offset: Kafka's "shallow" offset of the max timestamp in v2).
// Timestamps strictly increase from entry to entry. Entries are added the way Kafka's
// LogSegment.append adds them: at the same moments as OffsetIndex entries (more than
// `index.interval.bytes` appended since the previous entry, checked before the batch's own bytes
// count) and only when the timestamp grew; when the segment is closed (Kafka's
// onBecomeInactiveSegment) a last entry records the segment's largest timestamp.
//
// Lookup (Kafka's offsetsForTimes): the entry with the largest timestamp <= target gives an
// offset; every batch before that offset's batch has a smaller max timestamp, so scanning from
// the OffsetIndex position of that offset finds the first record with timestamp >= target.

export const TIME_INDEX_ENTRY_SIZE = 12;

export interface TimeIndexEntry {
  readonly timestamp: number;
  readonly offset: number;
}

/** Accumulates time-index entries while batches are laid out one after another in a segment. */
export class TimeIndexBuilder {
  private readonly entries: TimeIndexEntry[] = [];
  private bytesSinceLastIndexEntry = 0;
  private maxTimestampSoFar = -1;
  private offsetOfMaxTimestampSoFar = -1;

  constructor(
    private readonly baseOffset: number,
    private readonly indexIntervalBytes: number,
  ) {}

  /** Records a batch appended at the current end of the segment. */
  append(batchLastOffset: number, batchMaxTimestamp: number, sizeInBytes: number): void {
    if (batchMaxTimestamp > this.maxTimestampSoFar) {
      this.maxTimestampSoFar = batchMaxTimestamp;
      this.offsetOfMaxTimestampSoFar = batchLastOffset;
    }
    if (this.bytesSinceLastIndexEntry > this.indexIntervalBytes) {
      this.maybeAppend(this.maxTimestampSoFar, this.offsetOfMaxTimestampSoFar);
      this.bytesSinceLastIndexEntry = 0;
    }
    this.bytesSinceLastIndexEntry += sizeInBytes;
  }

  /** Closes the segment: the final entry for its largest timestamp (if it grew since the last entry). */
  finish(): void {
    if (this.offsetOfMaxTimestampSoFar >= 0) this.maybeAppend(this.maxTimestampSoFar, this.offsetOfMaxTimestampSoFar);
  }

  get entryCount(): number {
    return this.entries.length;
  }

  toBuffer(): Buffer {
    return encodeTimeIndex(this.baseOffset, this.entries);
  }

  private maybeAppend(timestamp: number, offset: number): void {
    const last = this.entries[this.entries.length - 1];
    if (!last || timestamp > last.timestamp) this.entries.push({ timestamp, offset });
  }
}

export function encodeTimeIndex(baseOffset: number, entries: readonly TimeIndexEntry[]): Buffer {
  const buf = Buffer.alloc(entries.length * TIME_INDEX_ENTRY_SIZE);
  entries.forEach((e, i) => {
    buf.writeBigInt64BE(BigInt(e.timestamp), i * TIME_INDEX_ENTRY_SIZE);
    buf.writeInt32BE(e.offset - baseOffset, i * TIME_INDEX_ENTRY_SIZE + 8);
  });
  return buf;
}

/**
 * Kafka's TimeIndex.lookup: the entry with the largest timestamp <= target, or
 * (-1, baseOffset) when there is none (scan from the segment's start).
 */
export function lookupTimeIndex(baseOffset: number, buf: Buffer, target: number): TimeIndexEntry {
  let lo = 0;
  let hi = Math.floor(buf.length / TIME_INDEX_ENTRY_SIZE) - 1;
  let found: TimeIndexEntry = { timestamp: -1, offset: baseOffset };
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const timestamp = Number(buf.readBigInt64BE(mid * TIME_INDEX_ENTRY_SIZE));
    if (timestamp <= target) {
      found = { timestamp, offset: baseOffset + buf.readInt32BE(mid * TIME_INDEX_ENTRY_SIZE + 8) };
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}
