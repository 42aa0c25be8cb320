// Splits a connection's bytes into Kafka frames: a 4-byte big-endian size, then that many
// bytes. Chunks are kept as they arrive and joined once per frame, so a large request arriving
// in many small chunks is copied once. A size below zero or above socket.request.max.bytes is
// refused before anything of it is buffered (Kafka's InvalidReceiveException closes the
// connection).
export class FrameSizeError extends Error {
  constructor(readonly size: number, readonly limit: number) {
    super(size < 0 ? `frame size ${size} is negative` : `frame size ${size} exceeds socket.request.max.bytes ${limit}`);
    this.name = 'FrameSizeError';
  }
}

export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly maxFrameBytes: number) {}

  get bufferedBytes(): number {
    return this.buffered;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
  }

  /** The next whole frame's payload, or undefined until it has arrived. @throws FrameSizeError */
  next(): Buffer | undefined {
    if (this.buffered < 4) return undefined;
    const size = this.peekSize();
    if (size < 0 || size > this.maxFrameBytes) throw new FrameSizeError(size, this.maxFrameBytes);
    if (this.buffered < 4 + size) return undefined;
    const frame = this.take(4 + size);
    return frame.subarray(4);
  }

  private peekSize(): number {
    const first = this.chunks[0]!;
    if (first.length >= 4) return first.readInt32BE(0);
    const joined = Buffer.concat(this.chunks);
    this.chunks = [joined];
    return joined.readInt32BE(0);
  }

  private take(n: number): Buffer {
    const first = this.chunks[0]!;
    let out: Buffer;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
    } else {
      out = Buffer.allocUnsafe(n);
      let filled = 0;
      while (filled < n) {
        const c = this.chunks[0]!;
        const use = Math.min(c.length, n - filled);
        c.copy(out, filled, 0, use);
        filled += use;
        if (use === c.length) this.chunks.shift();
        else this.chunks[0] = c.subarray(use);
      }
    }
    this.buffered -= n;
    return out;
  }
}
