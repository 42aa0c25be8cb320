// The dispatcher in-process against the emulators and a local HTTP target: order per partition,
// the signed MSK-shaped event, commits in the subscription's group, bisection of a poison record
// into a dead-letter topic, partial batch responses, retries and record age, parallelization per
// key, and two dispatchers sharing partitions through the leases.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { fetchCommittedOffsets } from '../../lib/groups/offsets.js';
import { createTopic, type TopicMetadata } from '../../lib/metadata/topics.js';
import { listDeliveryLeases } from '../../lib/subscriptions/delivery-lease.js';
import { runDispatcherFor, startDispatcher, type Dispatcher, type DispatcherOptions } from '../../lib/subscriptions/dispatcher.js';
import { createSubscription } from '../../lib/subscriptions/subscription-store.js';
import type { CreateSubscriptionInput } from '../../lib/subscriptions/subscription.js';
import { verifySignature } from '../../lib/subscriptions/targets/signature.js';
import { readAll } from '../log/read-all.js';
import { createTestContext } from '../support/storage.js';
import { TargetServer, appendValues, waitFor } from './support.js';

let ctx: SluiceContext;
let target: TargetServer;
const running: Dispatcher[] = [];
const fast: DispatcherOptions = { pollIntervalMs: 20, refreshIntervalMs: 100, leaseMs: 3000, backoff: { baseMs: 10, maxMs: 40 } };

beforeAll(async () => {
  ctx = await createTestContext();
  target = await TargetServer.start();
});
// Each test's dispatchers stop with it: idle ones would keep polling their partitions.
afterEach(async () => {
  await Promise.all(running.splice(0).map((d) => d.stop()));
  target.reply = () => ({ status: 200 });
});
afterAll(async () => {
  await target.close();
});

function dispatch(options: DispatcherOptions = {}): Dispatcher {
  const d = startDispatcher(ctx, { ...fast, ...options });
  running.push(d);
  return d;
}

async function subscribe(input: Omit<CreateSubscriptionInput, 'target'> & Partial<Pick<CreateSubscriptionInput, 'target'>>) {
  return createSubscription(ctx, { target: { type: 'https', url: target.url }, startingPosition: 'TRIM_HORIZON', ...input });
}

async function committedOffsets(group: string): Promise<number[]> {
  return (await fetchCommittedOffsets(ctx, group)).map((o) => o.offset);
}

