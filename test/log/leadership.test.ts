import { describe, expect, it } from 'vitest';
import { createContext, type SluiceContext } from '../../lib/context.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { createTestContext, emulatorClients } from '../support/storage.js';
import { isCommit, observeSdk } from './sdk-faults.js';
import { rangeAt, readAll } from './read-all.js';

function process(shared: SluiceContext, settings: { leaseMs: number; leaseWaitMs: number }): SluiceContext {
  return createContext(emulatorClients(), { bucket: shared.bucket, table: shared.table, graceMs: 1000, ...settings });
}

const one = (value: string) => [{ timestamp: 0, key: null, value: Buffer.from(value) }];

async function readValues(ctx: SluiceContext, topic: string): Promise<string[]> {
  return (await readAll(ctx, topic, 0)).records.map((r) => r.value!.toString());
}

describe('leadership', () => {
  it('fences a paused leader: its commit fails on the epoch, none of its data becomes visible, the new leader’s is intact', async () => {
    const shared = await createTestContext();
    const a = process(shared, { leaseMs: 300, leaseWaitMs: 200 });
    const b = process(shared, { leaseMs: 60_000, leaseWaitMs: 3000 });
    expect(await appendToPartitions(a, 't', [{ partition: 0, records: one('a-first') }])).toEqual([
      { partition: 0, baseOffset: 0, count: 1 },
    ]);

    // A's next commit is held back (a GC pause, a frozen Lambda) until B has taken over and appended.
    let releaseA!: () => void;
    const bDone = new Promise<void>((resolve) => (releaseA = resolve));
    const aSdk = observeSdk(a);
    aSdk.gate = async (call) => {
      if (isCommit(call)) await bDone;
    };
    const aAppend = appendToPartitions(a, 't', [{ partition: 0, records: one('a-stale') }]);

    const [bResult] = await appendToPartitions(b, 't', [{ partition: 0, records: one('b-new') }]);
    expect(bResult).toEqual({ partition: 0, baseOffset: 1, count: 1 });
    releaseA();

    const [aResult] = await aAppend;
    expect(aResult).toMatchObject({ partition: 0, error: { code: 'NOT_LEADER_OR_FOLLOWER', retriable: true } });
    expect(await readValues(b, 't')).toEqual(['a-first', 'b-new']);
    const state = await getPartitionState(b, 't', 0);
    expect(state).toMatchObject({ nextOffset: 2, epoch: 2, owner: b.ownerId });
    // Offset 1 is B's range, listed in STATE's tail by B's commit; A's object is listed nowhere.
    expect(await rangeAt(b, 't', 0, 1)).toMatchObject({ epoch: 2 });
    expect(state.tail).toHaveLength(2);
  });

  it('16 writer processes on one partition: every batch acknowledged once, offsets dense and unique', async () => {
    const shared = await createTestContext();
    const writers = Array.from({ length: 16 }, () => process(shared, { leaseMs: 150, leaseWaitMs: 400 }));
    const contention: string[] = [];
    const acks = await Promise.all(
      writers.map(async (w, i) => {
        for (;;) {
          const [result] = await appendToPartitions(w, 't', [{ partition: 0, records: [...one(`w${i}-0`), ...one(`w${i}-1`)] }]);
          if (!('error' in result)) return { writer: i, baseOffset: result.baseOffset };
          // Contention shows up only as retriable refusals.
          expect(result.error.retriable).toBe(true);
          contention.push(result.error.code);
          await new Promise((r) => setTimeout(r, 20 + Math.random() * 50));
        }
      }),
    );
    const bases = acks.map((a) => a.baseOffset).sort((x, y) => x - y);
    expect(bases).toEqual(Array.from({ length: 16 }, (_, i) => 2 * i));
    const values = await readValues(shared, 't');
    expect(values).toHaveLength(32);
    for (const { writer, baseOffset } of acks) {
      expect(values.slice(baseOffset, baseOffset + 2)).toEqual([`w${writer}-0`, `w${writer}-1`]);
    }
    expect(new Set(contention)).toEqual(new Set(contention.length ? ['NOT_LEADER_OR_FOLLOWER'] : []));
  });
});
