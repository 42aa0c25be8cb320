// A writer dies before or after each AWS call of its appends (cold, warm, and the spill of STATE's
// tail into a SEG item); a new process takes
// the lease after expiry and appends. Whatever the crash point, the log must hold exactly the
// acknowledged batches at their acknowledged offsets, densely, plus at most the one batch whose
// commit reached DynamoDB before the crash (committed, just never acknowledged), all-or-nothing.
// The same holds per partition for requests that append to several partitions in one object.
import { describe, expect, it } from 'vitest';
import { createContext, type SluiceContext } from '../../lib/context.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { TAIL_MAX_RANGES } from '../../lib/log/partition-tail.js';
import { readRecords } from '../../lib/log/read.js';
import { createTestContext, emulatorClients } from '../support/storage.js';
import { readAll as readPartition } from './read-all.js';
import { crashError, isCommit, observeSdk, type SdkCall } from './sdk-faults.js';

interface Batch {
  readonly values: string[];
}

function process(shared: SluiceContext, leaseMs: number, leaseWaitMs: number): SluiceContext {
  return createContext(emulatorClients(), { bucket: shared.bucket, table: shared.table, leaseMs, leaseWaitMs, graceMs: 1000 });
}

async function appendBatch(ctx: SluiceContext, topic: string, batch: Batch) {
  const [result] = await appendToPartitions(ctx, topic, [
    { partition: 0, records: batch.values.map((v, i) => ({ timestamp: i, key: null, value: Buffer.from(v) })) },
  ]);
  return result;
}

async function readAll(ctx: SluiceContext, topic: string) {
  const values: string[] = [];
  let offset = 0;
  for (;;) {
    const read = await readRecords(ctx, topic, 0, { offset, maxBytes: 1 << 20 });
    read.records.forEach((r, i) => {
      expect(r.offset).toBe(offset + i);
      values.push(r.value!.toString());
    });
    if (read.nextOffset === read.highWatermark) return { values, highWatermark: read.highWatermark };
    offset = read.nextOffset;
  }
}

