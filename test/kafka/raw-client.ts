// A bare TCP client for the gateway's tests: sends any bytes, reads whole response frames, and
// tells when the gateway closed the connection. Requests are built with our own codec.
import { connect, type Socket } from 'node:net';
import { encodeMessage } from '../../lib/kafka/protocol/codec.js';
import { encodeRequestHeader } from '../../lib/kafka/protocol/headers.js';
import { API_SCHEMAS } from '../../lib/kafka/protocol/messages.js';

export class RawClient {
  private buffered = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  /** Resolves when the gateway closes (or resets) the connection. */
  readonly closed: Promise<void>;
  private isClosed = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.wake();
    });
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.isClosed = true;
        this.wake();
        resolve();
      }),
    );
  }

  static async connect(port: number): Promise<RawClient> {
    const socket = connect({ host: '127.0.0.1', port });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new RawClient(socket);
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  get closedNow(): boolean {
    return this.isClosed;
  }

  /** Bytes received and not yet read as frames. */
  get pendingBytes(): number {
    return this.buffered.length;
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** The next response frame's payload (without its size), or undefined if the connection closes first. */
  async readFrame(timeoutMs = 10_000): Promise<Buffer | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.buffered.length >= 4) {
        const size = this.buffered.readInt32BE(0);
        if (this.buffered.length >= 4 + size) {
          const frame = this.buffered.subarray(4, 4 + size);
          this.buffered = this.buffered.subarray(4 + size);
          return frame;
        }
      }
      if (this.isClosed) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no response frame within ${timeoutMs} ms (${this.buffered.length} bytes buffered)`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

/** A request frame (size included) of `apiKey` at `version`, encoded from `body`. */
export function requestFrame(apiKey: number, version: number, correlationId: number, body: object, clientId: string | null = 'raw'): Buffer {
  const header = encodeRequestHeader({ requestApiKey: apiKey, requestApiVersion: version, correlationId, clientId });
  const schema = API_SCHEMAS.get(apiKey)!.request;
  return sizedFrame(encodeMessage(schema, version, body, header).toBuffer());
}

/** `payload` with its 4-byte size in front. */
export function sizedFrame(payload: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeInt32BE(payload.length);
  return Buffer.concat([size, payload]);
}
