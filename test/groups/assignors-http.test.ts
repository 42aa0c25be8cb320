// The assignors' worked examples (Kafka's documentation and notes on it) reproduced over HTTP: the
// members join, heartbeat and rejoin until all have caught up with the latest generation, and then
// hold exactly what the pure assignor computes.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { createTestContext } from '../support/storage.js';
import { byClient, join, ok, settle, type Consumer } from './http-support.js';

let ctx: SluiceContext;

beforeAll(async () => {
  ctx = await createTestContext();
  const topics: [string, number][] = [['seed5', 5], ['s0', 3], ['s1', 3], ['t1', 3], ['t2', 4], ['t3', 2], ['k0', 1], ['k1', 2], ['k2', 3], ['two', 2], ['four', 4]];
  for (const [name, partitions] of topics) await ok(ctx, 'POST', '/v1/topics', { name, partitions });
});

async function group(name: string, assignor: string, members: [string, string[]][]): Promise<Consumer[]> {
  const consumers: Consumer[] = [];
  for (const [clientId, topics] of members) consumers.push(await join(ctx, name, clientId, topics, { assignor }));
  await settle(consumers);
  const described = await ok(ctx, 'GET', `/v1/groups/${name}`);
  expect(described.state).toBe('Stable');
  // What the members were told is what the coordinator stored.
  for (const c of consumers) expect(described.members.find((m: any) => m.memberId === c.memberId).assignment).toEqual(c.assignment);
  for (const c of consumers) expect(c.generation).toBe(described.generation);
  return consumers;
}

describe('range over HTTP', () => {
  it('seeds/001: 5 partitions over c0, c1 give c0 [p0,p1,p2] and c1 [p3,p4]', async () => {
    const cs = await group('range-seed-a', 'range', [['c0', ['seed5']], ['c1', ['seed5']]]);
    expect(byClient(cs)).toEqual({ c0: { seed5: [0, 1, 2] }, c1: { seed5: [3, 4] } });
  });

  it('seeds/001: two topics of 3 partitions give C0 t0p0 t0p1 t1p0 t1p1 and C1 t0p2 t1p2', async () => {
    const cs = await group('range-seed-b', 'range', [['C0', ['s0', 's1']], ['C1', ['s0', 's1']]]);
    expect(byClient(cs)).toEqual({ C0: { s0: [0, 1], s1: [0, 1] }, C1: { s0: [2], s1: [2] } });
  });

  it('more consumers than partitions: the extra consumer gets nothing', async () => {
    const cs = await group('range-many', 'range', [['a', ['two']], ['b', ['two']], ['c', ['two']]]);
    expect(byClient(cs)).toEqual({ a: { two: [0] }, b: { two: [1] }, c: {} });
  });

  it('members joining and leaving', async () => {
    const cs = await group('range-churn', 'range', [['a', ['four']], ['b', ['four']]]);
    expect(byClient(cs)).toEqual({ a: { four: [0, 1] }, b: { four: [2, 3] } });
    cs.push(await join(ctx, 'range-churn', 'c', ['four'], { assignor: 'range' }));
    await settle(cs);
    expect(byClient(cs)).toEqual({ a: { four: [0, 1] }, b: { four: [2] }, c: { four: [3] } });
    await ok(ctx, 'DELETE', `/v1/groups/range-churn/members/${cs[0].memberId}`);
    const rest = cs.slice(1);
    await settle(rest);
    expect(byClient(rest)).toEqual({ b: { four: [0, 1] }, c: { four: [2, 3] } });
  });
});

describe('roundrobin over HTTP', () => {
  it('seeds/001: c1 [t1,t3], c2 [t2,t3], c3 [t1], c4 [t2] are dealt in a circle skipping non-subscribers', async () => {
    const cs = await group('rr-seed', 'roundrobin', [['c1', ['t1', 't3']], ['c2', ['t2', 't3']], ['c3', ['t1']], ['c4', ['t2']]]);
    expect(byClient(cs)).toEqual({
      c1: { t1: [0, 2], t3: [0] },
      c2: { t2: [0, 2], t3: [1] },
      c3: { t1: [1] },
      c4: { t2: [1, 3] },
    });
  });

  it("Kafka's docs, identical subscriptions: C0 [t0p0, t0p2, t1p1], C1 [t0p1, t1p0, t1p2]", async () => {
    const cs = await group('rr-docs-same', 'roundrobin', [['C0', ['s0', 's1']], ['C1', ['s0', 's1']]]);
    expect(byClient(cs)).toEqual({ C0: { s0: [0, 2], s1: [1] }, C1: { s0: [1], s1: [0, 2] } });
  });

  it("Kafka's docs, mixed subscriptions: C0 [t0p0], C1 [t1p0], C2 [t1p1, t2p0, t2p1, t2p2]", async () => {
    const cs = await group('rr-docs-mixed', 'roundrobin', [['C0', ['k0']], ['C1', ['k0', 'k1']], ['C2', ['k0', 'k1', 'k2']]]);
    expect(byClient(cs)).toEqual({ C0: { k0: [0] }, C1: { k1: [0] }, C2: { k1: [1], k2: [0, 1, 2] } });
  });
});

describe('sticky over HTTP', () => {
  it('after a member leaves, every survivor keeps all the partitions it had', async () => {
    const cs = await group('sticky-leave', 'cooperative-sticky', [['a', ['t2', 't1']], ['b', ['t2', 't1']], ['c', ['t2', 't1']]]);
    const before = byClient(cs);
    await ok(ctx, 'DELETE', `/v1/groups/sticky-leave/members/${cs[1].memberId}`);
    const rest = [cs[0], cs[2]];
    await settle(rest);
    const after = byClient(rest);
    for (const client of ['a', 'c']) {
      for (const [topic, partitions] of Object.entries(before[client])) expect(after[client][topic]).toEqual(expect.arrayContaining(partitions));
    }
    const held = Object.values(after).flatMap((a) => Object.values(a).flat());
    expect(held.length).toBe(7);
  });
});
