// A writer process dies before or after each AWS request of its appends, and another process
// carries on. Appends take no lease, so the successor never waits for the dead one.
//   - The append matrix of test/proof/faults.ts (appendFaultMatrix: every request of plain and
//     idempotent appends, of the spill the writer does after filling the tail, and of the spill it
//     adopts from a dead spiller) with crash-before and crash-after: invariants hold, idempotent
//     batches retried on the successor land exactly once, the next append succeeds.
//   - Requests appending to two partitions in one intake object: per partition, the log holds
//     exactly the acknowledged batches at their acknowledged offsets, plus the unacknowledged batch
//     if and only if DynamoDB applied that partition's commit before the crash, whole.
import { describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { createTopic } from '../../lib/metadata/topics.js';
import type { TopicRef } from '../../lib/metadata/types.js';
import { type FaultKind, appendFaultMatrix, inParallel } from '../proof/faults.js';
import { readLog, startProcess, toRecords } from '../proof/processes.js';
import { createTestContext } from '../support/storage.js';
import { crashError, isCommit, observeSdk, partitionOf } from './sdk-faults.js';

describe('crash at every request of an append', () => {
  it.each(['crash-before', 'crash-after'] as const)(
    '%s at every request: invariants hold, idempotent batches land once on the successor, the next append succeeds',
    async (kind: FaultKind) => appendFaultMatrix(await createTestContext(), kind),
  );
});

describe('crash during a request appending to two partitions', () => {
  const requests: Record<number, string[]>[] = [
    { 0: ['a0', 'a1'], 1: ['x0'] },
    { 0: ['b0'], 1: ['y0', 'y1'] },
  ];
  const send = (ctx: SluiceContext, topic: TopicRef, request: Record<number, string[]>) =>
    appendToPartitions(
      ctx,
      topic,
      Object.entries(request).map(([p, values]) => ({ partition: Number(p), records: toRecords(values) })),
    );

  it('per partition: acknowledged batches at their offsets, the unacknowledged one iff its commit was applied', async () => {
    const shared = await createTestContext();
    // Dry run: per request one intake object, then one commit per partition.
    const dryTopic = await createTopic(shared, 'dry', 2);
    const dry = startProcess(shared);
    const drySdk = observeSdk(dry);
    for (const request of requests) expect((await send(dry, dryTopic, request)).every((r) => 'baseOffset' in r)).toBe(true);
    expect(drySdk.calls.map((c) => c.command)).toEqual(['PutObject', 'UpdateItem', 'UpdateItem', 'PutObject', 'UpdateItem', 'UpdateItem']);
    const steps = drySdk.calls.length;

    const scenarios = Array.from({ length: steps }, (_, i) => i + 1).flatMap((step) => (['before', 'after'] as const).map((when) => ({ step, when })));
    await inParallel(scenarios, 6, async ({ step, when }) => {
      const topic = await createTopic(shared, `multi-${step}-${when}`, 2);
      const writer = startProcess(shared);
      const sdk = observeSdk(writer);
      sdk.fault = (_call, index) => {
        if (index !== step) return undefined;
        sdk.crashed = true;
        return { when, error: crashError() };
      };
      const acked: Record<number, string[]> = { 0: [], 1: [] };
      const unacked: Record<number, string[]> = { 0: [], 1: [] };
      for (const request of requests) {
        const results = await send(writer, topic, request);
        for (const r of results) {
          if ('error' in r) {
            expect(r.error.retriable, `${topic.name}: ${r.error.code}`).toBe(true);
            unacked[r.partition] = request[r.partition];
          } else {
            expect(r.baseOffset).toBe(acked[r.partition].length);
            acked[r.partition].push(...request[r.partition]);
          }
        }
        if (results.some((r) => 'error' in r)) break;
      }
      expect(sdk.crashed).toBe(true);

      // The successor appends at once: no lease to wait for.
      const successor = startProcess(shared);
      const started = Date.now();
      const next = await send(successor, topic, { 0: ['c0'], 1: ['z0'] });
      expect(Date.now() - started).toBeLessThan(2000);
      for (const partition of [0, 1]) {
        // The failed request's commit for this partition (after its intake PutObject), if it was sent.
        const lastPut = sdk.calls.map((c) => c.command).lastIndexOf('PutObject');
        const commit = sdk.calls.slice(lastPut).find((c) => isCommit(c) && partitionOf(c) === partition);
        const applied = unacked[partition].length > 0 && commit?.outcome === 'applied';
        const expected = [...acked[partition], ...(applied ? unacked[partition] : []), partition === 0 ? 'c0' : 'z0'];
        const { records } = await readLog(successor, topic, partition);
        expect(records.map((r) => r.value), `${topic.name} partition ${partition}`).toEqual(expected);
        expect(records.map((r) => r.offset)).toEqual(expected.map((_, i) => i));
        expect(next[partition]).toEqual({ partition, baseOffset: expected.length - 1, count: 1 });
      }
    });
  });
});
