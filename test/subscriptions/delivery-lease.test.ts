// The conditions of the delivery lease (delivery-lease.ts): one holder at a time, takeover only
// after expiry with a higher epoch, renewals and releases refused to an ex-holder, racing acquirers
// with one winner, and offset commits fenced by the epoch.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { fetchCommittedOffsets } from '../../lib/groups/offsets.js';
import { createTopic } from '../../lib/metadata/topics.js';
import {
  acquireDeliveryLease,
  isHeld,
  readDeliveryLease,
  releaseDeliveryLease,
  renewDeliveryLease,
} from '../../lib/subscriptions/delivery-lease.js';
import { commitSubscriptionOffset, readCommittedPosition } from '../../lib/subscriptions/subscription-offsets.js';
import { createTestContext } from '../support/storage.js';

let ctx: SluiceContext;
let clock = 1_000_000;
beforeAll(async () => {
  ctx = { ...(await createTestContext()), now: () => clock };
  await createTopic(ctx, 't', 2);
});

describe('delivery leases', () => {
  it('goes to one owner until it expires, then to another with a higher epoch', async () => {
    const a = await acquireDeliveryLease(ctx, 's1', 0, 'A', 10_000);
    expect(a).toEqual({ subscription: 's1', partition: 0, owner: 'A', epoch: 1, expiresAt: clock + 10_000 });
    expect(await acquireDeliveryLease(ctx, 's1', 0, 'B', 10_000)).toBeUndefined();
    clock += 10_000; // expiresAt itself still counts as held
    expect(await acquireDeliveryLease(ctx, 's1', 0, 'B', 10_000)).toBeUndefined();
    clock += 1;
    const b = await acquireDeliveryLease(ctx, 's1', 0, 'B', 10_000);
    expect(b).toMatchObject({ owner: 'B', epoch: 2 });
    // The ex-holder can neither renew nor release it.
    expect(await renewDeliveryLease(ctx, a!, 10_000)).toBeUndefined();
    expect(await releaseDeliveryLease(ctx, a!)).toBe(false);
    expect(await readDeliveryLease(ctx, 's1', 0)).toMatchObject({ owner: 'B', epoch: 2 });
  });

  it('renews for the holder; a release lets the next poller in at once', async () => {
    const a = (await acquireDeliveryLease(ctx, 's2', 0, 'A', 10_000))!;
    clock += 5_000;
    const renewed = (await renewDeliveryLease(ctx, a, 10_000))!;
    expect(renewed).toMatchObject({ epoch: 1, expiresAt: clock + 10_000 });
    expect(await releaseDeliveryLease(ctx, renewed)).toBe(true);
    const view = await readDeliveryLease(ctx, 's2', 0);
    expect(view).toEqual({ partition: 0, epoch: 1, expiresAt: 0 });
    expect(isHeld(view, clock)).toBe(false);
    expect(await acquireDeliveryLease(ctx, 's2', 0, 'B', 10_000)).toMatchObject({ owner: 'B', epoch: 2 });
  });

  it('a holder re-acquiring its own lease takes a new epoch, which fences its own older requests', async () => {
    const first = (await acquireDeliveryLease(ctx, 's3', 1, 'A', 10_000))!;
    const second = (await acquireDeliveryLease(ctx, 's3', 1, 'A', 10_000))!;
    expect(second.epoch).toBe(first.epoch + 1);
    expect(await renewDeliveryLease(ctx, first, 10_000)).toBeUndefined();
    expect(await renewDeliveryLease(ctx, second, 10_000)).toBeDefined();
  });

  it('lets exactly one of many racing pollers take a free lease', async () => {
    for (let round = 0; round < 5; round++) {
      const wins = (await Promise.all(Array.from({ length: 6 }, (_, i) => acquireDeliveryLease(ctx, `race${round}`, 0, `P${i}`, 10_000)))).filter(Boolean);
      expect(wins).toHaveLength(1);
      clock += 10_001;
      const again = (await Promise.all(Array.from({ length: 6 }, (_, i) => acquireDeliveryLease(ctx, `race${round}`, 0, `Q${i}`, 10_000)))).filter(Boolean);
      expect(again).toHaveLength(1);
      expect(again[0]!.epoch).toBe(2);
    }
  });

  it('takes an epoch above minEpoch (the generation of the committed offset)', async () => {
    expect(await acquireDeliveryLease(ctx, 's4', 0, 'A', 10_000, 41)).toMatchObject({ epoch: 42 });
  });
});

describe('commits fenced by the lease epoch', () => {
  it('refuses a stalled ex-holder once the new holder re-committed with its epoch', async () => {
    const group = 'sluice-subscription.fenced';
    const sub = { group, topic: 't' };
    const a = (await acquireDeliveryLease(ctx, 'fenced', 0, 'A', 10_000))!;
    await commitSubscriptionOffset(ctx, sub, 0, 10, a.epoch);
    clock += 10_001;
    const b = (await acquireDeliveryLease(ctx, 'fenced', 0, 'B', 10_000, (await readCommittedPosition(ctx, group, 't', 0))!.commitGeneration))!;
    await commitSubscriptionOffset(ctx, sub, 0, 10, b.epoch);
    await expect(commitSubscriptionOffset(ctx, sub, 0, 25, a.epoch)).rejects.toMatchObject({ code: 'ILLEGAL_GENERATION' });
    await commitSubscriptionOffset(ctx, sub, 0, 12, b.epoch);
    expect((await fetchCommittedOffsets(ctx, group)).map((o) => o.offset)).toEqual([12]);
    expect(await readCommittedPosition(ctx, group, 't', 0)).toEqual({ offset: 12, commitGeneration: b.epoch });
  });
});
