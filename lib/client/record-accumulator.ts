// The async producer's in-memory buffer (Kafka's RecordAccumulator + BufferPool in one). Records of
// all partitions of a topic wait in one queue, because one produce request carries every partition
// of a topic (README.md) — with S3 PUTs priced per request, fewer and fuller requests are the point.
// A topic's queue is sent when it reaches `batchSize` bytes; everything buffered is sent at most
// `lingerMs` after the first record arrived into an empty buffer, or at once on flush()/close().
// The buffer is bounded by `bufferMemory` bytes and `maxBufferedRecords` (queued plus in flight);
// when full, `block` makes append wait for space (FIFO), `drop` discards the newest records and
// reports them — the seed notes' two policies for a full async producer queue.
import { SluiceClientError } from './errors.js';
import type { Message } from './message.js';
import type { PendingRecord } from './batch-sender.js';

export type BufferFullPolicy = 'block' | 'drop';

export interface AccumulatorOptions {
  /** Longest a record waits for companions before its request goes. @default 10 */
  readonly lingerMs?: number;
  /** Most bytes (estimated) one request carries; a topic queue this full is sent at once. @default 1048576 */
  readonly batchSize?: number;
  /** Bytes of records buffered or in flight. @default 33554432 */
  readonly bufferMemory?: number;
  /** Records buffered or in flight. @default unlimited */
  readonly maxBufferedRecords?: number;
  /** @default 'block' */
  readonly bufferFullPolicy?: BufferFullPolicy;
  /** Receives the records the 'drop' policy discarded. */
  readonly onDrop?: (topic: string, messages: readonly Message[]) => void;
}

export interface AppendResult {
  readonly accepted: number;
  readonly dropped: readonly Message[];
}

interface Waiter {
  readonly size: number;
  readonly resolve: () => void;
}

export class RecordAccumulator {
  private readonly lingerMs: number;
  private readonly batchSize: number;
  private readonly bufferMemory: number;
  private readonly maxBufferedRecords: number;
  private readonly policy: BufferFullPolicy;
  private readonly queues = new Map<string, { records: PendingRecord[]; bytes: number }>();
  private readonly waiters: Waiter[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private usedBytes = 0;
  private usedRecords = 0;
  private lingerTimer?: NodeJS.Timeout;
  private closed = false;

  /** `send` must not reject: the producer reports failures through its own hooks. */
  constructor(
    private readonly options: AccumulatorOptions,
    private readonly send: (topic: string, records: PendingRecord[]) => Promise<void>,
  ) {
    this.lingerMs = options.lingerMs ?? 10;
    this.batchSize = options.batchSize ?? 1_048_576;
    this.bufferMemory = options.bufferMemory ?? 33_554_432;
    this.maxBufferedRecords = options.maxBufferedRecords ?? Number.POSITIVE_INFINITY;
    this.policy = options.bufferFullPolicy ?? 'block';
  }

  /** Records buffered or in flight, and their estimated bytes. */
  get buffered(): { records: number; bytes: number } {
    return { records: this.usedRecords, bytes: this.usedBytes };
  }

  /** Resolves once every record is buffered (or dropped); with 'block' that may wait for space. */
  async append(topic: string, records: readonly PendingRecord[]): Promise<AppendResult> {
    if (this.closed) throw new SluiceClientError('PRODUCER_CLOSED', 'the producer is closed');
    const tooLarge = records.find((r) => r.size > this.bufferMemory);
    if (tooLarge) {
      throw new SluiceClientError('MESSAGE_TOO_LARGE', `a ${tooLarge.size}-byte record exceeds bufferMemory (${this.bufferMemory} bytes)`);
    }
    let accepted = 0;
    for (let i = 0; i < records.length; i++) {
      const record = records[i];
      if (this.waiters.length > 0 || !this.fits(record.size)) {
        if (this.policy === 'drop') {
          const dropped = records.slice(i).map((r) => r.message);
          this.options.onDrop?.(topic, dropped);
          return { accepted, dropped };
        }
        // A full buffer means everything buffered is ready: don't let it sit out its linger.
        this.drainAll();
        await new Promise<void>((resolve) => {
          this.waiters.push({ size: record.size, resolve });
          this.wakeWaiters();
        });
      } else {
        this.reserve(record.size);
      }
      this.enqueue(topic, record);
      accepted++;
    }
    return { accepted, dropped: [] };
  }

  /** Sends everything buffered now and waits until every record (including blocked appends) is acknowledged or failed. */
  async flush(): Promise<void> {
    while (this.usedRecords > 0 || this.waiters.length > 0) {
      this.drainAll();
      if (this.inFlight.size > 0) await Promise.race(this.inFlight);
      else await new Promise((resolve) => setImmediate(resolve)); // a woken append is about to enqueue
    }
  }

  /** Refuses new records, then drains. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private fits(size: number): boolean {
    return this.usedBytes + size <= this.bufferMemory && this.usedRecords + 1 <= this.maxBufferedRecords;
  }

  private reserve(size: number): void {
    this.usedBytes += size;
    this.usedRecords += 1;
  }

  private release(bytes: number, count: number): void {
    this.usedBytes -= bytes;
    this.usedRecords -= count;
    this.wakeWaiters();
  }

  /** Space is handed over in arrival order, reserved before the waiter runs so no one can overtake it. */
  private wakeWaiters(): void {
    while (this.waiters.length > 0 && this.fits(this.waiters[0].size)) {
      const waiter = this.waiters.shift()!;
      this.reserve(waiter.size);
      waiter.resolve();
    }
  }

  private enqueue(topic: string, record: PendingRecord): void {
    let queue = this.queues.get(topic);
    if (!queue) this.queues.set(topic, (queue = { records: [], bytes: 0 }));
    queue.records.push(record);
    queue.bytes += record.size;
    if (queue.bytes >= this.batchSize) this.drainTopic(topic, true);
    if (this.queues.size > 0 && !this.lingerTimer) {
      this.lingerTimer = setTimeout(() => {
        this.lingerTimer = undefined;
        this.drainAll();
      }, this.lingerMs);
    }
  }

  private drainAll(): void {
    if (this.lingerTimer) clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    for (const topic of [...this.queues.keys()]) this.drainTopic(topic, false);
  }

  /** Cuts the queue into requests of at most `batchSize` bytes; with `fullOnly`, keeps a partial tail queued. */
  private drainTopic(topic: string, fullOnly: boolean): void {
    const queue = this.queues.get(topic);
    if (!queue) return;
    while (queue.records.length > 0 && (!fullOnly || queue.bytes >= this.batchSize)) {
      let bytes = 0;
      let n = 0;
      while (n < queue.records.length && (n === 0 || bytes + queue.records[n].size <= this.batchSize)) bytes += queue.records[n++].size;
      const chunk = queue.records.splice(0, n);
      queue.bytes -= bytes;
      this.dispatch(topic, chunk, bytes);
    }
    if (queue.records.length === 0) this.queues.delete(topic);
  }

  private dispatch(topic: string, records: PendingRecord[], bytes: number): void {
    const request: Promise<void> = this.send(topic, records).finally(() => {
      this.inFlight.delete(request);
      this.release(bytes, records.length);
    });
    this.inFlight.add(request);
  }
}
