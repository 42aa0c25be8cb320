// Produce batching across connections: a gateway collects the produce requests of ALL its
// connections for up to `linger` (default 25 ms) or `batch bytes` (default 8 MiB), whichever comes
// first, and writes them with ONE intake object and one conditional STATE update per partition
// (lib/log/append.ts writeIntake: appendRequests in its two steps), as WarpStream's agents do.
// Each request is answered after its own commit, exactly as if it had been written alone (a
// duplicate gets its original offsets, a sequence error is its own), so batching changes the
// cost, never an answer.
//
// Windows are committed one after another, never two at once: a window's commits start only once
// every commit of the window before has settled. Two windows committing together could land their
// updates to one partition in either order, and a connection's pipelined requests must be
// committed in the order they arrived (max.in.flight up to 5, as a Kafka broker keeps them): an
// idempotent producer's later batch would otherwise be refused OUT_OF_ORDER_SEQUENCE, a plain
// producer's stored before its predecessor. Only the intake object PUT, which makes nothing
// visible, overlaps: a window's PUT runs while the window before it commits, so a busy gateway
// does not wait for a PUT and a commit per window in turn. At most one window is written and not
// yet committing; meanwhile the next one fills (up to `batch bytes`).
import type { SluiceContext } from '../context.js';
import { SluiceError } from '../errors.js';
import { type AppendRequest, type PartitionAppendResult, type WrittenIntake, writeIntake } from '../log/append.js';
import type { TopicRef } from '../metadata/types.js';
import { logger } from '../observability/logger.js';

export interface ProduceBatcherOptions {
  /** How long a window collects requests after its first one. @default 25 */
  readonly lingerMs?: number;
  /** Bytes of batches at which a window is written at once. @default 8 MiB */
  readonly batchBytes?: number;
}

export const DEFAULT_LINGER_MS = 25;
export const DEFAULT_BATCH_BYTES = 8 * 1024 * 1024;

/** One window written: what it held and how long its write took. */
export interface ProduceWindow {
  /** Produce requests (one topic's part of a Kafka request each). */
  readonly requests: number;
  /** Distinct partitions appended to: one STATE update each (more only when one is refused). */
  readonly partitions: number;
  /** Bytes of the record batches: the intake object's size (records sent unencoded are estimated). */
  readonly bytes: number;
  readonly records: number;
  /** Milliseconds of the write: the intake object PUT and every partition's commit (not the wait for the previous window's commits). */
  readonly latencyMs: number;
}

/** What a batcher did, for metrics and the bench: sums over the windows written. */
export interface ProduceBatcherStats {
  /** Windows written: each is one intake object. */
  readonly windows: number;
  readonly requests: number;
  readonly partitions: number;
  readonly bytes: number;
  readonly records: number;
}

export type WindowListener = (window: ProduceWindow) => void;

/** Appended partitions, as (topic, partition, log end offset after the append). */
export type AppendListener = (topic: TopicRef, partition: number, logEndOffset: number) => void;

interface Pending {
  readonly requests: readonly AppendRequest[];
  readonly bytes: number;
  resolve(results: PartitionAppendResult[][]): void;
  reject(error: unknown): void;
}

const requestRecords = (requests: readonly AppendRequest[]) => {
  let n = 0;
  for (const r of requests) for (const a of r.appends) n += a.batch ? a.batch.count : a.records.length;
  return n;
};

const distinctPartitions = (requests: readonly AppendRequest[]) => {
  const seen = new Set<string>();
  for (const r of requests) for (const a of r.appends) seen.add(`${r.topic.id}/${a.partition}`);
  return seen.size;
};

const requestBytes = (requests: readonly AppendRequest[]) => {
  let n = 0;
  for (const r of requests) for (const a of r.appends) n += a.batch ? a.batch.bytes.length : a.records.reduce((m, rec) => m + (rec.value?.length ?? 0) + (rec.key?.length ?? 0) + 32, 0);
  return n;
};

export class ProduceBatcher {
  readonly lingerMs: number;
  readonly batchBytes: number;
  private window: Pending[] = [];
  private windowBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  /** The last window's PUT, its commits, and the commits of the window before it (never rejected). */
  private putting: Promise<unknown> = Promise.resolve();
  private committing: Promise<void> = Promise.resolve();
  private committingBefore: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly listeners = new Set<AppendListener>();
  private readonly windowListeners = new Set<WindowListener>();
  private counters = { windows: 0, requests: 0, partitions: 0, bytes: 0, records: 0 };

