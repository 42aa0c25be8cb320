// The consumer (kafkajs-shaped): subscribe() + run({eachMessage | eachBatch}) in a group, or
// assign() partitions without one. Each assigned partition runs its own long-poll fetch loop
// (partition-fetcher.ts); positions advance as handlers return; commits carry the member id and
// generation, so a zombie member's commit is refused (ILLEGAL_GENERATION). Group membership and
// rebalances live in group-session.ts. Delivery is at-least-once; with commits before every
// handover (which the session guarantees) no record is processed twice by a healthy group.
import { type ConsumedMessage, DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES } from './consumed-message.js';
import { GroupSession, type GroupSessionHost } from './group-session.js';
import { SluiceClientError, toClientError } from './errors.js';
import { PartitionFetcher, type FetchedMessages, type FetcherHost } from './partition-fetcher.js';
import { withRetry, type RetryOptions } from './retry.js';
import { fromTpKey, group, tpKey, type TopicPartition } from './topic-partitions.js';
import type { Assignor, SluiceApi, TopicPartitions, WireFormat } from './wire.js';

export type { ConsumedMessage } from './consumed-message.js';

export interface ConsumerOptions {
  /** Group to join (subscribe) or to commit for (assign). Without it nothing is committed. */
  readonly groupId?: string;
  /** Prefix of the member id the coordinator assigns ([a-zA-Z0-9._-]). @default 'consumer' */
  readonly clientId?: string;
  /** All members of a group use one. 'sticky' is cooperative: only moved partitions are revoked. @default 'range' */
  readonly assignor?: Assignor;
  /** @default 10000 */
  readonly sessionTimeoutMs?: number;
  /** @default 3000 */
  readonly heartbeatIntervalMs?: number;
  /** Long-poll wait of each fetch. @default 1000 */
  readonly maxWaitMs?: number;
  /** @default 1048576 */
  readonly maxBytes?: number;
  /**
   * How fetched records travel: the stored Kafka RecordBatches, decoded and CRC-checked here
   * ('batches', as Kafka consumers fetch), or the JSON contract ('json'). @default 'batches'
   */
  readonly wireFormat?: WireFormat;
  /**
   * Most bytes one fetched gzip batch may inflate to; a larger one fails with MESSAGE_TOO_LARGE
   * instead of being decompressed, so a hostile or broken log cannot exhaust this process's memory.
   * @default 8388608 (8 MiB: twice the largest max.message.bytes a topic may have)
   */
  readonly maxDecompressedBatchBytes?: number;
  /** Retries of join/commit/leave requests. */
  readonly retry?: RetryOptions;
  readonly onPartitionsAssigned?: (assigned: TopicPartitions[]) => void | Promise<void>;
  readonly onPartitionsRevoked?: (revoked: TopicPartitions[]) => void | Promise<void>;
  /** Non-fatal failures (fetch, heartbeat, commit, a throwing handler); the consumer keeps going. */
  readonly onError?: (error: SluiceClientError, where?: TopicPartition) => void;
}

export interface EachMessagePayload {
  readonly topic: string;
  readonly partition: number;
  readonly message: ConsumedMessage;
  heartbeat(): Promise<void>;
}

export interface Batch {
  readonly topic: string;
  readonly partition: number;
  readonly highWatermark: number;
  readonly messages: readonly ConsumedMessage[];
}

export interface EachBatchPayload {
  readonly batch: Batch;
  /** Marks `offset` processed: the position becomes offset + 1. */
  resolveOffset(offset: number): void;
  heartbeat(): Promise<void>;
  commitOffsetsIfNecessary(): Promise<void>;
  isRunning(): boolean;
  /** True once the partition was revoked, paused or seeked: stop and return. */
  isStale(): boolean;
}

export interface RunOptions {
  readonly eachMessage?: (payload: EachMessagePayload) => Promise<void>;
  readonly eachBatch?: (payload: EachBatchPayload) => Promise<void>;
  /** @default true */
  readonly autoCommit?: boolean;
  /** @default 5000 */
  readonly autoCommitInterval?: number;
  /** eachBatch: resolve the whole batch when the handler returns. @default true */
  readonly eachBatchAutoResolve?: boolean;
}