describe('the dispatcher', () => {
  it('delivers every partition in order, signed, in MSK event shape, and commits to the log end', async () => {
    const topic = await createTopic(ctx, 'plain', 3);
    for (let p = 0; p < 3; p++) for (let b = 0; b < 4; b++) await appendValues(ctx, topic, p, Array.from({ length: 30 }, (_, i) => `p${p}-${b * 30 + i}`));
    const sub = await subscribe({ name: 'plain', topic: 'plain', batchSize: 25 });
    const d = dispatch({ subscriptions: ['plain'] });
    await waitFor(async () => (await committedOffsets(sub.group)).join() === '120,120,120', 'commits at the log end');
    for (let p = 0; p < 3; p++) {
      const batches = target.accepted('plain').filter((b) => b.partition === p);
      expect(batches.every((b) => b.offsets.length <= 25)).toBe(true);
      expect(batches.flatMap((b) => b.offsets)).toEqual(Array.from({ length: 120 }, (_, i) => i));
      expect(batches.flatMap((b) => b.values)).toEqual(Array.from({ length: 120 }, (_, i) => `p${p}-${i}`));
    }
    const first = target.accepted('plain')[0];
    expect(verifySignature(sub.signingSecret!, first.signature, first.body)).toBe(true);
    expect(verifySignature('another-secret-entirely', first.signature, first.body)).toBe(false);
    expect(verifySignature(sub.signingSecret!, first.signature, first.body.replace('"offset":', '"offset": '))).toBe(false);
    const event = JSON.parse(first.body);
    expect(Object.keys(event)).toEqual(['eventSource', 'eventSourceArn', 'subscription', 'records']);
    expect(event.eventSource).toBe('sluice:kafka');
    const [[topicPartition, records]] = Object.entries(event.records) as [string, { key: string }[]][];
    expect(topicPartition).toBe(`plain-${first.partition}`);
    expect(records[0]).toEqual({
      topic: 'plain',
      partition: first.partition,
      offset: first.offsets[0],
      timestamp: expect.any(Number),
      timestampType: 'CREATE_TIME',
      key: Buffer.from('k0').toString('base64'),
      value: Buffer.from(first.values[0]).toString('base64'),
      headers: [],
    });
    expect(d.report()).toMatchObject({ recordsDelivered: 360, deliveryFailures: 0, onFailureRecords: 0 });
  });

  it('isolates a poison record by bisection and sends its metadata, with its offset, to the dead-letter topic', async () => {
    const topic = await createTopic(ctx, 'poisoned', 1);
    const dlq = await createTopic(ctx, 'poisoned.dlq', 1);
    const values = Array.from({ length: 64 }, (_, i) => (i === 37 ? 'poison' : `v${i}`));
    await appendValues(ctx, topic, 0, values);
    target.reply = (b) => (b.subscription === 'poisoned' && b.values.includes('poison') ? { status: 500, body: { error: 'cannot digest' } } : { status: 200 });
    const sub = await subscribe({
      name: 'poisoned',
      topic: 'poisoned',
      batchSize: 64,
      bisectBatchOnFunctionError: true,
      maximumRetryAttempts: 2,
      onFailure: { type: 'topic', topic: 'poisoned.dlq' },
    });
    dispatch({ subscriptions: ['poisoned'] });
    await waitFor(async () => (await committedOffsets(sub.group)).join() === '64', 'the commit past the poison record');
    const delivered = target.accepted('poisoned').flatMap((b) => b.offsets);
    expect([...delivered].sort((a, b) => a - b)).toEqual(values.map((_, i) => i).filter((i) => i !== 37));
    // Bisection: 64 → 32 → 16 → 8 → 4 → 2 → 1, then the lone poison record is retried twice.
    const poisonAttempts = target.received.filter((b) => b.subscription === 'poisoned' && b.offsets.length === 1 && b.offsets[0] === 37);
    expect(poisonAttempts).toHaveLength(3);
    const dead = (await readAll(ctx, dlq, 0)).records;
    expect(dead).toHaveLength(1);
    expect(dead[0].key?.toString()).toBe('poisoned-0');
    const failure = JSON.parse(dead[0].value!.toString());
    expect(failure).toMatchObject({
      version: '1.0',
      requestContext: { subscription: 'poisoned', condition: 'RetryAttemptsExhausted', approximateInvokeCount: 9 },
      responseContext: { error: expect.stringContaining('HTTP 500') },
      KafkaBatchInfo: { topic: 'poisoned', partition: 0, topicPartition: 'poisoned-0', batchSize: 1, firstOffset: 37, lastOffset: 37, offsets: [37] },
    });
    target.reply = () => ({ status: 200 });
  });

  it('retries only the failed record and those after it on a partial batch response', async () => {
    const topic = await createTopic(ctx, 'partial', 1);
    await appendValues(ctx, topic, 0, Array.from({ length: 10 }, (_, i) => `v${i}`));
    let failedOnce = false;
    target.reply = (b) => {
      if (b.subscription !== 'partial' || failedOnce || !b.offsets.includes(6)) return { status: 200 };
      failedOnce = true;
      return { status: 200, body: { batchItemFailures: [{ itemIdentifier: '0@8' }, { itemIdentifier: '0@6' }] } };
    };
    const sub = await subscribe({ name: 'partial', topic: 'partial', batchSize: 10, functionResponseTypes: ['ReportBatchItemFailures'] });
    dispatch({ subscriptions: ['partial'] });
    await waitFor(async () => (await committedOffsets(sub.group)).join() === '10', 'the commit at the log end');
    expect(target.received.filter((b) => b.subscription === 'partial').map((b) => b.offsets)).toEqual([
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      [6, 7, 8, 9],
    ]);
    target.reply = () => ({ status: 200 });
  });

  it('fails the whole batch on a partial response naming no record of it, and gives up after maximumRetryAttempts', async () => {
    const topic = await createTopic(ctx, 'bad-partial', 1);
    await createTopic(ctx, 'bad-partial.dlq', 1);
    await appendValues(ctx, topic, 0, ['a', 'b', 'c']);
    target.reply = (b) => (b.subscription === 'bad-partial' ? { status: 200, body: { batchItemFailures: [{ itemIdentifier: '0@99' }] } } : { status: 200 });
    const sub = await subscribe({
      name: 'bad-partial',
      topic: 'bad-partial',
      functionResponseTypes: ['ReportBatchItemFailures'],
      maximumRetryAttempts: 1,
      onFailure: { type: 'topic', topic: 'bad-partial.dlq' },
    });
    const d = dispatch({ subscriptions: ['bad-partial'] });
    await waitFor(async () => (await committedOffsets(sub.group)).join() === '3', 'the commit past the given-up batch');
    expect(target.received.filter((b) => b.subscription === 'bad-partial').map((b) => b.offsets)).toEqual([
      [0, 1, 2],
      [0, 1, 2],
    ]);
    expect(d.report().onFailureRecords).toBeGreaterThanOrEqual(3);
    target.reply = () => ({ status: 200 });
  });

  it('gives up records older than maximumRecordAgeMs without delivering them', async () => {
    const topic = await createTopic(ctx, 'aged', 1);
    const dlq = await createTopic(ctx, 'aged.dlq', 1);
    await appendValues(ctx, topic, 0, ['old1', 'old2'], Date.now() - 120_000);
    await appendValues(ctx, topic, 0, ['new1']);
    const sub = await subscribe({ name: 'aged', topic: 'aged', maximumRecordAgeMs: 60_000, onFailure: { type: 'topic', topic: 'aged.dlq' } });
    dispatch({ subscriptions: ['aged'] });
    await waitFor(async () => (await committedOffsets(sub.group)).join() === '3', 'the commit at the log end');
    expect(target.accepted('aged').flatMap((b) => b.values)).toEqual(['new1']);
    const dead = (await readAll(ctx, dlq, 0)).records.map((r) => JSON.parse(r.value!.toString()));
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ requestContext: { condition: 'RecordAgeExceeded', approximateInvokeCount: 0 }, KafkaBatchInfo: { offsets: [0, 1] } });
  });

  it('with parallelizationFactor delivers batches of one partition concurrently, in order per key', async () => {
    const topic = await createTopic(ctx, 'parallel', 1);
    const keys = Array.from({ length: 200 }, (_, i) => `key${i % 16}`);
    await appendValues(ctx, topic, 0, keys.map((k, i) => `${k}:${i}`), Date.now(), keys);
    target.reply = (b) => (b.subscription === 'parallel' ? { status: 200, delayMs: 30 } : { status: 200 });
    const sub = await subscribe({ name: 'parallel', topic: 'parallel', batchSize: 10, parallelizationFactor: 4 });
    dispatch({ subscriptions: ['parallel'] });
    await waitFor(async () => (await committedOffsets(sub.group)).join() === '200', 'the commit at the log end');
    expect(target.maxInFlight.get('parallel#0')).toBeGreaterThan(1);
    expect(target.maxInFlight.get('parallel#0')).toBeLessThanOrEqual(4);
    const perKey = new Map<string, number[]>();
    for (const b of target.accepted('parallel')) b.keys.forEach((k, i) => perKey.set(k!, [...(perKey.get(k!) ?? []), b.offsets[i]]));
    expect(perKey.size).toBe(16);
    for (const offsets of perKey.values()) expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    expect([...perKey.values()].flat().sort((a, b) => a - b)).toEqual(keys.map((_, i) => i));
    target.reply = () => ({ status: 200 });
  });

  it('shares partitions between two dispatchers through the leases: never two at once on one partition', async () => {
    const topic: TopicMetadata = await createTopic(ctx, 'shared', 4);
    target.reply = (b) => (b.subscription === 'shared' ? { status: 200, delayMs: 5 } : { status: 200 });
    const sub = await subscribe({ name: 'shared', topic: 'shared', batchSize: 5 });
    // Each may hold at most half the partitions: dispatchers do not balance among themselves, so an
    // uncapped one that polls first could lease all four and leave the other nothing to share.
    dispatch({ subscriptions: ['shared'], ownerId: 'one', maxPartitions: 2 });
    dispatch({ subscriptions: ['shared'], ownerId: 'two', maxPartitions: 2 });
    for (let round = 0; round < 3; round++) for (let p = 0; p < 4; p++) await appendValues(ctx, topic, p, Array.from({ length: 20 }, (_, i) => `r${round}-${i}`));
    await waitFor(async () => (await committedOffsets(sub.group)).join() === '60,60,60,60', 'the commits at the log end');
    expect(new Set((await listDeliveryLeases(ctx, 'shared')).map((l) => l.owner))).toEqual(new Set(['one', 'two']));
    for (let p = 0; p < 4; p++) {
      expect(target.maxInFlight.get(`shared#${p}`)).toBe(1);
      const offsets = target.accepted('shared').filter((b) => b.partition === p).flatMap((b) => b.offsets);
      expect(offsets).toEqual(Array.from({ length: 60 }, (_, i) => i));
    }
    target.reply = () => ({ status: 200 });
  });

  it('delivers a new record to an idle target within a second, and nothing of a disabled subscription', async () => {
    const topic = await createTopic(ctx, 'tail', 2);
    await subscribe({ name: 'tail', topic: 'tail' });
    await subscribe({ name: 'tail-off', topic: 'tail', enabled: false });
    dispatch({ pollIntervalMs: 100, subscriptions: ['tail', 'tail-off'] });
    await waitFor(async () => (await listDeliveryLeases(ctx, 'tail')).filter((l) => l.owner).length === 2, 'both partitions leased');
    // From the append's acknowledgment to the request's arrival. The machine running the tests
    // may be loaded (its emulators share the CPU with every test file), so the best of three
    // shows the latency and each one has a loose bound; bench measures p50 and p99.
    const latencies: number[] = [];
    for (let i = 0; i < 3; i++) {
      const offset = await appendValues(ctx, topic, i % 2, [`tail-${i}`]);
      const acknowledged = Date.now();
      await waitFor(() => target.accepted('tail').some((b) => b.values.includes(`tail-${i}`)), `record ${i} delivered`, 5_000);
      const arrived = target.accepted('tail').find((b) => b.values.includes(`tail-${i}`))!;
      expect(arrived.offsets).toEqual([offset]);
      latencies.push(arrived.startedAt - acknowledged);
    }
    expect(Math.min(...latencies)).toBeLessThan(1_000);
    expect(target.received.filter((b) => b.subscription === 'tail-off')).toEqual([]);
    expect(await listDeliveryLeases(ctx, 'tail-off')).toEqual([]);
  });

  it('runDispatcherFor works until its deadline, then commits, hands its leases on and reports', async () => {
    const topic = await createTopic(ctx, 'timed', 2);
    await appendValues(ctx, topic, 0, ['a', 'b', 'c']);
    await appendValues(ctx, topic, 1, ['d']);
    const sub = await subscribe({ name: 'timed', topic: 'timed' });
    // A worker stops delivering once its lease is within a fifth of expiring (its renewal late), and
    // the dispatcher takes the lease again: with `fast`'s 3 s leases a loaded machine can do that
    // within the run. 10 s leases keep this test about the deadline and the hand-over.
    const slow = { ...fast, leaseMs: 10_000 };
    const report = await runDispatcherFor(ctx, { ...slow, subscriptions: ['timed'], deadlineMs: ctx.now() + 2_500 });
    expect(report).toMatchObject({ leasesTaken: 2, recordsDelivered: 4, deliveryFailures: 0, onFailureRecords: 0, errors: 0 });
    expect(await committedOffsets(sub.group)).toEqual([3, 1]);
    const leases = await listDeliveryLeases(ctx, 'timed');
    expect(leases.map((l) => [l.partition, l.owner, l.expiresAt])).toEqual([
      [0, undefined, 0],
      [1, undefined, 0],
    ]);
    // The next run takes the leases at once, with new epochs, and goes on from the commits.
    await appendValues(ctx, topic, 1, ['e']);
    const next = await runDispatcherFor(ctx, { ...slow, subscriptions: ['timed'], deadlineMs: ctx.now() + 1_500 });
    expect(next).toMatchObject({ leasesTaken: 2, recordsDelivered: 1 });
    expect((await listDeliveryLeases(ctx, 'timed')).map((l) => l.epoch)).toEqual([2, 2]);
    expect(target.accepted('timed').flatMap((b) => b.values).sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});
