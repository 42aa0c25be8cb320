// The sweep: objects no manifest item references (a crashed writer's, compaction's and
// retention's leftovers, shared produce objects whose ranges were rewritten) are deleted after the
// grace period, never while a writer may still commit them or any partition still points at
// them; a topic deletion interrupted by a crash is finished by the job.
import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createContext, type SluiceContext } from '../../lib/context.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { TAIL_MAX_AGE_MS } from '../../lib/log/partition-tail.js';
import { partitionPk, topicKey } from '../../lib/metadata/keys.js';
import { createTopic, deleteTopic } from '../../lib/metadata/topics.js';
import { createTestContext, emulatorClients } from '../support/storage.js';
import {
  appendValues,
  bucketKeys,
  type ClockedContext,
  expectConsistentPartition,
  referencedObjectKeys,
  runOnce,
  withClock,
} from './maintenance-support.js';
import { crashError, isCommit, observeSdk } from './sdk-faults.js';

const referencedKeys = referencedObjectKeys;

/**
 * Three runs a grace period apart: a run marks what is unreferenced when its sweep looks (tasks
 * run concurrently, so a merge may finish after the sweep looked), a later one deletes it.
 */
async function settle(ctx: ClockedContext) {
  for (let run = 0; run < 3; run++) {
    ctx.advance(ctx.graceMs + 100);
    expect((await runOnce(ctx)).errors).toEqual([]);
  }
}