export class Consumer {
  private readonly options: ConsumerOptions;
  private subscription?: { topics: string[]; fromBeginning: boolean };
  private manual?: { partitions: TopicPartition[]; fromBeginning: boolean };
  private runOptions?: RunOptions;
  private session?: GroupSession;
  private readonly fetchers = new Map<string, PartitionFetcher>();
  private readonly positions = new Map<string, number>();
  private readonly committed = new Map<string, number>();
  private readonly seekVersions = new Map<string, number>();
  private readonly pausedPartitions = new Set<string>();
  private resumeWaiters: (() => void)[] = [];
  private autoCommitTimer?: NodeJS.Timeout;
  private commitTail: Promise<void> = Promise.resolve();
  private running = false;
  private readonly fetcherHost: FetcherHost;

  constructor(
    private readonly api: SluiceApi,
    options: ConsumerOptions = {},
  ) {
    this.options = options;
    this.fetcherHost = this.createFetcherHost();
  }

  async connect(): Promise<void> {}

  subscribe({ topics, topic, fromBeginning = false }: { topics?: readonly string[]; topic?: string; fromBeginning?: boolean }): void {
    const all = [...(topics ?? []), ...(topic ? [topic] : [])];
    if (all.length === 0) throw new SluiceClientError('INVALID_REQUEST', 'subscribe needs at least one topic');
    if (this.manual) throw new SluiceClientError('INVALID_REQUEST', 'a consumer either subscribes or assigns, not both');
    this.subscription = { topics: [...new Set([...(this.subscription?.topics ?? []), ...all])], fromBeginning };
  }

  /** Standalone consumption of given partitions, no group membership (commits, if any, are standalone). */
  assign(assignment: readonly TopicPartitions[], { fromBeginning = false }: { fromBeginning?: boolean } = {}): void {
    if (this.subscription) throw new SluiceClientError('INVALID_REQUEST', 'a consumer either subscribes or assigns, not both');
    this.manual = { partitions: assignment.flatMap((a) => a.partitions.map((partition) => ({ topic: a.topic, partition }))), fromBeginning };
  }

  /** Starts consuming in the background; resolves once the first assignment is running. */
  async run(options: RunOptions): Promise<void> {
    if (this.running) throw new SluiceClientError('INVALID_REQUEST', 'the consumer is already running');
    if (!options.eachMessage === !options.eachBatch) throw new SluiceClientError('INVALID_REQUEST', 'run needs exactly one of eachMessage or eachBatch');
    this.runOptions = options;
    this.running = true;
    if (this.subscription && this.options.groupId) {
      this.session = new GroupSession(this.createSessionHost(), this.options.groupId, this.subscription.topics);
      await this.session.start();
    } else if (this.subscription) {
      // No group: read every partition of the subscribed topics (console-consumer style).
      const described = await Promise.all(this.subscription.topics.map((t) => this.api.describeTopic(t)));
      await this.startPartitions(described.flatMap((d) => d.partitions.map((p) => ({ topic: d.name, partition: p.partition }))));
    } else if (this.manual) {
      await this.startPartitions(this.manual.partitions);
    } else {
      throw new SluiceClientError('INVALID_REQUEST', 'call subscribe() or assign() before run()');
    }
    if (this.options.groupId && options.autoCommit !== false) {
      this.autoCommitTimer = setInterval(() => void this.commitPositions().catch((e) => this.reportError(toClientError(e))), options.autoCommitInterval ?? 5000);
      this.autoCommitTimer.unref?.();
    }
  }

  /** Stops fetching, commits what was processed, leaves the group. */
  async disconnect(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    if (this.autoCommitTimer) clearInterval(this.autoCommitTimer);
    if (this.session) await this.session.stop();
    else {
      await this.stopPartitions([...this.fetchers.values()].map((f) => f.tp));
      await this.commitPositions().catch((e) => this.reportError(toClientError(e)));
    }
  }

