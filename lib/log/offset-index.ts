// Kafka's OffsetIndex, byte for byte: a sparse array of 8-byte entries, each
//
//   relativeOffset int32 (offset - segment baseOffset) | position int32 (byte position of a batch)
//
// big-endian, in increasing offset order. An entry (lastOffset of a batch -> position where that
// batch starts) is added the way Kafka's LogSegment.append decides: when more than
// `index.interval.bytes` have been appended since the previous entry, checked *before* the batch's
// own bytes are counted. So a segment holding a single batch has no entries, and a merge writes an
// index object only when it has entries.
//
// Positions are relative to the merged segment's `position` in its object (see ManifestRange).

export const OFFSET_INDEX_ENTRY_SIZE = 8;

export interface OffsetIndexEntry {
  readonly offset: number;
  readonly position: number;
}

/** Accumulates index entries while batches are laid out one after another in a segment. */
export class OffsetIndexBuilder {
  private readonly entries: OffsetIndexEntry[] = [];
  private bytesSinceLastIndexEntry = 0;
  private position = 0;

  constructor(
    private readonly baseOffset: number,
    /** The topic's `index.interval.bytes`. */
    private readonly indexIntervalBytes: number,
  ) {}

  /** Records a batch appended at the current end of the segment. */
  append(batchLastOffset: number, sizeInBytes: number): void {
    if (this.bytesSinceLastIndexEntry > this.indexIntervalBytes) {
      this.entries.push({ offset: batchLastOffset, position: this.position });
      this.bytesSinceLastIndexEntry = 0;
    }
    this.position += sizeInBytes;
    this.bytesSinceLastIndexEntry += sizeInBytes;
  }

  get entryCount(): number {
    return this.entries.length;
  }

  toBuffer(): Buffer {
    return encodeOffsetIndex(this.baseOffset, this.entries);
  }
}

export function encodeOffsetIndex(baseOffset: number, entries: readonly OffsetIndexEntry[]): Buffer {
  const buf = Buffer.alloc(entries.length * OFFSET_INDEX_ENTRY_SIZE);
  entries.forEach((e, i) => {
    buf.writeInt32BE(e.offset - baseOffset, i * OFFSET_INDEX_ENTRY_SIZE);
    buf.writeInt32BE(e.position, i * OFFSET_INDEX_ENTRY_SIZE + 4);
  });
  return buf;
}

/**
 * Kafka's OffsetIndex.lookup: the largest entry whose offset is <= target, or (baseOffset, 0)
 * when there is none. Reading from that position reaches the batch holding `target`.
 */
export function lookupOffsetIndex(baseOffset: number, buf: Buffer, target: number): OffsetIndexEntry {
  let lo = 0;
  let hi = Math.floor(buf.length / OFFSET_INDEX_ENTRY_SIZE) - 1;
  let found: OffsetIndexEntry = { offset: baseOffset, position: 0 };
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const offset = baseOffset + buf.readInt32BE(mid * OFFSET_INDEX_ENTRY_SIZE);
    if (offset <= target) {
      found = { offset, position: buf.readInt32BE(mid * OFFSET_INDEX_ENTRY_SIZE + 4) };
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}
