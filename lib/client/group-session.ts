// A consumer's membership of its group: join, background heartbeats, rebalances, leave.
//
// The coordinator (lib/groups/rebalance.ts) never hands a partition to a new owner before its
// previous owner acknowledges a generation without it, and the acknowledgement is a heartbeat
// carrying that generation. So after every join this session, in order: stops the fetch loops of
// the revoked partitions (waiting for their handlers), commits their final positions, calls
// onPartitionsRevoked, and only then heartbeats — that heartbeat releases the partitions. The new
// owner therefore starts exactly at the committed position: nothing is lost or read twice.
// A final commit that fails (other than for a stale generation, which is retried under the next
// one) withholds that heartbeat: the revoked partitions stay `releasing`, the member heartbeats
// only with the generation it last acknowledged (which keeps its session alive and releases
// nothing more), and the rejoin is retried until the commit lands or the session ends (leave,
// expiry). So a partition is never released with an uncommitted position while its member lives.
// With the cooperative `sticky` assignor only moved partitions are revoked; with `range` and
// `roundrobin` (eager) everything is revoked and assigned afresh, as Kafka's eager protocol does.
import { toClientError, type SluiceClientError } from './errors.js';
import { Heartbeat } from './heartbeat.js';
import { planRebalance } from './rebalance.js';
import { withRetry, type RetryOptions } from './retry.js';
import { flatten, group, minus, type TopicPartition } from './topic-partitions.js';
import type { Assignor, SluiceApi, TopicPartitions } from './wire.js';

/** What a session needs from its consumer (the consumer's own methods stay private). */
export interface GroupSessionHost {
  readonly api: SluiceApi;
  readonly clientId?: string;
  readonly assignor?: Assignor;
  readonly sessionTimeoutMs?: number;
  readonly heartbeatIntervalMs?: number;
  readonly retry?: RetryOptions;
  /** Starts fetch loops; positions come from committed offsets, else the reset policy. */
  startPartitions(tps: readonly TopicPartition[]): Promise<void>;
  /** Stops fetch loops and waits for their handlers, so positions are final. */
  stopPartitions(tps: readonly TopicPartition[]): Promise<void>;
  /** Commits the processed positions of `tps` under the session's member id and generation. */
  commitPositions(tps: readonly TopicPartition[]): Promise<void>;
  forgetPositions(tps: readonly TopicPartition[]): void;
  reportError(error: SluiceClientError): void;
  onPartitionsAssigned?(assigned: TopicPartitions[]): void | Promise<void>;
  onPartitionsRevoked?(revoked: TopicPartitions[]): void | Promise<void>;
}

export class GroupSession {
  private memberId?: string;
  /** Generation of the latest join: commits carry it. */
  private generation?: number;
  /** Generation this member may acknowledge by heartbeat: every partition it gave up by then is committed. */
  private acked?: number;
  private owned: TopicPartition[] = [];
  /** Revoked partitions whose final position is not committed yet: not released until it is. */
  private releasing: TopicPartition[] = [];
  private readonly heartbeat: Heartbeat;
  private readonly assignor: Assignor;
  private chain: Promise<void> = Promise.resolve();
  private rejoinQueued = false;
  private memberLost = false;
  private rebalancing = false;
  private stopped = false;

  constructor(
    private readonly host: GroupSessionHost,
    readonly groupId: string,
    private readonly topics: readonly string[],
  ) {
    this.assignor = host.assignor ?? 'range';
    this.heartbeat = new Heartbeat(
      host.api,
      {
        group: groupId,
        memberId: () => this.memberId,
        generation: () => (this.rebalancing ? undefined : this.acked),
        onRebalance: (memberLost) => this.requestRejoin(memberLost),
        onError: (error) => host.reportError(error),
      },
      host.heartbeatIntervalMs ?? 3000,
    );
  }

  /** Member id and generation for commits (empty before the first join). */
  member(): { memberId?: string; generation?: number } {
    return this.memberId === undefined ? {} : { memberId: this.memberId, generation: this.generation };
  }

  async start(): Promise<void> {
    this.requestRejoin(false);
    await this.chain;
    this.heartbeat.start();
  }

  requestRejoin(memberLost: boolean): void {
    if (memberLost) this.memberLost = true;
    if (this.rejoinQueued || this.stopped) return;
    this.rejoinQueued = true;
    this.chain = this.chain
      .then(() => this.rejoin())
      .catch((e) => {
        this.host.reportError(toClientError(e));
        // try again on the next heartbeat tick rather than spinning
        setTimeout(() => this.requestRejoin(false), 1000).unref?.();
      });
  }

  async heartbeatNow(): Promise<void> {
    await this.heartbeat.beat();
  }

