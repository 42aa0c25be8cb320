import { describe, expect, it } from 'vitest';
import { createContext, type SluiceContext } from '../../lib/context.js';
import { acquireLease, tryAcquireLease } from '../../lib/metadata/lease.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { createTestContext, emulatorClients } from '../support/storage.js';

/** A second process on the same table, with a clock the test moves. */
function processWithClock(shared: SluiceContext, clock: { now: number }): SluiceContext {
  return { ...createContext(emulatorClients(), { bucket: shared.bucket, table: shared.table, leaseMs: 1000, leaseWaitMs: 500 }), now: () => clock.now };
}

describe('partition lease', () => {
  it('reads an unwritten partition as zeros and creates STATE lazily on the first lease, epoch 1', async () => {
    const ctx = await createTestContext();
    expect(await getPartitionState(ctx, 't', 0)).toEqual({
      topic: 't',
      partition: 0,
      nextOffset: 0,
      logStartOffset: 0,
      epoch: 0,
      expiresAt: 0,
      bytes: 0,
      segments: 0,
    });
    const state = await tryAcquireLease(ctx, 't', 0);
    expect(state).toMatchObject({ owner: ctx.ownerId, epoch: 1, nextOffset: 0, logStartOffset: 0, producers: {} });
    expect(await getPartitionState(ctx, 't', 0)).toMatchObject({ owner: ctx.ownerId, epoch: 1 });
  });

  it('refuses a live lease to another owner, hands an expired one over with epoch + 1, and renews its own with a new epoch', async () => {
    const shared = await createTestContext();
    const clock = { now: 1_000_000 };
    const a = processWithClock(shared, clock);
    const b = processWithClock(shared, clock);
    expect(await tryAcquireLease(a, 't', 0)).toMatchObject({ owner: a.ownerId, epoch: 1, expiresAt: 1_001_000 });
    expect(await tryAcquireLease(b, 't', 0)).toBeUndefined();
    clock.now += 999;
    expect(await tryAcquireLease(b, 't', 0)).toBeUndefined();
    clock.now += 2;
    expect(await tryAcquireLease(b, 't', 0)).toMatchObject({ owner: b.ownerId, epoch: 2 });
    expect(await tryAcquireLease(b, 't', 0)).toMatchObject({ owner: b.ownerId, epoch: 3 });
  });

  it('fails fast with retriable NOT_LEADER_OR_FOLLOWER when the holder’s lease outlives the wait', async () => {
    const shared = await createTestContext();
    const clock = { now: 5_000_000 };
    const a = processWithClock(shared, clock);
    const b = processWithClock(shared, clock);
    await acquireLease(a, 't', 0, clock.now + 500);
    await expect(acquireLease(b, 't', 0, clock.now + 500)).rejects.toMatchObject({
      code: 'NOT_LEADER_OR_FOLLOWER',
      retriable: true,
      retryAfterSeconds: 1,
      details: { leaderEpoch: 1 },
    });
  });

  it('waits for a lease that expires within the wait, then takes it', async () => {
    const shared = await createTestContext();
    const a = createContext(emulatorClients(), { bucket: shared.bucket, table: shared.table, leaseMs: 100 });
    const b = createContext(emulatorClients(), { bucket: shared.bucket, table: shared.table, leaseMs: 100 });
    await acquireLease(a, 't', 0, Date.now() + 1000);
    expect(await acquireLease(b, 't', 0, Date.now() + 2000)).toMatchObject({ owner: b.ownerId, epoch: 2 });
  });
});
