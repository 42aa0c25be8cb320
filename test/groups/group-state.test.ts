// lib/groups/group-state.ts: the empty state and Kafka's group state names read from the item.
import { describe, expect, it } from 'vitest';
import { emptyGroupState, groupStateName, type GroupMember, type GroupState } from '../../lib/groups/group-state.js';

const member = (ackGeneration: number): GroupMember => ({ clientId: 'c', topics: ['t'], assignor: 'range', sessionTimeoutMs: 1000, expiresAt: 10, ackGeneration, joinedAt: 0 });

describe('group state', () => {
  it('emptyGroupState: generation 0, version 0, no members, no assignor', () => {
    expect(emptyGroupState('g', 5)).toEqual({ group: 'g', version: 0, generation: 0, assignor: null, members: {}, assignment: {}, pending: [], partitionsPerTopic: {}, createdAt: 5, updatedAt: 5 });
  });
  it('Empty, PreparingRebalance (pending handovers first), CompletingRebalance, Stable', () => {
    const s = (over: Partial<GroupState>): GroupState => ({ ...emptyGroupState('g', 0), generation: 3, ...over });
    expect(groupStateName(s({}))).toBe('Empty');
    expect(groupStateName(s({ members: { a: member(2) }, pending: [{ topic: 't', partition: 0, from: 'a', since: 3 }] }))).toBe('PreparingRebalance');
    expect(groupStateName(s({ members: { a: member(3), b: member(2) } }))).toBe('CompletingRebalance');
    expect(groupStateName(s({ members: { a: member(3), b: member(3) } }))).toBe('Stable');
    // Empty wins over pending handovers left by departed members
    expect(groupStateName(s({ pending: [{ topic: 't', partition: 0, from: 'a', since: 3 }] }))).toBe('Empty');
  });
});
