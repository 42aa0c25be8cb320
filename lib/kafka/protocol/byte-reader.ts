// A cursor over a request's bytes that never reads past its end: every read checks the bytes it
// needs are there and throws MalformedRequestError otherwise, so a truncated or lying frame
// becomes Kafka's error answer instead of a RangeError or a huge allocation.
import { MalformedRequestError } from './malformed-request.js';

export class ByteReader {
  private offset: number;
  private readonly end: number;

  constructor(
    readonly buffer: Buffer,
    start = 0,
    end = buffer.length,
  ) {
    this.offset = start;
    this.end = end;
  }

  get position(): number {
    return this.offset;
  }

  get remaining(): number {
    return this.end - this.offset;
  }

  private take(n: number, what: string): number {
    if (n < 0 || this.offset + n > this.end) {
      throw new MalformedRequestError(`${what}: needs ${n} bytes at ${this.offset}, ${this.remaining} left`);
    }
    const at = this.offset;
    this.offset += n;
    return at;
  }

  int8(): number {
    return this.buffer.readInt8(this.take(1, 'int8'));
  }

  int16(): number {
    return this.buffer.readInt16BE(this.take(2, 'int16'));
  }

  uint16(): number {
    return this.buffer.readUInt16BE(this.take(2, 'uint16'));
  }

  int32(): number {
    return this.buffer.readInt32BE(this.take(4, 'int32'));
  }

  uint32(): number {
    return this.buffer.readUInt32BE(this.take(4, 'uint32'));
  }

  int64(): bigint {
    return this.buffer.readBigInt64BE(this.take(8, 'int64'));
  }

  float64(): number {
    return this.buffer.readDoubleBE(this.take(8, 'float64'));
  }

  /** Kafka's unsigned varint (compact lengths, tag numbers and sizes): at most 5 bytes, 32 bits. */
  uvarint(): number {
    let value = 0;
    for (let shift = 0; shift <= 28; shift += 7) {
      const b = this.buffer[this.take(1, 'unsigned varint')]!;
      value += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) {
        if (value > 0xffffffff) throw new MalformedRequestError('unsigned varint exceeds 32 bits');
        return value;
      }
    }
    throw new MalformedRequestError('unsigned varint longer than 5 bytes');
  }

  /** `n` bytes as a view (no copy): record batches stay zero-copy slices of the frame. */
  bytes(n: number, what = 'bytes'): Buffer {
    const at = this.take(n, what);
    return this.buffer.subarray(at, at + n);
  }

  utf8(n: number): string {
    const at = this.take(n, 'string');
    return this.buffer.toString('utf8', at, at + n);
  }

  /** A reader over the next `n` bytes, which this reader skips. */
  sub(n: number, what: string): ByteReader {
    const at = this.take(n, what);
    return new ByteReader(this.buffer, at, at + n);
  }
}
