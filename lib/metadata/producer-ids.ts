// Producer id allocation for idempotent producers: one atomic counter item (`PRODUCER` / `NEXT`,
// see keys.ts) incremented with ADD, so concurrent allocations never hand out the same id.
// A fresh id always starts at producer epoch 0, as Kafka's InitProducerId does for a new producer.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';

export const PRODUCER_ID_KEY = { pk: 'PRODUCER', sk: 'NEXT' } as const;

export async function allocateProducerId(ctx: SluiceContext): Promise<{ producerId: number; producerEpoch: number }> {
  const out = await ctx.ddb.send(
    new UpdateCommand({
      TableName: ctx.table,
      Key: PRODUCER_ID_KEY,
      UpdateExpression: 'ADD #next :one',
      ExpressionAttributeNames: { '#next': 'nextProducerId' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  // The counter holds the last id handed out; ids start at 1 (Kafka reserves -1 for "none").
  return { producerId: Number(out.Attributes?.nextProducerId), producerEpoch: 0 };
}
