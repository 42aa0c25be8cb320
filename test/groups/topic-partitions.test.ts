// lib/groups/topic-partitions.ts: partition counts of subscribed topics; a missing topic counts 0
// and is left out; counts already known are not read again.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { partitionsPerTopic, topicPartitionCount } from '../../lib/groups/topic-partitions.js';
import { mockedDdbContext } from '../support/mock-ddb.js';

const topicItem = (name: string, partitions: number) => ({ pk: 'TOPICS', sk: name, name, id: 'I', partitions, config: {}, createdAt: 0 });

describe('topic partitions', () => {
  it('a missing topic is 0', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({});
    expect(await topicPartitionCount(ctx, 'nope')).toBe(0);
  });
  it('reads each wanted topic once, skips known ones, omits topics with no partitions, sorted', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).callsFake(async (input: { Key: { sk: string } }) => (input.Key.sk === 'missing' ? {} : { Item: topicItem(input.Key.sk, input.Key.sk.length) }));
    const known = new Map([['cached', 9]]);
    const out = await partitionsPerTopic(ctx, ['zz', 'a', 'zz', 'missing', 'cached'], known);
    expect(out).toEqual({ a: 1, cached: 9, zz: 2 });
    expect(Object.keys(out)).toEqual(['a', 'cached', 'zz']);
    expect(mock.commandCalls(GetCommand).map((c) => c.args[0].input.Key?.sk).sort()).toEqual(['a', 'missing', 'zz']);
    expect(known.get('missing')).toBe(0);
    await partitionsPerTopic(ctx, ['a', 'zz'], known);
    expect(mock.commandCalls(GetCommand)).toHaveLength(3);
  });
});