  constructor(
    private readonly ctx: SluiceContext,
    options: ProduceBatcherOptions = {},
  ) {
    this.lingerMs = options.lingerMs ?? DEFAULT_LINGER_MS;
    this.batchBytes = options.batchBytes ?? DEFAULT_BATCH_BYTES;
    if (!(this.lingerMs >= 0) || !(this.batchBytes > 0)) throw new RangeError(`bad produce batching settings: linger ${this.lingerMs} ms, batch bytes ${this.batchBytes}`);
  }

  get stats(): ProduceBatcherStats {
    return { ...this.counters };
  }

  /** Called after each window's commits with every partition it appended to (fetch long-polls wake on it). */
  onAppended(listener: AppendListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called after each window's commits with what it held (the gateway's metrics). */
  onWindowWritten(listener: WindowListener): () => void {
    this.windowListeners.add(listener);
    return () => this.windowListeners.delete(listener);
  }

  /**
   * Appends the requests (one Kafka produce request's topics) in the current window; resolves with
   * each request's results, in the order of its appends, once the window is committed.
   */
  append(requests: readonly AppendRequest[]): Promise<PartitionAppendResult[][]> {
    if (this.closed) return Promise.reject(new SluiceError('REQUEST_TIMED_OUT', 'the gateway is shutting down; send the request again'));
    if (requests.length === 0) return Promise.resolve([]);
    const bytes = requestBytes(requests);
    return new Promise((resolve, reject) => {
      // A request that would push the window past batch bytes starts the next one.
      if (this.window.length > 0 && this.windowBytes + bytes > this.batchBytes) this.closeWindow();
      this.window.push({ requests, bytes, resolve, reject });
      this.windowBytes += bytes;
      if (this.windowBytes >= this.batchBytes || this.lingerMs === 0) this.closeWindow();
      else this.timer ??= setTimeout(() => this.closeWindow(), this.lingerMs);
    });
  }

  /** Writes what is collected now and refuses anything later; resolves once every window is written. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.window.length > 0) this.closeWindow();
    await this.committing;
  }

  /**
   * Ends the current window: its PUT follows the previous window's PUT once the window before that
   * has committed; its commits follow the previous window's commits.
   */
  private closeWindow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const window = this.window;
    this.window = [];
    this.windowBytes = 0;
    if (window.length === 0) return;
    const put = Promise.all([this.putting, this.committingBefore]).then(() => this.put(window));
    const committed = Promise.all([this.committing, put])
      .then(([, written]) => this.commit(window, written))
      .catch((e: unknown) => logger.error('kafka produce window: a listener failed after its commits', { error: e as Error }));
    this.putting = put;
    this.committingBefore = this.committing;
    this.committing = committed;
  }

  /** The window's intake object; undefined when it failed (its requests are rejected). */
  private async put(window: readonly Pending[]): Promise<{ intake: WrittenIntake; putMs: number } | undefined> {
    const started = performance.now();
    try {
      const intake = await writeIntake(this.ctx, window.flatMap((p) => p.requests), { withLogStartOffset: true });
      return { intake, putMs: performance.now() - started };
    } catch (e) {
      for (const p of window) p.reject(e);
      return undefined;
    }
  }

  private async commit(window: readonly Pending[], written: { intake: WrittenIntake; putMs: number } | undefined): Promise<void> {
    if (!written) return;
    const requests = window.flatMap((p) => p.requests);
    const started = performance.now();
    let results: PartitionAppendResult[][];
    try {
      results = await written.intake.commit();
    } catch (e) {
      for (const p of window) p.reject(e);
      return;
    }
    const stats: ProduceWindow = {
      requests: requests.length,
      partitions: distinctPartitions(requests),
      bytes: window.reduce((n, p) => n + p.bytes, 0),
      records: requestRecords(requests),
      latencyMs: written.putMs + performance.now() - started,
    };
    this.counters.windows++;
    this.counters.requests += stats.requests;
    this.counters.partitions += stats.partitions;
    this.counters.bytes += stats.bytes;
    this.counters.records += stats.records;
    let at = 0;
    for (const p of window) {
      p.resolve(results.slice(at, at + p.requests.length));
      at += p.requests.length;
    }
    requests.forEach((request, i) => {
      for (const r of results[i]) if (!('error' in r) && !r.duplicate) for (const l of this.listeners) l(request.topic, r.partition, r.baseOffset + r.count);
    });
    for (const l of this.windowListeners) l(stats);
  }
}
