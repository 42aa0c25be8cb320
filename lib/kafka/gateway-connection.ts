// One client socket: frames in, requests dispatched as they arrive (pipelined requests run
// concurrently), responses written strictly in request order, as Kafka clients match them by
// order as much as by correlation id. At most MAX_IN_FLIGHT requests run at once per connection,
// and none is read while the client leaves written responses unread: the socket is paused, so a
// client cannot queue unbounded work or unbounded responses. A connection
// without a request for connections.max.idle.ms, and with none in flight, is closed (that also
// ends half-open connections whose peer vanished).
import type { Socket } from 'node:net';
import { logger } from '../observability/logger.js';
import type { KafkaConnection } from './connection.js';
import { FrameReader, FrameSizeError } from './frame-reader.js';
import type { GatewayMetrics } from './gateway-metrics.js';
import type { GatewaySettings } from './gateway-services.js';
import type { DispatchResult, RequestDispatcher } from './request-dispatcher.js';

const MAX_IN_FLIGHT = 64;

interface Slot {
  result?: DispatchResult;
}

let nextConnectionNumber = 0;

export class GatewayConnection implements KafkaConnection {
  readonly id: string;
  readonly remoteAddress: string;
  principal?: string;
  sessionExpiresAt?: number;
  saslMechanism?: string;

  private readonly closedController = new AbortController();
  private readonly frames: FrameReader;
  private readonly queue: Slot[] = [];
  private closing = false;
  private closed = false;
  private paused = false;
  private readonly lanes = new Map<string, Promise<unknown>>();

  constructor(
    private readonly socket: Socket,
    private readonly dispatcher: RequestDispatcher,
    private readonly metrics: GatewayMetrics,
    settings: GatewaySettings,
    private readonly onClosed: (connection: GatewayConnection) => void,
  ) {
    this.remoteAddress = socket.remoteAddress ?? 'unknown';
    this.id = `${this.remoteAddress}:${socket.remotePort ?? 0}#${++nextConnectionNumber}`;
    this.frames = new FrameReader(settings.socketRequestMaxBytes);
    metrics.connectionOpened();
    socket.setNoDelay(true);
    // TCP keepalive finds a vanished peer even while a request (a long poll) keeps the idle timer off.
    socket.setKeepAlive(true, 60_000);
    socket.setTimeout(settings.connectionsMaxIdleMs);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('timeout', () => this.onIdle(settings.connectionsMaxIdleMs));
    socket.on('error', (e) => logger.debug('kafka connection error', { connection: this.id, error: e }));
    socket.on('close', () => this.onClose());
    socket.on('drain', () => {
      if (!this.closing) this.readFrames();
    });
    logger.debug('kafka connection opened', { connection: this.id });
  }

  get signal(): AbortSignal {
    return this.closedController.signal;
  }

  /** Closes after the responses already queued are written. */
  close(): void {
    if (this.closing) return;
    this.closing = true;
    this.flush();
  }

  serially<T>(lane: string, task: () => Promise<T>): Promise<T> {
    const previous = this.lanes.get(lane) ?? Promise.resolve();
    const next = previous.then(task, task);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.lanes.set(lane, settled);
    void settled.then(() => {
      if (this.lanes.get(lane) === settled) this.lanes.delete(lane);
    });
    return next;
  }

  /** Closes at once, dropping whatever is queued (the gateway is shutting down). */
  destroy(): void {
    this.closing = true;
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    if (this.closing) return;
    this.frames.push(chunk);
    this.readFrames();
  }

  private readFrames(): void {
    // A client that does not read its responses stops having its requests read.
    while (!this.closing && this.queue.length < MAX_IN_FLIGHT && !this.socket.writableNeedDrain) {
      let payload: Buffer | undefined;
      try {
        payload = this.frames.next();
      } catch (e) {
        if (!(e instanceof FrameSizeError)) throw e;
        logger.warn('kafka frame refused, closing the connection', { connection: this.id, size: e.size, limit: e.limit });
        this.destroy();
        return;
      }
      if (!payload) break;
      const slot: Slot = {};
      this.queue.push(slot);
      this.dispatcher.dispatch(payload, this).then(
        (result) => {
          slot.result = result;
          this.flush();
        },
        (e: unknown) => {
          // dispatch answers every failure itself; reaching here is a bug in it.
          logger.error('kafka dispatch failed', { connection: this.id, error: e as Error });
          slot.result = { close: true, reason: 'dispatch failed' };
          this.flush();
        },
      );
    }
    const full = this.queue.length >= MAX_IN_FLIGHT || this.socket.writableNeedDrain;
    if (full && !this.paused) {
      this.paused = true;
      this.socket.pause();
    } else if (!full && this.paused) {
      this.paused = false;
      this.socket.resume();
    }
  }

  private flush(): void {
    if (this.closed) return;
    while (this.queue.length > 0 && this.queue[0]!.result) {
      const { frame, close, reason } = this.queue.shift()!.result!;
      if (frame) this.socket.write(frame);
      if (close) {
        // Requests after this one are not answered: their results land in dropped slots.
        logger.info('kafka connection closed by the gateway', { connection: this.id, reason });
        this.closing = true;
        this.queue.length = 0;
      }
    }
    if (this.closing) {
      if (this.queue.length === 0) this.socket.end();
      return;
    }
    // Frames held back while the queue was full.
    if (this.frames.bufferedBytes > 0 || this.paused) this.readFrames();
  }

  private onIdle(idleMs: number): void {
    if (this.queue.length > 0) return; // a long poll is running; the timer re-arms on the next activity
    logger.info('kafka connection idle, closing', { connection: this.id, idleMs });
    this.destroy();
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.closing = true;
    this.closedController.abort();
    this.metrics.connectionClosed();
    this.onClosed(this);
    logger.debug('kafka connection closed', { connection: this.id });
  }
}
