// Fetch long-polls (Kafka's max.wait.ms / min.bytes): a fetch that found too little waits here until
// a partition it reads has records past its fetch offset, its wait runs out, or its connection
// closes. One waiter per gateway process serves every waiting fetch:
//
//   - wake-ups from this process's own appends (ProduceBatcher.onAppended) come at once;
//   - appends of other processes (other gateways, the HTTP API) are seen by polling the waiting
//     partitions' STATE: only logEndOffset, eventually consistent, 100 partitions per request
//     (partition-state.ts readLogEndOffsets), ONE request per tick for all the fetches due, each
//     fetch polled from `minPollMs` after it starts waiting, doubling to `maxPollMs` while nothing
//     arrives.
//
// It is bounded: at most `maxWaiters` fetches wait (a fetch past that is answered at once, as if its
// wait had run out), and a wait never outlasts its deadline or its AbortSignal.
import type { SluiceContext } from '../context.js';
import { partitionPk } from '../metadata/keys.js';
import { readLogEndOffsets } from '../metadata/partition-state.js';
import type { TopicRef } from '../metadata/types.js';
import { logger } from '../observability/logger.js';

export interface WatchedPartition {
  readonly topic: TopicRef;
  readonly partition: number;
  /** The offset the fetch reads next: it waits for the log end to pass it. */
  readonly offset: number;
}

export interface FetchWaiterOptions {
  /** First poll of a waiting fetch, after it starts waiting. @default 50 */
  readonly minPollMs?: number;
  /** Longest interval between polls of a waiting fetch. @default 500 */
  readonly maxPollMs?: number;
  /** Fetches waiting at once, at most. @default 10000 */
  readonly maxWaiters?: number;
}

interface Waiter {
  readonly partitions: readonly WatchedPartition[];
  readonly offsets: ReadonlyMap<string, number>;
  nextPollAt: number;
  intervalMs: number;
  done(arrived: boolean): void;
}

export class FetchWaiter {
  readonly minPollMs: number;
  readonly maxPollMs: number;
  readonly maxWaiters: number;
  private readonly waiters = new Set<Waiter>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  /** STATE polls made, for tests and metrics. */
  polls = 0;

  constructor(
    private readonly ctx: SluiceContext,
    options: FetchWaiterOptions = {},
  ) {
    this.minPollMs = options.minPollMs ?? 50;
    this.maxPollMs = Math.max(this.minPollMs, options.maxPollMs ?? 500);
    this.maxWaiters = options.maxWaiters ?? 10_000;
  }

  /** Fetches waiting now. */
  get waiting(): number {
    return this.waiters.size;
  }

  /**
   * Waits up to `waitMs` until the log end of one of `partitions` passes its offset. True when
   * records arrived (read again), false when the wait ran out, the signal aborted, or too many
   * fetches wait already.
   */
  wait(partitions: readonly WatchedPartition[], waitMs: number, signal?: AbortSignal): Promise<boolean> {
    if (partitions.length === 0 || waitMs <= 0 || signal?.aborted || this.waiters.size >= this.maxWaiters) return Promise.resolve(false);
    return new Promise((resolve) => {
      const deadline = setTimeout(() => waiter.done(false), waitMs);
      const onAbort = () => waiter.done(false);
      const waiter: Waiter = {
        partitions,
        offsets: new Map(partitions.map((p) => [partitionPk(p.topic, p.partition), p.offset])),
        nextPollAt: Date.now() + this.minPollMs,
        intervalMs: this.minPollMs,
        done: (arrived) => {
          if (!this.waiters.delete(waiter)) return;
          clearTimeout(deadline);
          signal?.removeEventListener('abort', onAbort);
          resolve(arrived);
          if (this.waiters.size === 0 && this.timer) {
            clearTimeout(this.timer);
            this.timer = undefined;
          }
        },
      };
      this.waiters.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.schedule();
    });
  }

  /** This process appended to a partition: fetches waiting on it below `logEndOffset` wake now. */
  appended(topic: TopicRef, partition: number, logEndOffset: number): void {
    if (this.waiters.size === 0) return;
    const pk = partitionPk(topic, partition);
    for (const w of [...this.waiters]) {
      const offset = w.offsets.get(pk);
      if (offset !== undefined && offset < logEndOffset) w.done(true);
    }
  }

  /** Ends every wait (the gateway is closing). */
  close(): void {
    for (const w of [...this.waiters]) w.done(false);
  }

  private schedule(): void {
    if (this.polling || this.waiters.size === 0) return;
    let next = Infinity;
    for (const w of this.waiters) next = Math.min(next, w.nextPollAt);
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.poll(), Math.max(0, next - Date.now()));
  }

  private async poll(): Promise<void> {
    this.timer = undefined;
    const now = Date.now();
    const due = [...this.waiters].filter((w) => w.nextPollAt <= now);
    if (due.length > 0) {
      this.polling = true;
      try {
        this.polls++;
        const ends = await readLogEndOffsets(this.ctx, due.flatMap((w) => w.partitions));
        // Every waiting fetch learns from the answer, due or not.
        for (const w of [...this.waiters]) {
          for (const [pk, offset] of w.offsets) {
            const end = ends.get(pk);
            if (end !== undefined && end > offset) {
              w.done(true);
              break;
            }
          }
        }
      } catch (e) {
        // A failed poll is a poll that saw nothing: the fetch answers at its deadline at worst.
        logger.warn('fetch long-poll: reading log end offsets failed', { error: e instanceof Error ? e.message : String(e) });
      } finally {
        this.polling = false;
      }
      const after = Date.now();
      for (const w of due) {
        w.intervalMs = Math.min(this.maxPollMs, w.intervalMs * 2);
        w.nextPollAt = after + w.intervalMs;
      }
    }
    this.schedule();
  }
}