  /** Stops consuming, commits, leaves (the group hands our partitions over at once). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.heartbeat.stop();
    await this.chain; // never rejects: rejoin failures are reported where they happen
    await this.host.stopPartitions(this.owned);
    const mine = [...this.releasing, ...this.owned];
    if (this.memberId === undefined) return this.dropAll();
    for (let attempt = 0; ; attempt++) {
      try {
        await this.host.commitPositions(mine);
        break;
      } catch (e) {
        const error = toClientError(e);
        // Leaving ends the session: the partitions go to the next owner from the last committed
        // position, so what was processed since is read again (at least once). Say so.
        if (error.code !== 'ILLEGAL_GENERATION' || attempt >= 5) {
          this.host.reportError(error);
          break;
        }
        // The group moved on while we were stopping: join for the current generation, then commit.
        try {
          await this.join();
        } catch (joinError) {
          this.host.reportError(toClientError(joinError));
          break;
        }
      }
    }
    await withRetry(() => this.host.api.leaveGroup(this.groupId, this.memberId!), this.host.retry).catch((e) =>
      this.host.reportError(toClientError(e)),
    );
    await this.dropAll();
  }

  private async join() {
    const reply = await withRetry(
      () =>
        this.host.api.joinGroup(this.groupId, {
          memberId: this.memberId,
          clientId: this.host.clientId,
          topics: this.topics,
          assignor: this.assignor,
          sessionTimeoutMs: this.host.sessionTimeoutMs,
        }),
      this.host.retry,
    );
    if (reply.memberId !== this.memberId) this.acked = undefined;
    this.memberId = reply.memberId;
    this.generation = reply.generation;
    return reply;
  }

  private async rejoin(): Promise<void> {
    this.rejoinQueued = false;
    if (this.stopped) return;
    this.rebalancing = true;
    try {
      if (this.memberLost) {
        // Our session expired: the partitions already belong to others, so stop without committing.
        this.memberLost = false;
        await this.dropAll();
      }
      // Revoked partitions must be committed under the current generation before we acknowledge;
      // if the group moves on meanwhile (ILLEGAL_GENERATION), join again and commit under the new one.
      let assigned: TopicPartition[] = [];
      for (let attempt = 0; ; attempt++) {
        const reply = await this.joinOrRejoinAsNew();
        const next = flatten(reply.assignment);
        const plan = planRebalance(this.owned, next, this.assignor);
        await this.host.stopPartitions(plan.revoked);
        this.releasing = [...this.releasing, ...plan.revoked];
        this.owned = minus(next, plan.assigned);
        assigned = plan.assigned;
        try {
          if (this.releasing.length > 0) await this.host.commitPositions(this.releasing);
          break;
        } catch (e) {
          const error = toClientError(e);
          if (error.code === 'ILLEGAL_GENERATION' && attempt < 5) continue;
          if (error.code === 'UNKNOWN_MEMBER_ID') {
            // Our membership is gone: the coordinator handed everything over already.
            await this.dropAll();
            this.requestRejoin(true);
            return;
          }
          // Not acknowledged: the partitions stay withheld from their next owner while we live,
          // and the next rejoin (a heartbeat's, or requestRejoin's retry) commits them again.
          throw error;
        }
      }
      const released = this.releasing;
      if (released.length > 0) {
        this.releasing = [];
        this.host.forgetPositions(released);
        await this.host.onPartitionsRevoked?.(group(released));
      }
      this.owned = [...this.owned, ...assigned];
      this.acked = this.generation;
      this.rebalancing = false;
      await this.heartbeat.beat(); // acknowledges this generation: releases what we revoked
      if (assigned.length > 0) {
        await this.host.startPartitions(assigned);
        await this.host.onPartitionsAssigned?.(group(assigned));
      }
    } finally {
      this.rebalancing = false;
    }
  }

  private async joinOrRejoinAsNew() {
    try {
      return await this.join();
    } catch (e) {
      if (toClientError(e).code !== 'UNKNOWN_MEMBER_ID') throw e;
      await this.dropAll();
      return this.join();
    }
  }

  /**
   * Drops every partition without committing (our membership is gone, so a commit would be
   * refused, or we left): fetchers stopped, positions forgotten, onPartitionsRevoked called.
   */
  private async dropAll(): Promise<void> {
    const tps = [...this.releasing, ...this.owned];
    this.memberId = undefined;
    this.acked = undefined;
    this.releasing = [];
    this.owned = [];
    if (tps.length === 0) return;
    await this.host.stopPartitions(tps);
    this.host.forgetPositions(tps);
    await this.host.onPartitionsRevoked?.(group(tps));
  }
}
