// Push delivery by `npm start` processes (lib/local/main.ts runs the dispatcher) to a local HTTP
// target: 10,000 records over 6 partitions delivered in order per partition, each at least once,
// across a `kill -9` of the service mid-delivery and a restart (duplicates only around the kill:
// at most the one batch per partition that was delivered but not yet committed); and two service
// processes at once, which never deliver one partition concurrently (the delivery leases), one of
// them killed and its partitions taken over by the other.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { fetchCommittedOffsets } from '../../lib/groups/offsets.js';
import { createTopic, type TopicMetadata } from '../../lib/metadata/topics.js';
import { listDeliveryLeases } from '../../lib/subscriptions/delivery-lease.js';
import { createSubscription, deleteSubscription } from '../../lib/subscriptions/subscription-store.js';
import { ServerProcesses } from '../support/server-processes.js';
import { createTestContext } from '../support/storage.js';
import { TargetServer, appendValues, waitFor } from './support.js';

const PARTITIONS = 6;
const RECORDS = 10_000;
const BATCH = 50;

let ctx: SluiceContext;
let topic: TopicMetadata;
let target: TargetServer;
let servers: ServerProcesses;
const logEnds: number[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
  target = await TargetServer.start();
  target.reply = () => ({ status: 200, delayMs: 3 });
  servers = new ServerProcesses(
    { s3Endpoint: inject('s3Endpoint'), dynamodbEndpoint: inject('dynamodbEndpoint'), bucket: ctx.bucket, table: ctx.table },
    { SLUICE_DISPATCHER_LEASE_MS: '2000', SLUICE_DISPATCHER_POLL_MS: '20', SLUICE_RETENTION_INTERVAL_MS: '3600000' },
  );
  topic = await createTopic(ctx, 'events', PARTITIONS);
  // 10,000 records, keyed, in appends of 100 per partition: partition p holds values `p:<i>`.
  const perPartition = Array.from({ length: PARTITIONS }, (_, p) => Math.floor(RECORDS / PARTITIONS) + (p < RECORDS % PARTITIONS ? 1 : 0));
  await Promise.all(
    perPartition.map(async (count, p) => {
      for (let from = 0; from < count; from += 100) {
        await appendValues(ctx, topic, p, Array.from({ length: Math.min(100, count - from) }, (_, i) => `${p}:${from + i}`));
      }
      logEnds[p] = count;
    }),
  );
}, 120_000);

afterAll(async () => {
  await servers?.close();
  await target?.close();
});

async function committed(group: string): Promise<number[]> {
  const offsets = await fetchCommittedOffsets(ctx, group);
  return Array.from({ length: PARTITIONS }, (_, p) => offsets.find((o) => o.partition === p)?.offset ?? -1);
}

const caughtUp = (group: string) => async () => (await committed(group)).every((o, p) => o === logEnds[p]);

/** Offsets of partition `p` in the order the target accepted them. */
function acceptedOffsets(subscription: string, p: number): number[] {
  return target
    .accepted(subscription)
    .filter((b) => b.partition === p)
    .flatMap((b) => b.offsets);
}

describe('the dispatcher of npm start', () => {
  it('delivers 10,000 records over 6 partitions in order across a kill -9 and a restart, duplicates only around the kill', async () => {
    const sub = await createSubscription(ctx, { name: 'crash', topic: 'events', target: { type: 'https', url: target.url }, startingPosition: 'TRIM_HORIZON', batchSize: BATCH });
    const [first] = await servers.start(1);
    await waitFor(() => target.accepted('crash').reduce((n, b) => n + b.offsets.length, 0) >= 3000, 'a third of the records delivered', 60_000);
    await servers.kill(first);
    const beforeKill = target.received.filter((b) => b.subscription === 'crash').length;
    const committedAtKill = await committed(sub.group);
    expect(committedAtKill.reduce((a, b) => a + b, 0)).toBeLessThan(RECORDS);

    await servers.start(1);
    await waitFor(caughtUp(sub.group), 'every partition committed at its log end', 90_000);

    const acceptedBeforeKill = target.received.slice(0, beforeKill).filter((b) => b.subscription === 'crash' && b.status === 200);
    for (let p = 0; p < PARTITIONS; p++) {
      const offsets = acceptedOffsets('crash', p);
      // Every record at least once, and the values are the partition's, in order.
      expect(new Set(offsets).size).toBe(logEnds[p]);
      const values = target.accepted('crash').filter((b) => b.partition === p).flatMap((b) => b.values);
      expect(values.filter((v, i) => offsets.indexOf(offsets[i]) === i)).toEqual(Array.from({ length: logEnds[p] }, (_, i) => `${p}:${i}`));
      // In order, except one rewind at the restart, back to the offset committed at the kill.
      const rewinds = offsets.flatMap((o, i) => (i > 0 && o !== offsets[i - 1] + 1 ? [i] : []));
      expect(rewinds.length).toBeLessThanOrEqual(1);
      if (rewinds.length === 1) expect(offsets[rewinds[0]]).toBe(committedAtKill[p]);
      // The duplicates: only what the first process delivered past its last commit, at most one batch.
      const lastBeforeKill = Math.max(-1, ...acceptedBeforeKill.filter((b) => b.partition === p).flatMap((b) => b.offsets));
      const duplicates = offsets.length - logEnds[p];
      expect(duplicates).toBeLessThanOrEqual(BATCH);
      expect(duplicates).toBe(Math.max(0, lastBeforeKill + 1 - committedAtKill[p]));
      expect(target.maxInFlight.get(`crash#${p}`)).toBe(1);
    }
  });

  it("never lets two service processes deliver one partition at once; a killed one's partitions are taken over after its leases expire", async () => {
    for (const p of servers.running()) await servers.stop(p); // hands its leases on
    await deleteSubscription(ctx, 'crash'); // its partitions would count against each process's 3
    // Two processes of at most 3 partitions each: they share the topic's 6.
    const pair = new ServerProcesses(servers.storage, { SLUICE_DISPATCHER_LEASE_MS: '2000', SLUICE_DISPATCHER_POLL_MS: '20', SLUICE_RETENTION_INTERVAL_MS: '3600000', SLUICE_DISPATCHER_MAX_PARTITIONS: '3' });
    try {
      const [one, two] = await pair.start(2);
      target.reply = () => ({ status: 200, delayMs: 10 });
      const sub = await createSubscription(ctx, { name: 'pair', topic: 'events', target: { type: 'https', url: target.url }, startingPosition: 'TRIM_HORIZON', batchSize: BATCH });
      await waitFor(async () => (await listDeliveryLeases(ctx, 'pair')).filter((l) => l.owner !== undefined).length === PARTITIONS, 'all 6 partitions leased', 30_000);
      const owners = new Set((await listDeliveryLeases(ctx, 'pair')).map((l) => l.owner!.split('/')[0]));
      expect(owners.size).toBe(2);
      await waitFor(() => target.accepted('pair').reduce((n, b) => n + b.offsets.length, 0) >= 2000, 'deliveries under way', 60_000);
      await pair.kill(one);
      const [three] = await pair.start(1);
      await waitFor(caughtUp(sub.group), 'every partition committed at its log end', 90_000);
      expect(two.running() && three.running()).toBe(true);
      for (let p = 0; p < PARTITIONS; p++) {
        expect(target.maxInFlight.get(`pair#${p}`)).toBe(1);
        expect(new Set(acceptedOffsets('pair', p)).size).toBe(logEnds[p]);
      }
    } finally {
      await pair.close();
    }
  });
});
