// lib/metadata/query-all.ts: every page of a Query, following LastEvaluatedKey.
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { queryAll } from '../../lib/metadata/query-all.js';
import { mockedDdbContext } from '../support/mock-ddb.js';

describe('queryAll', () => {
  it('yields every page in order, passing each LastEvaluatedKey as the next ExclusiveStartKey, on the context\'s table', async () => {
    const { ctx, mock } = mockedDdbContext({ table: 'mytable' });
    mock
      .on(QueryCommand)
      .resolvesOnce({ Items: [{ n: 1 }, { n: 2 }], LastEvaluatedKey: { k: 'a' } })
      .resolvesOnce({ LastEvaluatedKey: { k: 'b' } }) // an empty page that is not the last
      .resolvesOnce({ Items: [{ n: 3 }] });
    const got: unknown[] = [];
    for await (const item of queryAll(ctx, { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'P' } })) got.push(item);
    expect(got).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    const inputs = mock.commandCalls(QueryCommand).map((c) => c.args[0].input);
    expect(inputs.map((i) => i.ExclusiveStartKey)).toEqual([undefined, { k: 'a' }, { k: 'b' }]);
    for (const i of inputs) expect(i).toMatchObject({ TableName: 'mytable', KeyConditionExpression: 'pk = :pk' });
  });
  it('stops reading when the consumer stops', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(QueryCommand).resolves({ Items: [{ n: 1 }], LastEvaluatedKey: { k: 'a' } });
    for await (const _ of queryAll(ctx, { KeyConditionExpression: 'x' })) break;
    expect(mock.commandCalls(QueryCommand)).toHaveLength(1);
  });
});