describe('crash at every step of the append protocol', () => {
  it('never loses an acknowledged record or exposes a partial or unacknowledged-and-uncommitted one', async () => {
    const shared = await createTestContext();
    // Enough appends for STATE's tail to spill once (TAIL_MAX_RANGES ranges, then one more).
    const script: Batch[] = Array.from({ length: TAIL_MAX_RANGES + 2 }, (_, i) => ({
      values: Array.from({ length: 1 + (i % 3) }, (_, j) => `${String.fromCharCode(97 + i)}${j}`),
    }));

    // Dry run: cold acquire, then per append PutObject + commit, and the spill's PutItem once.
    const dry = process(shared, 300, 1000);
    const drySdk = observeSdk(dry);
    for (const batch of script) expect(await appendBatch(dry, 'dry', batch)).toHaveProperty('baseOffset');
    const steps = drySdk.calls.length;
    expect(steps).toBe(1 + 2 * script.length + 1);
    expect(drySdk.calls.filter((c) => c.command === 'PutItem')).toHaveLength(1);

    const scenarios = Array.from({ length: steps }, (_, i) => i + 1).flatMap((step) => (['before', 'after'] as const).map((when) => ({ step, when })));
    // Scenarios are independent topics and processes; run them together so lease waits overlap.
    await Promise.all(
      scenarios.map(async ({ step, when }) => {
        const topic = `crash-${step}-${when}`;
        const writer = process(shared, 300, 1000);
        const sdk = observeSdk(writer);
        let crashedOnCommit = false;
        sdk.fault = (call, index) => {
          if (index !== step) return undefined;
          sdk.crashed = true;
          crashedOnCommit = isCommit(call);
          return { when, error: crashError() };
        };

        const acked: { baseOffset: number; values: string[] }[] = [];
        let unacked: Batch | undefined;
        for (const batch of script) {
          const result = await appendBatch(writer, topic, batch);
          if ('error' in result) {
            expect(result.error.retriable).toBe(true);
            unacked = batch;
            break;
          }
          acked.push({ baseOffset: result.baseOffset, values: batch.values });
        }
        expect(sdk.crashed).toBe(true);
        expect(unacked).toBeDefined();

        // The successor waits out the dead writer's lease, then appends.
        const successor = process(shared, 300, 3000);
        const next: Batch = { values: ['z0'] };
        const result = await appendBatch(successor, topic, next);
        if ('error' in result) throw result.error;

        const { values, highWatermark } = await readAll(successor, topic);
        const committedUnacked = when === 'after' && crashedOnCommit;
        const expected = [...acked.flatMap((a) => a.values), ...(committedUnacked ? unacked!.values : []), ...next.values];
        expect(values, `${topic}`).toEqual(expected);
        expect(highWatermark).toBe(expected.length);
        let offset = 0;
        for (const a of acked) {
          expect(a.baseOffset).toBe(offset);
          offset += a.values.length;
        }
        expect(result.baseOffset).toBe(expected.length - 1);
      }),
    );
  });

  it('per partition, for requests appending to two partitions in one object, whichever call the crash hits', async () => {
    const shared = await createTestContext();
    const requests: Record<number, string[]>[] = [
      { 0: ['a0', 'a1'], 1: ['x0'] },
      { 0: ['b0'], 1: ['y0', 'y1'] },
    ];
    const send = (ctx: SluiceContext, topic: string, request: Record<number, string[]>) =>
      appendToPartitions(
        ctx,
        topic,
        Object.entries(request).map(([p, values]) => ({
          partition: Number(p),
          records: values.map((v, i) => ({ timestamp: i, key: null, value: Buffer.from(v) })),
        })),
      );

    // Dry run: cold (2 leases, object, 2 commits) then warm (object, 2 commits).
    const dry = process(shared, 300, 1000);
    const drySdk = observeSdk(dry);
    for (const request of requests) expect((await send(dry, 'dry', request)).every((r) => 'baseOffset' in r)).toBe(true);
    const steps = drySdk.calls.length;
    expect(steps).toBe(8);

    const scenarios = Array.from({ length: steps }, (_, i) => i + 1).flatMap((step) => (['before', 'after'] as const).map((when) => ({ step, when })));
    // Scenarios are independent topics and processes; run them together so lease waits overlap.
    await Promise.all(
      scenarios.map(async ({ step, when }) => {
        const topic = `multi-${step}-${when}`;
        const writer = process(shared, 300, 1000);
        const sdk = observeSdk(writer);
        let crashedCall: SdkCall | undefined;
        sdk.fault = (call, index) => {
          if (index !== step) return undefined;
          sdk.crashed = true;
          crashedCall = call;
          return { when, error: crashError() };
        };
        const acked: Record<number, string[]> = { 0: [], 1: [] };
        const unacked: Record<number, string[]> = { 0: [], 1: [] };
        for (const request of requests) {
          const results = await send(writer, topic, request);
          for (const r of results) {
            if ('error' in r) {
              expect(r.error.retriable).toBe(true);
              unacked[r.partition] = request[r.partition];
            } else {
              expect(r.baseOffset).toBe(acked[r.partition].length);
              acked[r.partition].push(...request[r.partition]);
            }
          }
          if (results.some((r) => 'error' in r)) break;
        }
        expect(sdk.crashed).toBe(true);

        const successor = process(shared, 300, 3000);
        const next = await send(successor, topic, { 0: ['c0'], 1: ['z0'] });
        expect(next.every((r) => 'baseOffset' in r)).toBe(true);
        for (const partition of [0, 1]) {
          const committedUnacked =
            when === 'after' && isCommit(crashedCall!) && String((crashedCall!.input.Key as { pk: string }).pk).endsWith(`#${partition}`);
          const expected = [...acked[partition], ...(committedUnacked ? unacked[partition] : []), partition === 0 ? 'c0' : 'z0'];
          const { records } = await readPartition(successor, topic, partition);
          expect(records.map((r) => r.value!.toString()), `${topic} partition ${partition}`).toEqual(expected);
        }
      }),
    );
  });
});
