// docs/ARCHITECTURE.md lists every DynamoDB attribute and S3 key pattern the code writes. This test
// runs a workload that exercises every writer (topics, partitions, plain and idempotent appends,
// spills and a spill adoption, fetches, maintenance with merges, retention, idle producers, a
// compacted topic's cleaning, the sweep and its cursor, producer ids, groups and offsets) with an SDK middleware recording every
// attribute name written and every object key put, then checks both directions against the
// document's item and object tables:
//   - every written attribute is listed under the item whose key pattern matches the write, and
//     every object key matches a listed pattern (the code writes nothing undocumented);
//   - every listed attribute and pattern was written (the document lists nothing stale).
// Attribute names come from the writes themselves (Put items' keys; UpdateExpression SET, ADD,
// REMOVE and DELETE paths resolved through ExpressionAttributeNames, nested paths reduced to their
// top-level attribute), never from a list kept here, so a rename in the code fails this test until
// the document follows.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { deleteTopic } from '../../lib/log/delete-topic.js';
import { runMaintenance } from '../../lib/log/maintenance.js';
import { readRecords } from '../../lib/log/read.js';
import { spillItem, spillTail } from '../../lib/log/spill.js';
import { putSpillItem } from '../../lib/metadata/manifest.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { allocateProducerId } from '../../lib/metadata/producer-ids.js';
import { alterTopicConfig } from '../../lib/metadata/alter-topic-config.js';
import { addPartitions, createTopic } from '../../lib/metadata/topics.js';
import type { TopicRef } from '../../lib/metadata/types.js';
import { deleteGroup } from '../../lib/groups/delete-group.js';
import { joinClassicGroup } from '../../lib/groups/classic-join.js';
import { leaveClassicGroup } from '../../lib/groups/classic-leave.js';
import { commitKafkaOffsets } from '../../lib/groups/classic-offsets.js';
import { syncClassicGroup } from '../../lib/groups/classic-sync.js';
import { encodeAssignment, encodeSubscription } from '../../lib/groups/consumer-protocol.js';
import { heartbeat, joinGroup, leaveGroup } from '../../lib/groups/membership.js';
import { commitOffsets } from '../../lib/groups/offsets.js';
import { resetOffsets } from '../../lib/groups/reset-offsets.js';
import { acquireDeliveryLease, releaseDeliveryLease, renewDeliveryLease } from '../../lib/subscriptions/delivery-lease.js';
import { createSubscription, deleteSubscription } from '../../lib/subscriptions/subscription-store.js';
import { createTestContext } from '../support/storage.js';
import { withClock } from '../log/maintenance-support.js';

const DOC_PATH = new URL('../../docs/ARCHITECTURE.md', import.meta.url);

// ---------------------------------------------------------------------------------------------
// The document's tables

export interface DocumentedItem {
  /** The heading's key pattern, e.g. `PART#<topic>#<topicId>#<partition>` / `STATE`. */
  readonly pk: string;
  readonly sk: string;
  readonly attributes: ReadonlySet<string>;
}

export interface ArchitectureTables {
  readonly items: readonly DocumentedItem[];
  readonly objectPatterns: readonly string[];
}

/** The lines of the `## <title>` section (up to the next `## ` heading). */
function section(markdown: string, title: string): string[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => l.trim() === `## ${title}`);
  if (start < 0) throw new Error(`docs/ARCHITECTURE.md has no '## ${title}' section`);
  const end = lines.findIndex((l, i) => i > start && /^## /.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The first cell of a table row when it is a code span (`name`), else undefined. */
const firstCodeCell = (line: string) => /^\|\s*`([^`]+)`\s*\|/.exec(line)?.[1];

/** `producers.<id>.lastUpdated`, `tail[0]` → `producers`, `tail`. */
export const topLevel = (path: string) => path.split(/[.[]/, 1)[0].trim();

/**
 * Parses the `## DynamoDB items` section (each item a `### \`<pk>\` / \`<sk>\`` heading followed
 * by a table whose first column names an attribute) and the `## S3 objects` table (first column:
 * a key pattern).
 */
