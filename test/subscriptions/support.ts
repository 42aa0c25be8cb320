// Shared helpers of the subscription tests: a topic with records in it.
import type { SluiceContext } from '../../lib/context.js';
import { appendToPartitions } from '../../lib/log/append.js';
import type { TopicRef } from '../../lib/metadata/types.js';

/** Appends `values` to one partition in one batch, with keys `k<i>` unless given, at `timestamp`. */
export async function appendValues(ctx: SluiceContext, topic: TopicRef, partition: number, values: readonly string[], timestamp = ctx.now(), keys?: readonly (string | null)[]): Promise<number> {
  const [result] = await appendToPartitions(ctx, topic, [
    {
      partition,
      records: values.map((v, i) => ({ timestamp, key: keys ? (keys[i] === null ? null : Buffer.from(keys[i]!)) : Buffer.from(`k${i}`), value: Buffer.from(v) })),
    },
  ]);
  if ('error' in result) throw result.error;
  return result.baseOffset;
}

/** One request a TargetServer received. */
export interface ReceivedBatch {
  readonly subscription: string;
  readonly partition: number;
  readonly offsets: number[];
  readonly values: string[];
  readonly keys: (string | null)[];
  readonly signature: string | undefined;
  readonly body: string;
  readonly startedAt: number;
  endedAt: number;
  status: number;
}

export type TargetReply = { status: number; body?: unknown; delayMs?: number };

/**
 * A local HTTP endpoint standing in for a subscriber's service: it records every batch (with its
 * signature header and timing), answers with `reply` (200 by default), and tracks how many
 * requests per partition were in flight at once.
 */
export class TargetServer {
  readonly received: ReceivedBatch[] = [];
  reply: (batch: ReceivedBatch) => TargetReply | Promise<TargetReply> = () => ({ status: 200 });
  /** Most requests of one partition in flight at the same time, per subscription-partition. */
  readonly maxInFlight = new Map<string, number>();
  private readonly inFlight = new Map<string, number>();

  private constructor(
    private readonly server: import('node:http').Server,
    readonly url: string,
  ) {}

  static async start(): Promise<TargetServer> {
    const { createServer } = await import('node:http');
    let target!: TargetServer;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => void target.handle(req, Buffer.concat(chunks).toString(), res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address() as import('node:net').AddressInfo;
    target = new TargetServer(server, `http://127.0.0.1:${address.port}/hook`);
    return target;
  }

  private async handle(req: import('node:http').IncomingMessage, body: string, res: import('node:http').ServerResponse): Promise<void> {
    const event = JSON.parse(body) as { subscription: string; records: Record<string, { partition: number; offset: number; key?: string; value?: string }[]> };
    const records = Object.values(event.records).flat();
    const batch: ReceivedBatch = {
      subscription: event.subscription,
      partition: records[0].partition,
      offsets: records.map((r) => r.offset),
      values: records.map((r) => (r.value === undefined ? '' : Buffer.from(r.value, 'base64').toString())),
      keys: records.map((r) => (r.key === undefined ? null : Buffer.from(r.key, 'base64').toString())),
      signature: req.headers['sluice-signature'] as string | undefined,
      body,
      startedAt: Date.now(),
      endedAt: 0,
      status: 0,
    };
    const key = `${batch.subscription}#${batch.partition}`;
    const now = (this.inFlight.get(key) ?? 0) + 1;
    this.inFlight.set(key, now);
    this.maxInFlight.set(key, Math.max(this.maxInFlight.get(key) ?? 0, now));
    this.received.push(batch);
    try {
      const reply = await this.reply(batch);
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      batch.status = reply.status;
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
    } finally {
      batch.endedAt = Date.now();
      this.inFlight.set(key, this.inFlight.get(key)! - 1);
    }
  }

  /** Batches of one subscription that the server answered with a 2xx, in arrival order. */
  accepted(subscription: string): ReceivedBatch[] {
    return this.received.filter((b) => b.subscription === subscription && b.status >= 200 && b.status < 300);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Waits until `check` holds, polling; fails with `what` after `timeoutMs`. */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
