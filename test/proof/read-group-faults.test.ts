// Fault injection at every AWS call of fetch and of the consumer-group operations, enumerated
// from a clean run like append-faults.test.ts.
//   fetch:  a paged read of a multi-segment log either fails retriably or returns exactly the
//           committed records — never a wrong, partial-batch or uncommitted one.
//   groups: join, heartbeat, offset commit and leave, each retried by its "client" after a fault
//           (on a successor process after a crash); afterwards one owner per partition, the last
//           acknowledged commit is what is stored, and a commit from an older generation is fenced.
import { describe, expect, it } from 'vitest';
import { isSluiceError } from '../../lib/errors.js';
import type { SluiceContext } from '../../lib/context.js';
import { heartbeat, joinGroup, leaveGroup } from '../../lib/groups/membership.js';
import { commitOffsets, fetchCommittedOffsets } from '../../lib/groups/offsets.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';
import { FAULT_KINDS, injectAt, recordCalls } from './faults.js';
import { checkGroupInvariants, checkLogInvariants, Ledger } from './invariants.js';
import { appendBatch, batchValues, readLog, startProcess, successorOf } from './processes.js';

describe('fault injection at every AWS call of fetch', () => {
  it('every fault: a retriable error or exactly the committed records', async () => {
    const shared = await createTestContext();
    const r = await createTopic(shared, 'r', 1);
    const writer = startProcess(shared);
    const ledger = new Ledger();
    for (const count of [3, 1, 5, 2, 4]) {
      const values = batchValues('read', count);
      ledger.settle(ledger.begin(0, values), await appendBatch(writer, r, 0, values));
    }
    const expected = (await checkLogInvariants(shared, r, 0, ledger)).records;
    expect(expected).toHaveLength(15);

    const clean = startProcess(shared);
    const calls = recordCalls(clean);
    expect((await readLog(clean, r, 0, 300)).records).toEqual(expected);
    const total = calls.calls.length;
    expect(total).toBeGreaterThan(5);

    let failed = 0;
    let scenarios = 0;
    for (const kind of FAULT_KINDS.filter((k) => k !== 'condition')) {
      for (let k = 1; k <= total; k++) {
        const reader = startProcess(shared);
        const injection = injectAt(reader, k, kind);
        scenarios++;
        try {
          const read = await readLog(reader, r, 0, 300);
          expect(read.records, `${kind} at call ${k}`).toEqual(expected);
        } catch (e) {
          expect(isSluiceError(e) && e.retriable, `${kind} at call ${k}: ${String(e)}`).toBe(true);
          failed++;
        }
        expect(injection.hit, `${kind} at call ${k}`).toBeDefined();
      }
    }
    expect(failed).toBeGreaterThan(0);
    expect(scenarios).toBe(total * 6);
    await checkLogInvariants(shared, r, 0, ledger);
  });
});

interface GroupClient {
  ctx: SluiceContext;
  skew: number;
  memberId?: string;
  generation: number;
}

/** Runs `op`, retrying after faults; a crashed process is replaced by a successor. Gives up after 4 tries. */
async function withRetries<T>(
  shared: SluiceContext,
  client: GroupClient,
  crashed: () => boolean,
  op: (ctx: SluiceContext) => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  let error: unknown;
  for (let tries = 0; tries < 4; tries++) {
    if (crashed() && client.skew === 0) {
      const next = successorOf(shared, 0);
      client.ctx = next.ctx;
      client.skew = next.skewMs;
    }
    try {
      return { ok: true, value: await op(client.ctx) };
    } catch (e) {
      error = e;
    }
  }
  return { ok: false, error };
}

async function groupScript(shared: SluiceContext, first: SluiceContext, group: string, crashed: () => boolean) {
  const a: GroupClient = { ctx: first, skew: 0, generation: 0 };
  const b: GroupClient = a; // both members are served by the same (possibly crashing) process
  const join = async (who: 'a' | 'b', memberId?: string) => {
    const r = await withRetries(shared, a, crashed, (ctx) =>
      joinGroup(ctx, { group, memberId, clientId: who, topics: ['g'], sessionTimeoutMs: 300_000 }),
    );
    if (!r.ok) throw r.error;
    return r.value;
  };
  let ma = await join('a');
  const mb = await join('b');
  ma = await join('a', ma.memberId); // A learns the generation that includes B
  const commits: { offset: number; acked: boolean }[] = [];
  const commit = async (offset: number) => {
    const r = await withRetries(shared, a, crashed, (ctx) =>
      commitOffsets(ctx, { group, memberId: ma.memberId, generation: ma.generation, offsets: [{ topic: 'g', partition: 0, offset }] }),
    );
    commits.push({ offset, acked: r.ok });
    if (!r.ok) expect((r.error as { code?: string }).code).toMatch(/ILLEGAL_GENERATION|UNKNOWN_MEMBER_ID|UNKNOWN_SERVER_ERROR|THROTTLING|REQUEST_TIMED_OUT/);
  };
  await withRetries(shared, a, crashed, (ctx) => heartbeat(ctx, group, mb.memberId, mb.generation));
  await commit(10);
  await withRetries(shared, b, crashed, (ctx) => leaveGroup(ctx, group, mb.memberId));
  ma = await join('a', ma.memberId);
  await commit(20);
  return { ctx: a.ctx, commits };
}

describe('fault injection at every AWS call of consumer-group operations', () => {
  it('every fault: one owner per partition, the last acknowledged commit stored, older generations fenced', async () => {
    const shared = await createTestContext();
    await createTopic(shared, 'g', 2);
    const clean = startProcess(shared);
    const calls = recordCalls(clean);
    const cleanRun = await groupScript(shared, clean, 'clean', () => false);
    expect(cleanRun.commits).toEqual([
      { offset: 10, acked: true },
      { offset: 20, acked: true },
    ]);
    const total = calls.calls.length;

    let scenarios = 0;
    for (const kind of FAULT_KINDS) {
      for (let k = 1; k <= total; k++) {
        const group = `g-${kind}-${k}`;
        const process = startProcess(shared);
        const injection = injectAt(process, k, kind);
        const { commits } = await groupScript(shared, process, group, () => injection.sdk.crashed);
        scenarios++;
        const stored = (await fetchCommittedOffsets(shared, group)).find((o) => o.partition === 0)?.offset;
        const lastAcked = commits.filter((c) => c.acked).at(-1);
        // The stored offset is one that was committed, and not older than the last acknowledged one.
        if (lastAcked) expect(stored, `${group}`).toBeGreaterThanOrEqual(lastAcked.offset);
        if (stored !== undefined) expect(commits.map((c) => c.offset), `${group}`).toContain(stored);
        await checkGroupInvariants(shared, group, 'g');
      }
    }
    expect(scenarios).toBe(total * FAULT_KINDS.length);
  });
});
