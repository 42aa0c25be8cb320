// Model-based property of consumer groups: random join / rejoin / heartbeat / leave / offset
// commit (with the member's generation, or a stale one) / standalone commit by three member slots
// on two processes, compared after every step with a reference model holding the live members and
// the committed offset:
//   - the stored members are exactly the model's live members;
//   - a commit succeeds iff its member is live and names the group's current generation, and then
//     the stored offset is the committed one; a refused commit changes nothing (fencing);
//   - a leave of a non-member is UNKNOWN_MEMBER_ID; every partition has at most one owner.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { readGroup } from '../../lib/groups/group-store.js';
import { heartbeat, joinGroup, leaveGroup } from '../../lib/groups/membership.js';
import { commitOffsets, fetchCommittedOffsets } from '../../lib/groups/offsets.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';
import { checkGroupInvariants } from './invariants.js';
import { scale } from './model/soak.js';
import { startProcess } from './processes.js';

type GroupOp =
  | { readonly t: 'join'; readonly m: number; readonly via: number }
  | { readonly t: 'heartbeat'; readonly m: number; readonly via: number }
  | { readonly t: 'leave'; readonly m: number; readonly via: number }
  | { readonly t: 'commit'; readonly m: number; readonly via: number; readonly offset: number; readonly stale: boolean }
  | { readonly t: 'standalone'; readonly via: number; readonly offset: number };

const m = fc.integer({ min: 0, max: 2 });
const via = fc.integer({ min: 0, max: 1 });
const offset = fc.integer({ min: 0, max: 1000 });
const groupOpArb: fc.Arbitrary<GroupOp> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ t: fc.constant('join' as const), m, via }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('heartbeat' as const), m, via }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('leave' as const), m, via }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant('commit' as const), m, via, offset, stale: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('standalone' as const), via, offset }) },
);

let shared: SluiceContext;
let processes: SluiceContext[];
let caseCounter = 0;

beforeAll(async () => {
  shared = await createTestContext();
  await createTopic(shared, 'gt', 3);
  processes = [startProcess(shared), startProcess(shared)];
});

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
}

async function runGroupCase(ops: readonly GroupOp[]): Promise<void> {
  const group = `grp-${++caseCounter}`;
  const members: (undefined | { id: string; generation: number })[] = [undefined, undefined, undefined];
  let committed: number | undefined;
  for (const [step, op] of ops.entries()) {
    const label = `${group} step ${step} ${JSON.stringify(op)}`;
    const ctx = processes[op.via];
    switch (op.t) {
      case 'join': {
        const known = members[op.m];
        const joined = await joinGroup(ctx, { group, memberId: known?.id, clientId: `c${op.m}`, topics: ['gt'], sessionTimeoutMs: 300_000 });
        if (known) expect(joined.memberId, label).toBe(known.id);
        members[op.m] = { id: joined.memberId, generation: joined.generation };
        break;
      }
      case 'heartbeat': {
        const member = members[op.m];
        if (!member) break;
        const beat = await heartbeat(ctx, group, member.id, member.generation);
        if (beat.rebalance) {
          const joined = await joinGroup(ctx, { group, memberId: member.id, clientId: `c${op.m}`, topics: ['gt'], sessionTimeoutMs: 300_000 });
          member.generation = joined.generation;
        }
        break;
      }
      case 'leave': {
        const member = members[op.m];
        const code = await codeOf(leaveGroup(ctx, group, member?.id ?? `ghost-${op.m}`));
        expect(code, label).toBe(member ? undefined : 'UNKNOWN_MEMBER_ID');
        members[op.m] = undefined;
        break;
      }
      case 'commit': {
        const member = members[op.m];
        if (!member) break;
        const current = (await readGroup(ctx, group))!.generation;
        const generation = op.stale ? member.generation - 1 : member.generation;
        const code = await codeOf(
          commitOffsets(ctx, { group, memberId: member.id, generation, offsets: [{ topic: 'gt', partition: 0, offset: op.offset }] }),
        );
        if (generation === current) {
          expect(code, label).toBeUndefined();
          committed = op.offset;
        } else {
          expect(code, label).toBe('ILLEGAL_GENERATION');
        }
        break;
      }
      case 'standalone': {
        const live = members.some(Boolean);
        const code = await codeOf(commitOffsets(ctx, { group, offsets: [{ topic: 'gt', partition: 0, offset: op.offset }] }));
        expect(code, label).toBe(live ? 'UNKNOWN_MEMBER_ID' : undefined);
        if (!live) committed = op.offset;
        break;
      }
    }
    // Compare with the model after every step.
    const stored = await readGroup(shared, group);
    const live = members.flatMap((x) => (x ? [x.id] : [])).sort();
    expect(Object.keys(stored?.members ?? {}).sort(), label).toEqual(live);
    const offsets = await fetchCommittedOffsets(shared, group);
    expect(offsets.find((o) => o.partition === 0)?.offset, label).toBe(committed);
  }
  await checkGroupInvariants(shared, group, 'gt');
}

describe('consumer groups against their reference model', () => {
  it(`join/heartbeat/leave/commit interleavings (${scale(700, 5000)} cases)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(groupOpArb, { minLength: 1, maxLength: scale(6, 20) }), (ops) => runGroupCase(ops)),
      { numRuns: scale(700, 5000) },
    );
  }, scale(120_000, 3_600_000));
});
