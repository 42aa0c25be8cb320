// Stored items are parsed, not cast: an item planted with a wrong-typed attribute (as a bug, a
// manual edit or another version could leave it) is a clear error naming the item and the
// attribute — never a value that flows on as undefined behaviour.
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { describeGroup } from '../../lib/groups/describe.js';
import { groupMetaKey } from '../../lib/groups/group-keys.js';
import { readGroup } from '../../lib/groups/group-store.js';
import { segmentKey, stateKey, topicKey } from '../../lib/metadata/keys.js';
import { getSegmentItem } from '../../lib/metadata/manifest.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { getTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';

let ctx: SluiceContext;
beforeAll(async () => {
  ctx = await createTestContext();
});

const put = (Item: Record<string, unknown>) => ctx.ddb.send(new PutCommand({ TableName: ctx.table, Item }));
let n = 0;
const name = (prefix: string) => `${prefix}-${n++}`;

const goodGroup = (group: string) => ({
  ...groupMetaKey(group),
  group,
  version: 1,
  generation: 1,
  assignor: 'range',
  members: { m1: { clientId: 'c', topics: ['t'], assignor: 'range', sessionTimeoutMs: 10_000, expiresAt: 9e12, ackGeneration: 1, joinedAt: 1 } },
  assignment: { m1: { t: [0, 1] } },
  pending: [],
  partitionsPerTopic: { t: 2 },
  createdAt: 1,
  updatedAt: 1,
});

describe('malformed stored items', () => {
  it('a well-formed group item reads back as stored', async () => {
    const group = name('g');
    await put(goodGroup(group));
    expect(await readGroup(ctx, group)).toMatchObject({ group, generation: 1, assignment: { m1: { t: [0, 1] } } });
  });

  it.each([
    ['members', { members: 'everyone' }],
    ['member', { members: { m1: { clientId: 'c', topics: 't' } } }],
    ['assignment', { assignment: { m1: { t: ['0'] } } }],
    ['pending', { pending: [{ topic: 't', partition: 0, from: 'm1' }] }],
    ['generation', { generation: '1' }],
    ['assignor', { assignor: 'fastest' }],
  ])('a group item with a malformed %s is a clear error', async (attribute, change) => {
    const group = name('g');
    await put({ ...goodGroup(group), ...change });
    await expect(readGroup(ctx, group)).rejects.toThrow(new RegExp(`group item '${group}': .*${attribute}.* is malformed`));
    await expect(describeGroup(ctx, group)).rejects.toThrow(/malformed/);
  });

  it('a topic item with a malformed config or partition count is a clear error', async () => {
    const topic = name('t');
    await put({ ...topicKey(topic), name: topic, id: 'abc', partitions: 1, config: { 'retention.ms': 'soon' }, createdAt: 1 });
    await expect(getTopic(ctx, topic)).rejects.toThrow(/topic item .* config is malformed/);
    await put({ ...topicKey(topic), name: topic, id: 'abc', partitions: 1.5, config: {}, createdAt: 1 });
    await expect(getTopic(ctx, topic)).rejects.toThrow(/topic item .* malformed/);
  });

  it('a STATE item with malformed producerBases is a clear error', async () => {
    const topic = { name: name('t'), id: 'abc' };
    const state = { logEndOffset: 0, logStartOffset: 0, tailBase: 0, tail: [], epoch: 0, expiresAt: 0, bytes: 0, segments: 0 };
    await put({ ...stateKey(topic, 0), ...state, producerBases: [3] });
    await expect(getPartitionState(ctx, topic, 0)).rejects.toThrow(/STATE item: producerBases is malformed/);
    await put({ ...stateKey(topic, 0), ...state, producerBases: { 7: 'three' } });
    await expect(getPartitionState(ctx, topic, 0)).rejects.toThrow(/STATE item: producerBases is malformed/);
  });

  it('a SEG item with a non-string index key is a clear error', async () => {
    const topic = { name: name('t'), id: 'abc' };
    const seg = { baseOffset: 0, lastOffset: 0, count: 1, objectKey: 'k', position: 0, size: 10, minTimestamp: 0, maxTimestamp: 0, createdAt: 0, epoch: 0 };
    await put({ ...segmentKey(topic, 0, 0), ...seg, indexKey: 5 });
    await expect(getSegmentItem(ctx, topic, 0, 0)).rejects.toThrow(/SEG item .* indexKey is not a string/);
  });
});
