// Every item a Query matches, following LastEvaluatedKey across pages.
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';

export async function* queryAll(ctx: SluiceContext, input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): AsyncGenerator<Record<string, unknown>> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await ctx.ddb.send(new QueryCommand({ ...input, TableName: ctx.table, ExclusiveStartKey: startKey }));
    yield* page.Items ?? [];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