describe('cleanup', () => {
  it("deletes a crashed writer's object once the base moved past it, never before", async () => {
    const ctx = withClock(await createTestContext({ graceMs: 300, leaseMs: 1000 }));
    const topic = 'orphans';
    await createTopic(ctx, topic, 1);
    const expected = new Map([[await appendValues(ctx, topic, ['v0']), 'v0']]);

    // Another process appends and dies just before its commit: object and item, never committed.
    const doomed = createContext(emulatorClients(), { bucket: ctx.bucket, table: ctx.table, leaseMs: 1000 });
    const sdk = observeSdk(doomed);
    sdk.fault = (call) => {
      if (!isCommit(call)) return undefined;
      sdk.crashed = true;
      return { when: 'before', error: crashError() };
    };
    const [lost] = await appendToPartitions(doomed, topic, [{ partition: 0, records: [{ timestamp: ctx.now(), key: null, value: Buffer.from('lost') }] }]);
    expect(lost).toHaveProperty('error');
    const orphan = (await bucketKeys(ctx)).find((k) => !k.includes(`/${'0'.repeat(20)}-`))!;
    expect(orphan).toMatch(new RegExp(`^${topic}/0/${'0'.repeat(19)}1-`));

    // At the log end a writer may still commit it: kept, however old.
    await settle(ctx);
    expect(await bucketKeys(ctx)).toContain(orphan);

    // Once another writer committed that base, nothing can ever reference it: deleted after grace.
    ctx.advance(2000); // the dead process's lease expires
    expected.set(await appendValues(ctx, topic, ['v1']), 'v1');
    await settle(ctx);
    expect(await bucketKeys(ctx)).toEqual((await referencedKeys(ctx, topic, 1)).sort());
    expect(await bucketKeys(ctx)).not.toContain(orphan);
    await expectConsistentPartition(ctx, topic, expected);
  });

  it('keeps shared produce objects while any partition references them, deletes them after compaction rewrote them', async () => {
    const ctx = withClock(await createTestContext({ graceMs: 300 }));
    const topic = 'shared';
    await createTopic(ctx, topic, 2);
    // A topic whose folder is the shared folder's name must not sweep other topics' objects.
    await createTopic(ctx, '_produce', 1);
    await appendValues(ctx, '_produce', ['own']);
    const expected = [new Map<number, string>(), new Map<number, string>()];
    for (let i = 0; i < 4; i++) {
      const results = await appendToPartitions(ctx, topic, [0, 1].map((partition) => ({
        partition,
        records: [{ timestamp: ctx.now(), key: null, value: Buffer.from(`p${partition}-${i}`) }],
      })));
      results.forEach((r, partition) => {
        if ('error' in r) throw r.error;
        expected[partition].set(r.baseOffset, `p${partition}-${i}`);
      });
    }
    const sharedBefore = (await bucketKeys(ctx)).filter((k) => k.startsWith('_produce/') && !k.startsWith('_produce/0/'));
    expect(sharedBefore).toHaveLength(4);

    // Listed only in the partitions' STATE tails: kept however long the sweep waits.
    await settle(ctx);
    expect(await bucketKeys(ctx)).toEqual(expect.arrayContaining(sharedBefore));

    // Idle past the tail's age: maintenance spills each tail, compaction rewrites the spilled
    // ranges into one per-partition segment, and the shared objects go a grace period later.
    ctx.advance(TAIL_MAX_AGE_MS);
    await settle(ctx);
    for (const p of [0, 1]) {
      const { chain } = await expectConsistentPartition(ctx, topic, expected[p], { partition: p });
      expect(chain.map((i) => [i.baseOffset, i.lastOffset])).toEqual([[0, 3]]);
      expect(chain[0].objectKey.startsWith(`${topic}/${p}/`)).toBe(true);
    }
    const keys = await bucketKeys(ctx);
    expect(keys).toEqual([...(await referencedKeys(ctx, topic, 2)), ...(await referencedKeys(ctx, '_produce', 1))].sort());
    for (const gone of sharedBefore) expect(keys).not.toContain(gone);
  });

  it('finishes a topic deletion that crashed after the topic item was deleted', async () => {
    const ctx = withClock(await createTestContext({ graceMs: 300 }));
    await createTopic(ctx, 'kept', 1);
    const kept = new Map([[await appendValues(ctx, 'kept', ['k']), 'k']]);
    await createTopic(ctx, 'doomed', 2);
    for (let i = 0; i < 3; i++) for (const p of [0, 1]) await appendValues(ctx, 'doomed', [`d${i}`], ctx.now(), p);
    // The deletion died right after its first step.
    await ctx.ddb.send(new DeleteCommand({ TableName: ctx.table, Key: topicKey('doomed') }));
    // Its partitions' leases must have expired a grace period ago before STATE goes.
    ctx.advance(ctx.leaseMs);

    await settle(ctx);
    expect((await bucketKeys(ctx)).filter((k) => k.startsWith('doomed/'))).toEqual([]);
    for (const p of [0, 1]) {
      const left = await ctx.ddb.send(
        new QueryCommand({ TableName: ctx.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': partitionPk('doomed', p) } }),
      );
      expect(left.Items).toEqual([]);
    }
    await expectConsistentPartition(ctx, 'kept', kept);
    expect((await bucketKeys(ctx)).length).toBe(1);
  });
  it('deleting a topic deletes its objects and items; its shared produce objects go once unreferenced', async () => {
    const ctx = withClock(await createTestContext({ graceMs: 300 }));
    await createTopic(ctx, 'other', 1);
    const other = new Map([[await appendValues(ctx, 'other', ['o']), 'o']]);
    await createTopic(ctx, 'gone', 3);
    for (let i = 0; i < 3; i++) {
      const results = await appendToPartitions(ctx, 'gone', [0, 1, 2].map((partition) => ({
        partition,
        records: [{ timestamp: ctx.now(), key: null, value: Buffer.from(`g${i}`) }],
      })));
      for (const r of results) if ('error' in r) throw r.error;
    }
    ctx.advance(TAIL_MAX_AGE_MS);
    await settle(ctx); // the idle tails spill, and compaction rewrites them into per-partition segments
    expect((await bucketKeys(ctx)).some((k) => k.startsWith('gone/'))).toBe(true);
    // A last append leaves a shared object listed in the partitions' tails.
    await appendToPartitions(ctx, 'gone', [0, 1, 2].map((partition) => ({ partition, records: [{ timestamp: ctx.now(), key: null, value: Buffer.from('g3') }] })));
    expect((await bucketKeys(ctx)).some((k) => k.startsWith('_produce/'))).toBe(true);

    await deleteTopic(ctx, 'gone');
    expect((await bucketKeys(ctx)).filter((k) => k.startsWith('gone/'))).toEqual([]);
    for (const p of [0, 1, 2]) {
      const left = await ctx.ddb.send(
        new QueryCommand({ TableName: ctx.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': partitionPk('gone', p) } }),
      );
      expect(left.Items).toEqual([]);
    }
    await settle(ctx);
    expect(await bucketKeys(ctx)).toEqual((await referencedKeys(ctx, 'other', 1)).sort());
    await expectConsistentPartition(ctx, 'other', other);
  });
});