  /** Commits explicit offsets (the next offset to read, Kafka's convention). */
  async commitOffsets(offsets: readonly { topic: string; partition: number; offset: number }[]): Promise<void> {
    if (!this.options.groupId) throw new SluiceClientError('INVALID_REQUEST', 'commitOffsets needs a groupId');
    await this.inTurn(() => this.commit(offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset }))));
  }

  /** Moves the position of an assigned partition; the next fetch starts there. */
  seek({ topic, partition, offset }: { topic: string; partition: number; offset: number }): void {
    const k = tpKey(topic, partition);
    this.positions.set(k, offset);
    this.seekVersions.set(k, (this.seekVersions.get(k) ?? 0) + 1);
  }

  pause(topics: readonly { topic: string; partitions?: readonly number[] }[]): void {
    for (const t of topics) for (const tp of this.matching(t)) this.pausedPartitions.add(tpKey(tp.topic, tp.partition));
  }

  resume(topics: readonly { topic: string; partitions?: readonly number[] }[]): void {
    for (const t of topics) for (const tp of this.matching(t)) this.pausedPartitions.delete(tpKey(tp.topic, tp.partition));
    const waiters = this.resumeWaiters;
    this.resumeWaiters = [];
    for (const w of waiters) w();
  }

  paused(): TopicPartitions[] {
    return group([...this.pausedPartitions].map(fromTpKey));
  }

  /** The partitions this consumer is currently fetching. */
  assignment(): TopicPartitions[] {
    return group([...this.fetchers.values()].map((f) => f.tp));
  }

  // ---- internals (the group session reaches them through createSessionHost) ------------------

  /** Starts fetch loops; positions come from committed offsets, else the reset policy. */
  private async startPartitions(tps: readonly TopicPartition[]): Promise<void> {
    if (this.options.groupId && tps.length > 0) {
      const { offsets } = await withRetry(() => this.api.fetchOffsets(this.options.groupId!), this.options.retry);
      for (const tp of tps) {
        const k = tpKey(tp.topic, tp.partition);
        const c = offsets.find((o) => o.topic === tp.topic && o.partition === tp.partition);
        // a committed offset wins over a stale position kept from an earlier assignment
        if (c && c.offset >= 0) {
          this.positions.set(k, c.offset);
          this.committed.set(k, c.offset);
        } else if (this.session) this.positions.delete(k);
      }
    }
    for (const tp of tps) {
      const k = tpKey(tp.topic, tp.partition);
      if (this.fetchers.has(k)) continue;
      const fetcher = new PartitionFetcher(this.fetcherHost, tp);
      this.fetchers.set(k, fetcher);
      fetcher.start();
    }
  }

  /** Stops fetch loops and waits for their handlers, so positions are final. */
  private async stopPartitions(tps: readonly TopicPartition[]): Promise<void> {
    const stopping = tps.map((tp) => this.fetchers.get(tpKey(tp.topic, tp.partition))).filter((f) => f !== undefined);
    for (const f of stopping) this.fetchers.delete(tpKey(f.tp.topic, f.tp.partition));
    await Promise.all(stopping.map((f) => f.stop()));
  }

  /** Commits processed positions that moved since the last commit (`only` limits the partitions). */
  private async commitPositions(only?: readonly TopicPartition[]): Promise<void> {
    if (!this.options.groupId) return;
    await this.inTurn(async () => {
      const scope = only ?? [...this.positions.keys()].map(fromTpKey);
      const offsets = scope
        .map((tp) => ({ ...tp, offset: this.positions.get(tpKey(tp.topic, tp.partition)) }))
        .filter((o): o is TopicPartition & { offset: number } => o.offset !== undefined && this.committed.get(tpKey(o.topic, o.partition)) !== o.offset);
      if (offsets.length > 0) await this.commit(offsets);
    });
  }

  private forgetPositions(tps: readonly TopicPartition[]): void {
    for (const tp of tps) this.positions.delete(tpKey(tp.topic, tp.partition));
  }

  private reportError(error: SluiceClientError, where?: TopicPartition): void {
    this.options.onError?.(error, where);
  }

  /**
   * Commits go one at a time, each reading positions when its turn comes: two in flight at once
   * could reach the server out of order, and an older auto-commit landing after the final commit of
   * a handover or disconnect would move the group's offset back (and the next owner re-read).
   */
  private inTurn(work: () => Promise<void>): Promise<void> {
    const run = this.commitTail.then(work);
    this.commitTail = run.catch(() => undefined);
    return run;
  }

  private async commit(offsets: readonly (TopicPartition & { offset: number })[]): Promise<void> {
    const member = this.session?.member();
    try {
      await withRetry(() => this.api.commitOffsets(this.options.groupId!, { ...member, offsets }), this.options.retry);
    } catch (e) {
      const error = toClientError(e);
      if (error.code === 'ILLEGAL_GENERATION' || error.code === 'UNKNOWN_MEMBER_ID') this.session?.requestRejoin(error.code === 'UNKNOWN_MEMBER_ID');
      throw error;
    }
    for (const o of offsets) this.committed.set(tpKey(o.topic, o.partition), o.offset);
  }

  private matching(t: { topic: string; partitions?: readonly number[] }): TopicPartition[] {
    if (t.partitions) return t.partitions.map((partition) => ({ topic: t.topic, partition }));
    return [...this.fetchers.values()].map((f) => f.tp).filter((tp) => tp.topic === t.topic);
  }

  private get fromBeginning(): boolean {
    return this.subscription?.fromBeginning ?? this.manual?.fromBeginning ?? false;
  }

  private createSessionHost(): GroupSessionHost {
    const { clientId, assignor, sessionTimeoutMs, heartbeatIntervalMs, retry } = this.options;
    return {
      api: this.api,
      clientId,
      assignor,
      sessionTimeoutMs,
      heartbeatIntervalMs,
      retry,
      startPartitions: (tps) => this.startPartitions(tps),
      stopPartitions: (tps) => this.stopPartitions(tps),
      commitPositions: (tps) => this.commitPositions(tps),
      forgetPositions: (tps) => this.forgetPositions(tps),
      reportError: (error) => this.reportError(error),
      onPartitionsAssigned: (assigned) => this.options.onPartitionsAssigned?.(assigned),
      onPartitionsRevoked: (revoked) => this.options.onPartitionsRevoked?.(revoked),
    };
  }

  private createFetcherHost(): FetcherHost {
    return {
      api: this.api,
      wireFormat: this.options.wireFormat ?? 'batches',
      maxWaitMs: this.options.maxWaitMs ?? 1000,
      maxBytes: this.options.maxBytes ?? 1_048_576,
      maxDecompressedBatchBytes: this.options.maxDecompressedBatchBytes ?? DEFAULT_MAX_DECOMPRESSED_BATCH_BYTES,
      position: async (tp) => {
        const k = tpKey(tp.topic, tp.partition);
        const known = this.positions.get(k);
        if (known !== undefined) return known;
        const { offset } = await this.api.listOffsets(tp.topic, tp.partition, this.fromBeginning ? 'earliest' : 'latest');
        if (!this.positions.has(k)) this.positions.set(k, offset);
        return this.positions.get(k)!;
      },
      seekVersion: (tp) => this.seekVersions.get(tpKey(tp.topic, tp.partition)) ?? 0,
      isPaused: (tp) => this.pausedPartitions.has(tpKey(tp.topic, tp.partition)),
      waitForResume: (tp, signal) =>
        new Promise<void>((resolve) => {
          if (!this.pausedPartitions.has(tpKey(tp.topic, tp.partition)) || signal.aborted) return resolve();
          this.resumeWaiters.push(resolve);
          signal.addEventListener('abort', () => resolve(), { once: true });
        }),
      resetOffset: async (tp, error) => {
        const details = error.details as { logStartOffset?: number; highWatermark?: number };
        const to = this.fromBeginning ? details.logStartOffset : details.highWatermark;
        const offset = to ?? (await this.api.listOffsets(tp.topic, tp.partition, this.fromBeginning ? 'earliest' : 'latest')).offset;
        this.positions.set(tpKey(tp.topic, tp.partition), offset);
      },
      process: (tp, reply, isStale) => this.process(tp, reply, isStale),
      onError: (tp, error) => this.reportError(error, tp),
    };
  }

  private async process(tp: TopicPartition, reply: FetchedMessages, isStale: () => boolean): Promise<void> {
    const k = tpKey(tp.topic, tp.partition);
    const options = this.runOptions!;
    const { messages } = reply;
    const heartbeat = async () => {
      await this.session?.heartbeatNow();
    };
    // A handler that seeks moves the position itself; advancing past the handled record would undo that.
    const version = this.seekVersions.get(k) ?? 0;
    const advance = (offset: number) => {
      if ((this.seekVersions.get(k) ?? 0) === version) this.positions.set(k, offset + 1);
    };
    if (options.eachMessage) {
      for (const message of messages) {
        if (isStale()) return;
        await options.eachMessage({ topic: tp.topic, partition: tp.partition, message, heartbeat });
        advance(message.offset);
      }
    } else {
      await options.eachBatch!({
        batch: { topic: tp.topic, partition: tp.partition, highWatermark: reply.highWatermark, messages },
        resolveOffset: advance,
        heartbeat,
        commitOffsetsIfNecessary: () => this.commitPositions([tp]),
        isRunning: () => this.running,
        isStale,
      });
      if (options.eachBatchAutoResolve === false) return;
      if (isStale()) return;
    }
    // An empty reply (or a trailing gap) still moves the position to the server's nextOffset.
    if (!isStale() && reply.nextOffset > (this.positions.get(k) ?? -1)) this.positions.set(k, reply.nextOffset);
  }
}
