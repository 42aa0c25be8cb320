// Accumulates a message's bytes: small values go into a scratch buffer, large byte strings
// (record batches) are kept as chunks and copied once, by toBuffer().
const SCRATCH_BYTES = 16 * 1024;
const CHUNK_AT_BYTES = 1024;

export class ByteWriter {
  private readonly chunks: Buffer[] = [];
  private scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
  private used = 0;
  private total = 0;

  get length(): number {
    return this.total;
  }

  private room(n: number): number {
    if (this.used + n > this.scratch.length) {
      this.flushScratch();
      if (n > this.scratch.length) this.scratch = Buffer.allocUnsafe(n);
    }
    const at = this.used;
    this.used += n;
    this.total += n;
    return at;
  }

  private flushScratch(): void {
    if (this.used > 0) {
      this.chunks.push(this.scratch.subarray(0, this.used));
      this.scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
      this.used = 0;
    }
  }

  int8(v: number): void {
    this.scratch.writeInt8(v, this.room(1));
  }

  int16(v: number): void {
    this.scratch.writeInt16BE(v, this.room(2));
  }

  uint16(v: number): void {
    this.scratch.writeUInt16BE(v, this.room(2));
  }

  int32(v: number): void {
    this.scratch.writeInt32BE(v, this.room(4));
  }

  uint32(v: number): void {
    this.scratch.writeUInt32BE(v, this.room(4));
  }

  int64(v: bigint): void {
    this.scratch.writeBigInt64BE(v, this.room(8));
  }

  float64(v: number): void {
    this.scratch.writeDoubleBE(v, this.room(8));
  }

  uvarint(v: number): void {
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new RangeError(`unsigned varint out of range: ${v}`);
    while (v >= 0x80) {
      this.scratch[this.room(1)] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    this.scratch[this.room(1)] = v;
  }

  bytes(b: Uint8Array): void {
    if (b.length >= CHUNK_AT_BYTES) {
      this.flushScratch();
      this.chunks.push(Buffer.from(b.buffer, b.byteOffset, b.length));
      this.total += b.length;
    } else {
      const at = this.room(b.length);
      this.scratch.set(b, at);
    }
  }

  utf8(s: string, byteLength: number): void {
    this.scratch.write(s, this.room(byteLength), byteLength, 'utf8');
  }

  toBuffer(): Buffer {
    this.flushScratch();
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.total);
  }
}
