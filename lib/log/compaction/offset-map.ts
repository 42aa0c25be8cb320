// The cleaner's key → newest offset map, as Kafka's SkimpyOffsetMap keeps it: one fixed buffer of
// slots, each a 16-byte MD5 digest of a key and the 8-byte offset of its newest record, found by
// open addressing (linear probing from the digest). Memory is the buffer and nothing else, whatever
// the keys' sizes, so `log.cleaner.dedupe.buffer.size` (here the maintenance option
// `dedupeBufferBytes`) bounds it; the map takes at most `loadFactor` of its slots
// (`log.cleaner.io.buffer.load.factor`, 0.9) so probes stay short. Two keys with one digest are
// one key to the map, as in Kafka (MD5 over keys, a collision chance of about 2^-128 per pair).
import { createHash } from 'node:crypto';

const DIGEST_BYTES = 16;
/** Bytes per slot: the digest and the offset (stored + 1, so an all-zero slot is empty). */
export const OFFSET_MAP_SLOT_BYTES = DIGEST_BYTES + 8;
export const DEFAULT_LOAD_FACTOR = 0.9;
const TWO_32 = 0x1_0000_0000;

export class OffsetMap {
  private readonly slots: number;
  private readonly buf: Buffer;
  private entries = 0;
  /** Most keys the map holds. */
  readonly capacity: number;

  /** A map in `memoryBytes` (at least two slots), or only as many slots as `expectedKeys` need when fewer. */
  constructor(memoryBytes: number, expectedKeys = Infinity, loadFactor = DEFAULT_LOAD_FACTOR) {
    const budgetSlots = Math.max(2, Math.floor(memoryBytes / OFFSET_MAP_SLOT_BYTES));
    const wanted = Number.isFinite(expectedKeys) ? Math.ceil(Math.max(1, expectedKeys) / loadFactor) + 1 : budgetSlots;
    this.slots = Math.max(2, Math.min(budgetSlots, wanted));
    this.buf = Buffer.alloc(this.slots * OFFSET_MAP_SLOT_BYTES);
    // One slot always stays empty: a probe for a new key ends there.
    this.capacity = Math.max(1, Math.min(this.slots - 1, Math.floor(this.slots * loadFactor)));
  }

  /** Keys held. */
  get size(): number {
    return this.entries;
  }

  /** Bytes the map holds in memory. */
  get memoryBytes(): number {
    return this.buf.length;
  }

  /**
   * Records `offset` as the newest of `key` (offsets come in increasing order, so a later put wins).
   * False, changing nothing, when the key is new and the map is full.
   */
  put(key: Buffer, offset: number): boolean {
    const digest = digestOf(key);
    const at = this.find(digest);
    if (this.isEmpty(at)) {
      if (this.entries >= this.capacity) return false;
      digest.copy(this.buf, at);
      this.entries++;
    }
    this.writeOffset(at, offset);
    return true;
  }

  /** The newest offset recorded for `key`, or -1. */
  get(key: Buffer): number {
    const at = this.find(digestOf(key));
    return this.isEmpty(at) ? -1 : this.readOffset(at);
  }

  /** Byte position of the digest's slot, or of the empty slot where it would go. */
  private find(digest: Buffer): number {
    let slot = digest.readUInt32BE(0) % this.slots;
    for (let probe = 0; probe < this.slots; probe++) {
      const at = slot * OFFSET_MAP_SLOT_BYTES;
      if (this.isEmpty(at) || this.buf.compare(digest, 0, DIGEST_BYTES, at, at + DIGEST_BYTES) === 0) return at;
      slot = slot + 1 === this.slots ? 0 : slot + 1;
    }
    throw new Error('offset map has no empty slot');
  }

  private isEmpty(at: number): boolean {
    return this.buf.readUInt32BE(at + DIGEST_BYTES) === 0 && this.buf.readUInt32BE(at + DIGEST_BYTES + 4) === 0;
  }

  private writeOffset(at: number, offset: number): void {
    const stored = offset + 1;
    this.buf.writeUInt32BE(Math.floor(stored / TWO_32), at + DIGEST_BYTES);
    this.buf.writeUInt32BE(stored % TWO_32, at + DIGEST_BYTES + 4);
  }

  private readOffset(at: number): number {
    return this.buf.readUInt32BE(at + DIGEST_BYTES) * TWO_32 + this.buf.readUInt32BE(at + DIGEST_BYTES + 4) - 1;
  }
}

function digestOf(key: Buffer): Buffer {
  return createHash('md5').update(key).digest();
}
