// Background heartbeats of a group member. Every `intervalMs` the member tells the coordinator it
// is alive; the reply (or a fencing error: UNKNOWN_MEMBER_ID after a missed session,
// ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS) says the group is rebalancing and the member must
// join again. Transient failures are retried on the next tick; the session timeout is the
// coordinator's to enforce.
import { toClientError, type SluiceClientError } from './errors.js';
import type { SluiceApi } from './wire.js';

const REJOIN_CODES = new Set(['UNKNOWN_MEMBER_ID', 'ILLEGAL_GENERATION', 'REBALANCE_IN_PROGRESS']);

export interface HeartbeatTarget {
  readonly group: string;
  memberId(): string | undefined;
  generation(): number | undefined;
  /** The coordinator asked for a rejoin (`memberLost`: our membership is gone, join as new). */
  onRebalance(memberLost: boolean): void;
  onError(error: SluiceClientError): void;
}

export class Heartbeat {
  private timer?: NodeJS.Timeout;
  private beating = false;

  constructor(
    private readonly api: SluiceApi,
    private readonly target: HeartbeatTarget,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.beat(), this.intervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One heartbeat now; overlapping ticks are skipped. */
  async beat(): Promise<void> {
    const memberId = this.target.memberId();
    const generation = this.target.generation();
    if (this.beating || memberId === undefined || generation === undefined) return;
    this.beating = true;
    try {
      const reply = await this.api.heartbeat(this.target.group, memberId, generation);
      if (reply.rebalance || reply.generation !== generation) this.target.onRebalance(false);
    } catch (e) {
      const error = toClientError(e);
      if (REJOIN_CODES.has(error.code)) this.target.onRebalance(error.code === 'UNKNOWN_MEMBER_ID');
      else this.target.onError(error);
    } finally {
      this.beating = false;
    }
  }
}
