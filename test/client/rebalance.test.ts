// lib/client/rebalance.ts: eager assignors revoke everything; cooperative (sticky) only what moved.
import { describe, expect, it } from 'vitest';
import { planRebalance } from '../../lib/client/rebalance.js';

const tp = (topic: string, partition: number) => ({ topic, partition });

describe('planRebalance', () => {
  const owned = [tp('t', 0), tp('t', 1)];
  const next = [tp('t', 1), tp('t', 2)];
  it('range and roundrobin (eager): revoke all owned, assign all of the new assignment', () => {
    for (const assignor of ['range', 'roundrobin'] as const) expect(planRebalance(owned, next, assignor)).toEqual({ revoked: owned, assigned: next });
  });
  it('sticky (cooperative): revoke only what moved away, assign only what is new', () => {
    expect(planRebalance(owned, next, 'sticky')).toEqual({ revoked: [tp('t', 0)], assigned: [tp('t', 2)] });
    expect(planRebalance(owned, owned, 'sticky')).toEqual({ revoked: [], assigned: [] });
  });
  it('returns copies, not the caller\'s arrays', () => {
    const plan = planRebalance(owned, next, 'range');
    expect(plan.revoked).not.toBe(owned);
    expect(plan.assigned).not.toBe(next);
  });
});
