// A consumer's membership of its group: join, background heartbeats, rebalances, leave.
//
// The coordinator (lib/groups/rebalance.ts) never hands a partition to a new owner before its
// previous owner acknowledges a generation without it, and the acknowledgement is a heartbeat
// carrying that generation. So after every join this session, in order: stops the fetch loops of
// the revoked partitions (waiting for their handlers), commits their final positions, calls
// onPartitionsRevoked, and only then heartbeats — that heartbeat releases the partitions. The new
// owner therefore starts exactly at the committed position: nothing is lost or read twice.
// With the cooperative `sticky` assignor only moved partitions are revoked; with `range` and
// `roundrobin` (eager) everything is revoked and assigned afresh, as Kafka's eager protocol does.
import type { Consumer } from './consumer.js';
import { toClientError } from './errors.js';
import { Heartbeat } from './heartbeat.js';
import { planRebalance } from './rebalance.js';
import { withRetry } from './retry.js';
import { flatten, group, minus, type TopicPartition } from './topic-partitions.js';
import type { Assignor } from './wire.js';

export class GroupSession {
  private memberId?: string;
  private generation?: number;
  private owned: TopicPartition[] = [];
  private readonly heartbeat: Heartbeat;
  private readonly assignor: Assignor;
  private chain: Promise<void> = Promise.resolve();
  private rejoinQueued = false;
  private memberLost = false;
  private rebalancing = false;
  private stopped = false;

  constructor(
    private readonly consumer: Consumer,
    readonly groupId: string,
    private readonly topics: readonly string[],
  ) {
    this.assignor = consumer.options.assignor ?? 'range';
    this.heartbeat = new Heartbeat(
      consumer.api,
      {
        group: groupId,
        memberId: () => this.memberId,
        generation: () => (this.rebalancing ? undefined : this.generation),
        onRebalance: (memberLost) => this.requestRejoin(memberLost),
        onError: (error) => consumer.reportError(error),
      },
      consumer.options.heartbeatIntervalMs ?? 3000,
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
        this.consumer.reportError(toClientError(e));
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
    await this.chain.catch(() => undefined);
    await this.consumer.stopPartitions(this.owned);
    if (this.memberId === undefined) return;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.consumer.commitPositions(this.owned);
        break;
      } catch (e) {
        const error = toClientError(e);
        if (error.code !== 'ILLEGAL_GENERATION' || attempt >= 5) {
          this.consumer.reportError(error);
          break;
        }
        // The group moved on while we were stopping: join for the current generation, then commit.
        await this.join().catch(() => undefined);
      }
    }
    await withRetry(() => this.consumer.api.leaveGroup(this.groupId, this.memberId!), this.consumer.options.retry).catch((e) =>
      this.consumer.reportError(toClientError(e)),
    );
    const revoked = this.owned;
    this.owned = [];
    this.memberId = undefined;
    if (revoked.length > 0) await this.consumer.options.onPartitionsRevoked?.(group(revoked));
  }

  private async join() {
    const reply = await withRetry(
      () =>
        this.consumer.api.joinGroup(this.groupId, {
          memberId: this.memberId,
          clientId: this.consumer.options.clientId,
          topics: this.topics,
          assignor: this.assignor,
          sessionTimeoutMs: this.consumer.options.sessionTimeoutMs,
        }),
      this.consumer.options.retry,
    );
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
        await this.revoke(this.owned);
        this.memberId = undefined;
      }
      // Revoked partitions must be committed under the current generation before we acknowledge;
      // if the group moves on meanwhile (ILLEGAL_GENERATION), join again and commit under the new one.
      let uncommitted: TopicPartition[] = [];
      let assigned: TopicPartition[] = [];
      for (let attempt = 0; ; attempt++) {
        const reply = await this.joinOrRejoinAsNew();
        const next = flatten(reply.assignment);
        const plan = planRebalance(this.owned, next, this.assignor);
        await this.consumer.stopPartitions(plan.revoked);
        uncommitted = [...uncommitted, ...plan.revoked];
        this.owned = minus(next, plan.assigned);
        assigned = plan.assigned;
        try {
          await this.consumer.commitPositions(uncommitted);
        } catch (e) {
          const error = toClientError(e);
          if (error.code === 'ILLEGAL_GENERATION' && attempt < 5) continue;
          this.consumer.reportError(error);
        }
        break;
      }
      if (uncommitted.length > 0) {
        this.consumer.forgetPositions(uncommitted);
        await this.consumer.options.onPartitionsRevoked?.(group(uncommitted));
      }
      this.owned = [...this.owned, ...assigned];
      this.rebalancing = false;
      await this.heartbeat.beat(); // acknowledges this generation: releases what we revoked
      if (assigned.length > 0) {
        await this.consumer.startPartitions(assigned);
        await this.consumer.options.onPartitionsAssigned?.(group(assigned));
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
      await this.revoke(this.owned);
      this.memberId = undefined;
      return this.join();
    }
  }

  /** Drops partitions without committing (our membership is gone; a commit would be refused). */
  private async revoke(tps: readonly TopicPartition[]): Promise<void> {
    if (tps.length === 0) return;
    await this.consumer.stopPartitions(tps);
    this.consumer.forgetPositions(tps);
    this.owned = minus(this.owned, tps);
    await this.consumer.options.onPartitionsRevoked?.(group(tps));
  }
}
