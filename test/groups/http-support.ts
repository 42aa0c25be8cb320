// Helpers for driving the group API over handleHttp, the way clients use it.
import { expect } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { handleHttp } from '../../lib/api/router.js';

export interface Reply {
  status: number;
  body: any;
}

export async function http(ctx: SluiceContext, method: string, path: string, body?: unknown): Promise<Reply> {
  const [p, q] = path.split('?');
  const query = Object.fromEntries(new URLSearchParams(q ?? ''));
  const res = await handleHttp(ctx, { method, path: p, query, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: res.body ? JSON.parse(res.body) : undefined };
}

export async function ok(ctx: SluiceContext, method: string, path: string, body?: unknown): Promise<any> {
  const res = await http(ctx, method, path, body);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
}

export interface Consumer {
  ctx: SluiceContext;
  group: string;
  memberId: string;
  generation: number;
  topics: string[];
  assignor?: string;
  sessionTimeoutMs?: number;
  assignment: { topic: string; partitions: number[] }[];
}

export async function join(
  ctx: SluiceContext,
  group: string,
  clientId: string,
  topics: string[],
  options: { assignor?: string; sessionTimeoutMs?: number } = {},
): Promise<Consumer> {
  const body = await ok(ctx, 'POST', `/v1/groups/${group}/members`, { clientId, topics, ...options });
  return { ctx, group, topics, ...options, memberId: body.memberId, generation: body.generation, assignment: body.assignment };
}

/** Heartbeats; on `rebalance: true` joins again with its id (as a client does). Returns whether it rebalanced. */
export async function beat(c: Consumer): Promise<boolean> {
  const hb = await ok(c.ctx, 'POST', `/v1/groups/${c.group}/members/${c.memberId}/heartbeat`, { generation: c.generation });
  if (!hb.rebalance) return false;
  const body = await ok(c.ctx, 'POST', `/v1/groups/${c.group}/members`, {
    memberId: c.memberId,
    topics: c.topics,
    ...(c.assignor ? { assignor: c.assignor } : {}),
    ...(c.sessionTimeoutMs ? { sessionTimeoutMs: c.sessionTimeoutMs } : {}),
  });
  c.generation = body.generation;
  c.assignment = body.assignment;
  return true;
}

/** Until every member has caught up with the latest generation. */
export async function settle(consumers: Consumer[]): Promise<void> {
  for (let round = 0; round < 30; round++) {
    let rebalanced = false;
    for (const c of consumers) rebalanced = (await beat(c)) || rebalanced;
    if (!rebalanced) return;
  }
  throw new Error('group did not settle');
}

/** clientId → assignment as `{topic: partitions}`, from the consumers' own view. */
export function byClient(consumers: Consumer[]): Record<string, Record<string, number[]>> {
  return Object.fromEntries(
    consumers.map((c) => [c.memberId.replace(/-[0-9a-f-]{36}$/, ''), Object.fromEntries(c.assignment.map((a) => [a.topic, a.partitions]))]),
  );
}
