// DynamoDB's size of an item, by its documented rules (names + values; a number is about one byte
// per two significant digits plus one; lists and maps 3 bytes plus one per element): what a write
// is billed by, in 1 KB write units (rounded up), of the larger of the item before and after.
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';
import { partitionPk } from './keys.js';
import type { TopicRef } from './types.js';

export function valueBytes(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') {
    const digits = String(Math.abs(value)).replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length;
    return Math.ceil(Math.max(1, digits) / 2) + 1;
  }
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return value.length;
  if (Array.isArray(value)) return 3 + value.reduce((n: number, v) => n + 1 + valueBytes(v), 0);
  if (typeof value === 'object') {
    return 3 + Object.entries(value as Record<string, unknown>).reduce((n, [k, v]) => n + 1 + Buffer.byteLength(k) + valueBytes(v), 0);
  }
  throw new TypeError(`no DynamoDB size for ${typeof value}`);
}

export function itemBytes(item: Record<string, unknown>): number {
  return Object.entries(item).reduce((n, [name, value]) => n + Buffer.byteLength(name) + valueBytes(value), 0);
}

/** The largest STATE item and the largest SEG item of the topic's partitions (for benchmarks and tests). */
export async function largestPartitionItems(ctx: SluiceContext, topic: TopicRef, partitions: number): Promise<{ state: number; segment: number }> {
  let state = 0;
  let segment = 0;
  for (let p = 0; p < partitions; p++) {
    let token: Record<string, unknown> | undefined;
    do {
      const page = await ctx.ddb.send(
        new QueryCommand({
          TableName: ctx.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': partitionPk(topic, p) },
          ExclusiveStartKey: token,
          ConsistentRead: true,
        }),
      );
      for (const item of page.Items ?? []) {
        const bytes = itemBytes(item);
        if (item.sk === 'STATE') state = Math.max(state, bytes);
        else segment = Math.max(segment, bytes);
      }
      token = page.LastEvaluatedKey;
    } while (token);
  }
  return { state, segment };
}