export function parseArchitecture(markdown: string): ArchitectureTables {
  const items: { pk: string; sk: string; attributes: Set<string> }[] = [];
  let current: (typeof items)[number] | undefined;
  for (const line of section(markdown, 'DynamoDB items')) {
    const heading = /^### `([^`]+)` \/ `([^`]+)`/.exec(line);
    if (heading) {
      current = { pk: heading[1], sk: heading[2], attributes: new Set() };
      items.push(current);
      continue;
    }
    if (/^#{3,} /.test(line)) {
      current = undefined; // a subsection without a key is no item's
      continue;
    }
    const name = firstCodeCell(line);
    if (current && name) current.attributes.add(topLevel(name));
  }
  const objectPatterns = section(markdown, 'S3 objects').flatMap((line) => firstCodeCell(line) ?? []);
  return { items, objectPatterns };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `<placeholder>` matches anything (`placeholder`: what it may contain); the rest is literal. */
export function patternRegExp(pattern: string, placeholder = '.+'): RegExp {
  return new RegExp(`^${pattern.split(/(<[^>]+>)/).map((part) => (/^<[^>]+>$/.test(part) ? placeholder : escapeRegExp(part))).join('')}$`);
}

// ---------------------------------------------------------------------------------------------
// What the code writes

export interface AttributeWrite {
  readonly pk: string;
  readonly sk: string;
  /** Top-level attribute names written, pk and sk excluded. */
  readonly attributes: readonly string[];
}

/** Splits on commas outside parentheses (`list_append(#a, :b), #c = :d`). */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

/** Top-level attribute names an UpdateExpression writes (SET, REMOVE, ADD and DELETE actions). */
export function updatedAttributes(expression: string, names: Readonly<Record<string, string>> = {}): string[] {
  const out = new Set<string>();
  // Clause keywords are DynamoDB reserved words, so they never appear as raw attribute names.
  const tokens = expression.split(/\b(SET|REMOVE|ADD|DELETE)\b/i);
  for (let i = 1; i < tokens.length; i += 2) {
    const clause = tokens[i].toUpperCase();
    for (const action of splitTopLevel(tokens[i + 1] ?? '')) {
      const path = clause === 'SET' ? action.split('=', 1)[0] : clause === 'REMOVE' ? action : action.split(/\s+/, 1)[0];
      const head = topLevel(path);
      if (head.startsWith('#')) {
        const resolved = names[head];
        if (resolved === undefined) throw new Error(`'${head}' of '${expression}' is not in ExpressionAttributeNames`);
        out.add(resolved);
      } else {
        out.add(head);
      }
    }
  }
  return [...out];
}

/** A key attribute's value, marshalled ({S: ...}) or not. */
const keyString = (value: unknown): string =>
  typeof value === 'string' ? value : typeof (value as { S?: unknown })?.S === 'string' ? (value as { S: string }).S : String(value);

const KEY_ATTRIBUTES = new Set(['pk', 'sk']);

function putWrite(item: Record<string, unknown>): AttributeWrite {
  return { pk: keyString(item.pk), sk: keyString(item.sk), attributes: Object.keys(item).filter((a) => !KEY_ATTRIBUTES.has(a)) };
}

function updateWrite(update: { Key: Record<string, unknown>; UpdateExpression: string; ExpressionAttributeNames?: Record<string, string> }): AttributeWrite {
  return {
    pk: keyString(update.Key.pk),
    sk: keyString(update.Key.sk),
    attributes: updatedAttributes(update.UpdateExpression, update.ExpressionAttributeNames).filter((a) => !KEY_ATTRIBUTES.has(a)),
  };
}

/** The attribute writes one DynamoDB request makes, whatever the operation (by the input's shape). */
export function attributeWrites(input: Record<string, unknown>): AttributeWrite[] {
  const writes: AttributeWrite[] = [];
  if (input.Item) writes.push(putWrite(input.Item as Record<string, unknown>));
  if (typeof input.UpdateExpression === 'string') writes.push(updateWrite(input as never));
  for (const requests of Object.values((input.RequestItems ?? {}) as Record<string, unknown>)) {
    if (!Array.isArray(requests)) continue;
    for (const r of requests as { PutRequest?: { Item: Record<string, unknown> } }[]) if (r.PutRequest) writes.push(putWrite(r.PutRequest.Item));
  }
  for (const t of (input.TransactItems ?? []) as { Put?: { Item: Record<string, unknown> }; Update?: never }[]) {
    if (t.Put) writes.push(putWrite(t.Put.Item));
    if (t.Update) writes.push(updateWrite(t.Update));
  }
  return writes;
}

export interface WriteRecorder {
  readonly attributeWrites: AttributeWrite[];
  readonly objectKeys: string[];
}

const S3_WRITES = /^(PutObject|CopyObject|CreateMultipartUpload)/;

/** Records every attribute write and object key the context's clients send from now on. */
export function recordWrites(ctx: SluiceContext): WriteRecorder {
  const recorder: WriteRecorder = { attributeWrites: [], objectKeys: [] };
  const add = (stack: unknown, onInput: (input: Record<string, unknown>, command: string) => void) =>
    (stack as { add: (m: unknown, o: unknown) => void }).add(
      (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: { input: Record<string, unknown> }) => {
        onInput(args.input, context.commandName ?? '');
        return next(args);
      },
      { step: 'initialize', priority: 'high', name: `architectureDocRecorder${Math.random()}` },
    );
  add(ctx.ddb.middlewareStack, (input) => recorder.attributeWrites.push(...attributeWrites(input)));
  add(ctx.s3.middlewareStack, (input, command) => {
    if (S3_WRITES.test(command) && typeof input.Key === 'string') recorder.objectKeys.push(input.Key);
  });
  return recorder;
}

// ---------------------------------------------------------------------------------------------
// The comparison

/** What the document does not cover of the writes: one line per undocumented attribute or key. */
export function undocumentedWrites(doc: ArchitectureTables, writes: readonly AttributeWrite[], objectKeys: readonly string[], prefix = ''): string[] {
  const problems = new Set<string>();
  for (const w of writes) {
    const items = doc.items.filter((i) => patternRegExp(i.pk).test(w.pk) && patternRegExp(i.sk).test(w.sk));
    if (items.length === 0) {
      problems.add(`item ${w.pk} / ${w.sk}: no item of docs/ARCHITECTURE.md has this key`);
      continue;
    }
    for (const a of w.attributes) {
      if (!items.some((i) => i.attributes.has(a))) problems.add(`attribute '${a}' of ${items.map((i) => `${i.pk} / ${i.sk}`).join(' or ')} is not documented`);
    }
  }
  const patterns = doc.objectPatterns.map((p) => patternRegExp(`${prefix ? `${prefix}/` : ''}${p}`, '[^/]+'));
  for (const key of objectKeys) if (!patterns.some((p) => p.test(key))) problems.add(`object key '${key}' matches no documented pattern`);
  return [...problems].sort();
}

/** What the document lists that the writes never touched. */
export function unwrittenDocumentation(doc: ArchitectureTables, writes: readonly AttributeWrite[], objectKeys: readonly string[]): string[] {
  const problems: string[] = [];
  for (const item of doc.items) {
    const matching = writes.filter((w) => patternRegExp(item.pk).test(w.pk) && patternRegExp(item.sk).test(w.sk));
    if (matching.length === 0) {
      problems.push(`item ${item.pk} / ${item.sk}: never written`);
      continue;
    }
    const written = new Set(matching.flatMap((w) => w.attributes));
    for (const a of item.attributes) if (!written.has(a)) problems.push(`attribute '${a}' of ${item.pk} / ${item.sk}: never written`);
  }
  for (const pattern of doc.objectPatterns) {
    if (!objectKeys.some((k) => patternRegExp(pattern, '[^/]+').test(k))) problems.push(`object pattern '${pattern}': never written`);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------

const doc = () => parseArchitecture(readFileSync(DOC_PATH, 'utf8'));

describe('the checker', () => {
  it('reads the item and object tables of docs/ARCHITECTURE.md', () => {
    const { items, objectPatterns } = doc();
    const state = items.find((i) => i.sk === 'STATE');
    expect(state?.pk).toBe('PART#<topic>#<topicId>#<partition>');
    expect([...state!.attributes]).toEqual(expect.arrayContaining(['tail', 'tailBase', 'producers', 'owner', 'epoch']));
    expect(items.map((i) => i.sk)).toEqual(expect.arrayContaining(['<topic>', 'STATE', 'SEG#<base20>', 'META', 'NEXT', 'LEASE']));
    expect(objectPatterns).toEqual(expect.arrayContaining(['_intake/<yyyy-mm-ddTHH>/<ms>-<id>.log', '<topic>-<topicId>/<partition>/<base20>-<segmentId>.timeindex']));
  });

  it('resolves update expressions to top-level attribute names', () => {
    const names = { '#n': 'nextThing', '#tail': 'tail', '#p': 'producers', '#pid': '42', '#b': 'bases', '#s': 'segments' };
    expect(updatedAttributes('SET #n = #n + :c, #tail = list_append(#tail, :e), #p.#pid = :x, #b.#pid = #n ADD #s :one', names).sort()).toEqual(
      ['bases', 'nextThing', 'producers', 'segments', 'tail'],
    );
    expect(updatedAttributes('REMOVE #tail[2], #tail[1], #tail[0] SET #s = #s + :fold', names).sort()).toEqual(['segments', 'tail']);
    expect(updatedAttributes('SET createdAt = :now')).toEqual(['createdAt']);
    expect(() => updatedAttributes('SET #missing = :v')).toThrow(/ExpressionAttributeNames/);
  });

  it('reports a planted undocumented attribute, item and object key, and accepts documented ones', () => {
    const tables = doc();
    const documented: AttributeWrite = { pk: 'PART#orders#AAAAAAAAAAAAAAAAAAAAAA#3', sk: 'STATE', attributes: ['tail', 'tailBase'] };
    const planted: AttributeWrite = { ...documented, attributes: ['tail', 'sneakyCounter'] };
    const nested = attributeWrites({
      Key: { pk: { S: 'GROUP#g' }, sk: { S: 'META' } },
      UpdateExpression: 'SET #m.#id.#x = :v',
      ExpressionAttributeNames: { '#m': 'members', '#id': 'm-1', '#x': 'undocumentedField' },
    });
    expect(nested).toEqual([{ pk: 'GROUP#g', sk: 'META', attributes: ['members'] }]);
    expect(undocumentedWrites(tables, [documented, ...nested], ['_intake/2024-01-02T03/1704164400000-0123456789abcdef.log'])).toEqual([]);
    expect(undocumentedWrites(tables, [planted], [])).toEqual([
      "attribute 'sneakyCounter' of PART#<topic>#<topicId>#<partition> / STATE is not documented",
    ]);
    expect(undocumentedWrites(tables, [{ pk: 'NEWTHING', sk: 'X', attributes: ['a'] }], [])).toEqual([
      'item NEWTHING / X: no item of docs/ARCHITECTURE.md has this key',
    ]);
    expect(undocumentedWrites(tables, [], ['orders-AAAAAAAAAAAAAAAAAAAAAA/0/00000000000000000000-1-abc.snapshot'])).toEqual([
      "object key 'orders-AAAAAAAAAAAAAAAAAAAAAA/0/00000000000000000000-1-abc.snapshot' matches no documented pattern",
    ]);
    const put = attributeWrites({ TableName: 't', Item: { pk: 'PRODUCER', sk: 'NEXT', nextProducerId: 1, plantedSecret: 'x' } });
    expect(undocumentedWrites(tables, put, [])).toEqual(["attribute 'plantedSecret' of PRODUCER / NEXT is not documented"]);
  });
});

describe('the layout', () => {
  it("is named whole by README's layout paragraph and by the document's layers", () => {
    const entries = readdirSync(new URL('../../lib/', import.meta.url)).map((e) => `lib/${e}`);
    const names = (text: string, entry: string) => new RegExp(`\`${escapeRegExp(entry)}/?\``).test(text);
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const layout = readme.slice(readme.indexOf('Code, one folder per layer'));
    const layers = section(readFileSync(DOC_PATH, 'utf8'), 'Layers').join('\n');
    expect(entries.filter((e) => !names(layout, e))).toEqual([]);
    expect(entries.filter((e) => e !== 'lib/index.ts' && !names(layers, e))).toEqual([]);
    expect(layout).toContain('(docs/ARCHITECTURE.md)');
  });
});

/** One batch of one record per value on `partition`, stamped `timestamp`. */
async function append(ctx: SluiceContext, topic: TopicRef, partition: number, timestamp: number, producer?: { producerId: number; producerEpoch: number; baseSequence: number }) {
  const [result] = await appendToPartitions(ctx, topic, [{ partition, producer, records: [{ timestamp, key: null, value: Buffer.from(`v${timestamp}`) }] }]);
  if ('error' in result) throw result.error;
  return result;
}

describe('docs/ARCHITECTURE.md and the code', () => {
  it('lists every DynamoDB attribute and S3 key pattern a representative workload writes, and nothing it does not', async () => {
    const base = await createTestContext({ graceMs: 1000, leaseMs: 2000 });
    const recorder = recordWrites(base);
    const ctx = withClock(base);
    const maintain = () => runMaintenance(ctx, { timeLeftMs: () => 60_000, reserveMs: 0 });
    const HOUR = 3_600_000;

    // Topics: create, then grow.
    await createTopic(ctx, 'orders', 2, { 'retention.ms': HOUR, 'index.interval.bytes': 1 });
    const topic = await addPartitions(ctx, 'orders', 3);
    await alterTopicConfig(ctx, 'orders', { set: { 'segment.ms': 600_000 } });

    // Partition 0: 16 plain appends, spilled twice by the appenders that fill the tail.
    for (let i = 0; i < 16; i++) await append(ctx, topic, 0, ctx.now());
    // Partition 1: an idempotent producer (sequence 0, then 1).
    const { producerId, producerEpoch } = await allocateProducerId(ctx);
    await append(ctx, topic, 1, ctx.now(), { producerId, producerEpoch, baseSequence: 0 });
    await append(ctx, topic, 1, ctx.now(), { producerId, producerEpoch, baseSequence: 1 });
    // ...and a spill whose spiller died between its put and its remove, adopted 11 s later.
    const state1 = await getPartitionState(ctx, topic, 1);
    expect(await putSpillItem(ctx, topic, 1, spillItem(ctx, state1.tailBase, state1.tail))).toBe(true);
    ctx.advance(11_000);
    expect(await spillTail(ctx, topic, state1)).toBe(true);
    // A compacted topic: an update and a tombstone, spilled at once, for the log cleaner.
    const changelog = await createTopic(ctx, 'changelog', 1, { 'cleanup.policy': 'compact' });
    for (const [key, value] of [['a', 'a0'], ['b', 'b0'], ['a', 'a1'], ['b', null]] as const) {
      const [res] = await appendToPartitions(ctx, changelog, [{ partition: 0, records: [{ timestamp: ctx.now(), key: Buffer.from(key), value: value === null ? null : Buffer.from(value) }] }]);
      if ('error' in res) throw res.error;
    }
    expect(await spillTail(ctx, changelog, await getPartitionState(ctx, changelog, 0))).toBe(true);
    // Partition 2: 8 records two hours old (spilled), then 2 recent ones: retention's work.
    for (let i = 0; i < 10; i++) await append(ctx, topic, 2, ctx.now() - (i < 8 ? 2 * HOUR : 0));
    expect((await readRecords(ctx, topic, 0, { offset: 3, maxBytes: 1 << 20 })).records[0].offset).toBe(3);

    // Maintenance, past the grace period and the producers' idle time: a run stopped at once (the
    // cursor), then full runs: idle tails spilled, idle producer removed, retention, merges, sweep.
    ctx.advance(6 * 60_000);
    expect((await runMaintenance(ctx, { timeLeftMs: () => 0, reserveMs: 1 })).outcome).toBe('stopped');
    const first = await maintain();
    expect(first.errors).toEqual([]);
    expect(first.producersRemoved).toBe(1);
    expect(first.retention.segments).toBeGreaterThan(0);
    expect(first.merge.merges).toBeGreaterThan(0);
    // More data on partition 0, merged with its segment: the old segment's objects become garbage.
    for (let i = 0; i < 16; i++) await append(ctx, topic, 0, ctx.now());
    ctx.advance(10_000);
    const second = await maintain();
    expect(second.errors).toEqual([]);
    ctx.advance(10_000);
    const third = await maintain();
    expect(third.errors).toEqual([]);
    expect(third.sweep.deletedObjects).toBeGreaterThan(0);
    // The changelog was spilled, merged, then cleaned: a cleaned segment swapped in.
    // The changelog was merged in the first run and cleaned in a later one (a swap given up on a
    // slow machine is done by the next run).
    let cleaned = first.compaction.recordsRemoved + second.compaction.recordsRemoved + third.compaction.recordsRemoved;
    for (let run = 0; run < 4 && cleaned === 0; run++) {
      ctx.advance(10_000);
      cleaned += (await maintain()).compaction.recordsRemoved;
    }
    expect(cleaned).toBe(2);

    // Groups: join, heartbeat, commit as a member, leave, reset offsets, delete.
    const joined = await joinGroup(ctx, { group: 'billing', clientId: 'c', topics: ['orders'], sessionTimeoutMs: 10_000 });
    await heartbeat(ctx, 'billing', joined.memberId, joined.generation);
    await commitOffsets(ctx, { group: 'billing', memberId: joined.memberId, generation: joined.generation, offsets: [{ topic: 'orders', partition: 0, offset: 5, metadata: 'm' }] });
    await leaveGroup(ctx, 'billing', joined.memberId);
    await resetOffsets(ctx, { group: 'billing', topic: 'orders', to: 'earliest' });
    await deleteGroup(ctx, 'billing');

    // Subscriptions: create one with every option, its delivery leases taken, renewed and handed on, delete it.
    await createTopic(ctx, 'orders.dlq', 1);
    await createSubscription(ctx, {
      name: 'orders-hook',
      topic: 'orders',
      target: { type: 'https', url: 'http://127.0.0.1:9/hook' },
      startingPosition: 'AT_TIMESTAMP',
      startingPositionTimestamp: 0,
      onFailure: { type: 'topic', topic: 'orders.dlq' },
    });
    const lease = await acquireDeliveryLease(ctx, 'orders-hook', 0, 'poller', 10_000);
    await renewDeliveryLease(ctx, lease!, 10_000);
    await releaseDeliveryLease(ctx, lease!);
    await acquireDeliveryLease(ctx, 'orders-hook', 0, 'poller', 10_000);
    await deleteSubscription(ctx, 'orders-hook');
    // A Kafka group (classic protocol): join, sync, commit, leave.
    const kafka = await joinClassicGroup(
      ctx,
      {
        group: 'kbilling',
        memberId: '',
        groupInstanceId: 'instance-1',
        protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: encodeSubscription(['orders']) }],
        sessionTimeoutMs: 10_000,
        rebalanceTimeoutMs: 10_000,
        clientId: 'c',
        clientHost: '/127.0.0.1',
        requireKnownMemberId: false,
      },
      { initialRebalanceDelayMs: 0 },
    );
    const kafkaMember = { group: 'kbilling', memberId: kafka.memberId, generation: kafka.generation, groupInstanceId: 'instance-1' };
    await syncClassicGroup(ctx, { ...kafkaMember, assignments: [{ memberId: kafka.memberId, assignment: encodeAssignment({ orders: [0] }) }] });
    await commitKafkaOffsets(ctx, { ...kafkaMember, offsets: [{ topic: 'orders', partition: 0, offset: 1, metadata: null }] });
    await leaveClassicGroup(ctx, 'kbilling', [{ memberId: kafka.memberId, groupInstanceId: 'instance-1' }]);
    await deleteTopic(ctx, 'orders');

    const tables = doc();
    expect(undocumentedWrites(tables, recorder.attributeWrites, recorder.objectKeys, ctx.prefix)).toEqual([]);
    expect(unwrittenDocumentation(tables, recorder.attributeWrites, recorder.objectKeys)).toEqual([]);
  });
});
