// What one process remembers about the partitions it leads, and the per-partition locks that keep
// it from racing itself. The remembered view (epoch, log end, lease expiry, producer sequences) is
// exactly what this process last committed under its own epoch (its tail included), so while the lease is live the
// warm append path needs no read. Keyed by owner id as well as partition: every SluiceContext is a
// separate writer (tests run several "processes" in one Node process).
import type { SluiceContext } from '../context.js';
import type { PartitionState, ProducerBatchState } from '../metadata/types.js';

export interface LeaderView {
  readonly epoch: number;
  readonly nextOffset: number;
  readonly expiresAt: number;
  readonly producers: Readonly<Record<string, ProducerBatchState>>;
  /** STATE's tail as stored (partition-tail.ts): the next commit rewrites it whole. */
  readonly tail: readonly string[];
}

/** The view of a STATE item read or returned by a lease acquisition. */
export function leaderViewOf(state: PartitionState): LeaderView {
  return {
    epoch: state.epoch,
    nextOffset: state.nextOffset,
    expiresAt: state.expiresAt,
    producers: state.producers ?? {},
    tail: state.tail ?? [],
  };
}

/** A Lambda container serves few partitions; the bound only guards a long-lived local server. */
const MAX_LEADER_VIEWS = 10_000;
const views = new Map<string, LeaderView>();
const queues = new Map<string, Promise<void>>();

export function leaderKey(ctx: SluiceContext, topic: string, partition: number): string {
  return [ctx.ownerId, ctx.table, topic, partition].join('\u0000');
}

/** The remembered view while its lease is live by the local clock, else undefined. */
export function liveLeaderView(ctx: SluiceContext, key: string): LeaderView | undefined {
  const view = views.get(key);
  return view && view.expiresAt > ctx.now() ? view : undefined;
}

export function rememberLeaderView(key: string, view: LeaderView): void {
  views.delete(key);
  views.set(key, view);
  if (views.size > MAX_LEADER_VIEWS) views.delete(views.keys().next().value as string);
}

/** Forget the view: the next append re-acquires the lease, which also takes a new epoch. */
export function forgetLeaderView(key: string): void {
  views.delete(key);
}

/** Forget every view of one partition held by writers in this process (its data was deleted). */
export function forgetPartition(ctx: SluiceContext, topic: string, partition: number): void {
  const suffix = ['', ctx.table, topic, partition].join('\u0000');
  for (const key of views.keys()) if (key.endsWith(suffix)) views.delete(key);
}

/**
 * Takes the in-process lock of every key, waiting behind earlier holders, and returns the function
 * that releases them all. A produce request holds the locks of all its partitions for its whole
 * append; taking them one at a time in one fixed (sorted) order means two requests sharing
 * partitions can never each hold a lock the other waits for.
 */
export async function lockPartitions(keys: readonly string[]): Promise<() => void> {
  const releases: (() => void)[] = [];
  for (const key of [...new Set(keys)].sort()) releases.push(await lockOne(key));
  return () => {
    for (const release of releases) release();
  };
}

async function lockOne(key: string): Promise<() => void> {
  const previous = queues.get(key) ?? Promise.resolve();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const tail = previous.then(() => held);
  queues.set(key, tail);
  await previous;
  return () => {
    release();
    if (queues.get(key) === tail) queues.delete(key);
  };
}
