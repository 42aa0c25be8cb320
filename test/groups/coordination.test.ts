// The coordinator under concurrency and silence: twenty members joining at once through twenty
// separate contexts (as twenty Lambda processes would) end in one generation with every partition
// assigned exactly once; a member that stops heartbeating is expired and its partitions move.
import { describe, expect, it } from 'vitest';
import { createContext, type SluiceContext } from '../../lib/context.js';
import { createTestContext, emulatorClients } from '../support/storage.js';
import { http, join, ok, settle, type Consumer } from './http-support.js';

function partitionsOf(consumers: Consumer[]): string[] {
  return consumers.flatMap((c) => c.assignment.flatMap((a) => a.partitions.map((p) => `${a.topic}-${p}`))).sort();
}

describe('group coordination', () => {
  for (const assignor of ['range', 'sticky'] as const) {
    it(`ends 20 concurrent joins in one generation with every partition assigned once (${assignor})`, async () => {
      const base = await createTestContext();
      await ok(base, 'POST', '/v1/topics', { name: 'busy', partitions: 30 });
      const contexts: SluiceContext[] = Array.from({ length: 20 }, () => createContext(emulatorClients(), { table: base.table, bucket: base.bucket }));
      const consumers = await Promise.all(contexts.map((ctx, i) => join(ctx, 'crowd', `c${String(i).padStart(2, '0')}`, ['busy'], { assignor })));
      expect(new Set(consumers.map((c) => c.memberId)).size).toBe(20);

      const joined = await ok(base, 'GET', '/v1/groups/crowd');
      expect(joined.members).toHaveLength(20);
      // Every join was its own generation on top of the previous one: none lost, none forked.
      expect(joined.generation).toBe(20);

      await settle(consumers);
      const described = await ok(base, 'GET', '/v1/groups/crowd');
      expect(described.state).toBe('Stable');
      expect(new Set(consumers.map((c) => c.generation))).toEqual(new Set([described.generation]));
      expect(partitionsOf(consumers)).toEqual(Array.from({ length: 30 }, (_, p) => `busy-${p}`).sort());
      for (const c of consumers) expect(c.assignment[0].partitions.length).toBeGreaterThanOrEqual(1);
    });
  }

  it('loses no member and forks no generation when joins and leaves race', async () => {
    const base = await createTestContext();
    await ok(base, 'POST', '/v1/topics', { name: 'racy', partitions: 8 });
    const ctxs = () => createContext(emulatorClients(), { table: base.table, bucket: base.bucket });
    const first = await Promise.all(Array.from({ length: 8 }, (_, i) => join(ctxs(), 'race', `old${i}`, ['racy'])));
    const leaving = first.slice(0, 4);
    const [, joined] = await Promise.all([
      Promise.all(leaving.map((c) => ok(ctxs(), 'DELETE', `/v1/groups/race/members/${c.memberId}`))),
      Promise.all(Array.from({ length: 4 }, (_, i) => join(ctxs(), 'race', `new${i}`, ['racy']))),
    ]);
    const described = await ok(base, 'GET', '/v1/groups/race');
    const expected = [...first.slice(4), ...joined].map((c) => c.memberId).sort();
    expect(described.members.map((m: any) => m.memberId)).toEqual(expected);
    expect(described.generation).toBe(16); // 8 joins, then 4 leaves and 4 joins: one generation each
    const survivors = [...first.slice(4), ...joined];
    await settle(survivors);
    expect(partitionsOf(survivors)).toEqual(Array.from({ length: 8 }, (_, p) => `racy-${p}`).sort());
  });

  it('expires a member that stops heartbeating and reassigns its partitions', async () => {
    const base = await createTestContext();
    let clock = Date.now();
    const ctx: SluiceContext = { ...base, now: () => clock };
    await ok(ctx, 'POST', '/v1/topics', { name: 'quiet', partitions: 4 });
    const steady = await join(ctx, 'sleepy', 'a', ['quiet'], { sessionTimeoutMs: 10_000 });
    const silent = await join(ctx, 'sleepy', 'b', ['quiet'], { sessionTimeoutMs: 1_000 });
    await settle([steady, silent]);
    expect(partitionsOf([silent])).toEqual(['quiet-2', 'quiet-3']);

    clock += 600;
    await settle([steady]); // only `steady` heartbeats from here on
    expect((await ok(ctx, 'GET', '/v1/groups/sleepy')).members).toHaveLength(2); // b is within its session

    clock += 600; // b's last heartbeat is now 1200 ms old
    await settle([steady]);
    expect(partitionsOf([steady])).toEqual(['quiet-0', 'quiet-1', 'quiet-2', 'quiet-3']);
    const described = await ok(ctx, 'GET', '/v1/groups/sleepy');
    expect(described.members.map((m: any) => m.memberId)).toEqual([steady.memberId]);
    expect(described.state).toBe('Stable');
    const late = await http(ctx, 'POST', `/v1/groups/sleepy/members/${silent.memberId}/heartbeat`, { generation: silent.generation });
    expect(late.body.error.code).toBe('UNKNOWN_MEMBER_ID');
    const lateCommit = await http(ctx, 'POST', '/v1/groups/sleepy/offsets', {
      memberId: silent.memberId,
      generation: silent.generation,
      offsets: [{ topic: 'quiet', partition: 2, offset: 1 }],
    });
    expect(lateCommit.body.error.code).toBe('UNKNOWN_MEMBER_ID');
  });

  it('lists groups with their state and live member count', async () => {
    const base = await createTestContext();
    let clock = Date.now();
    const ctx: SluiceContext = { ...base, now: () => clock };
    await ok(ctx, 'POST', '/v1/topics', { name: 'listed', partitions: 1 });
    const a = await join(ctx, 'one', 'a', ['listed'], { sessionTimeoutMs: 1_000 });
    await settle([a]);
    await ok(ctx, 'POST', '/v1/groups/two/offsets', { offsets: [{ topic: 'listed', partition: 0, offset: 0 }] });
    expect((await ok(ctx, 'GET', '/v1/groups')).groups).toEqual([
      { group: 'one', state: 'Stable', generation: 1, assignor: 'range', members: 1 },
      { group: 'two', state: 'Empty', generation: 0, assignor: null, members: 0 },
    ]);
    clock += 1_000;
    expect((await ok(ctx, 'GET', '/v1/groups')).groups[0]).toMatchObject({ group: 'one', state: 'Empty', members: 0 });
  });
});
