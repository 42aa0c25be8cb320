// lib/client/heartbeat.ts: one beat per tick, rejoin on the coordinator's word or a fencing error
// (memberLost only for UNKNOWN_MEMBER_ID), other failures reported, overlapping ticks skipped.
import { describe, expect, it, vi } from 'vitest';
import { SluiceClientError } from '../../lib/client/errors.js';
import { Heartbeat, type HeartbeatTarget } from '../../lib/client/heartbeat.js';
import type { SluiceApi } from '../../lib/client/wire.js';

function setup(reply: () => Promise<{ generation: number; rebalance: boolean }>, member: string | null = 'm', generation: number | null = 3) {
  const calls: unknown[][] = [];
  const api = { heartbeat: (...a: unknown[]) => (calls.push(a), reply()) } as unknown as SluiceApi;
  const events: string[] = [];
  const target: HeartbeatTarget = {
    group: 'g',
    memberId: () => member ?? undefined,
    generation: () => generation ?? undefined,
    onRebalance: (lost) => events.push(`rebalance:${lost}`),
    onError: (e) => events.push(`error:${e.code}`),
  };
  return { hb: new Heartbeat(api, target, 1000), calls, events };
}

describe('Heartbeat', () => {
  it('sends group, member and generation; a current generation without rebalance does nothing', async () => {
    const { hb, calls, events } = setup(async () => ({ generation: 3, rebalance: false }));
    await hb.beat();
    expect(calls).toEqual([['g', 'm', 3]]);
    expect(events).toEqual([]);
  });
  it('rebalance flag or another generation: rejoin keeping the membership', async () => {
    for (const reply of [{ generation: 3, rebalance: true }, { generation: 4, rebalance: false }]) {
      const { hb, events } = setup(async () => reply);
      await hb.beat();
      expect(events).toEqual(['rebalance:false']);
    }
  });
  it.each([
    ['UNKNOWN_MEMBER_ID', 'rebalance:true'],
    ['ILLEGAL_GENERATION', 'rebalance:false'],
    ['REBALANCE_IN_PROGRESS', 'rebalance:false'],
    ['THROTTLING', 'error:THROTTLING'],
  ])('%s → %s', async (code, event) => {
    const { hb, events } = setup(async () => Promise.reject(new SluiceClientError(code, 'x')));
    await hb.beat();
    expect(events).toEqual([event]);
  });
  it('a thrown non-client error is reported as NETWORK_ERROR', async () => {
    const { hb, events } = setup(async () => Promise.reject(new Error('reset')));
    await hb.beat();
    expect(events).toEqual(['error:NETWORK_ERROR']);
  });
  it('no member or generation yet: no request; overlapping beats are skipped', async () => {
    for (const [member, generation] of [[null, 3], ['m', null]] as const) {
      const s = setup(async () => ({ generation: 1, rebalance: false }), member, generation);
      await s.hb.beat();
      expect(s.calls).toEqual([]);
    }
    let release: (() => void) | undefined;
    const { hb, calls } = setup(() =>
      release === undefined
        ? new Promise((r) => (release = () => r({ generation: 3, rebalance: false }))) // the first beat hangs until released
        : Promise.resolve({ generation: 3, rebalance: false }),
    );
    const first = hb.beat();
    await hb.beat();
    expect(calls).toHaveLength(1);
    release!();
    await first;
    await hb.beat();
    expect(calls).toHaveLength(2);
  });
  it('start beats every interval until stop; start twice is one timer', async () => {
    vi.useFakeTimers();
    try {
      const { hb, calls } = setup(async () => ({ generation: 3, rebalance: false }));
      hb.start();
      hb.start();
      await vi.advanceTimersByTimeAsync(3000);
      expect(calls).toHaveLength(3);
      hb.stop();
      await vi.advanceTimersByTimeAsync(3000);
      expect(calls).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
  });
});
