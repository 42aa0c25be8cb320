import { describe, expect, it } from 'vitest';
import { PutObjectCommand, GetObjectCommand } from '@aws-sdk/client-s3';
import { PutCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { createTestContext } from './support/storage.js';

describe('embedded emulators', () => {
  it('serve S3 ranged GETs and DynamoDB items over the real SDK', async () => {
    const ctx = await createTestContext();
    await ctx.s3.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: 'a/b', Body: Buffer.from('hello world') }));
    const got = await ctx.s3.send(new GetObjectCommand({ Bucket: ctx.bucket, Key: 'a/b', Range: 'bytes=6-10' }));
    expect(Buffer.from(await got.Body!.transformToByteArray()).toString()).toBe('world');
    await ctx.ddb.send(new PutCommand({ TableName: ctx.table, Item: { pk: 'x', sk: 'y', n: 1 } }));
    const item = await ctx.ddb.send(new GetCommand({ TableName: ctx.table, Key: { pk: 'x', sk: 'y' }, ConsistentRead: true }));
    expect(item.Item?.n).toBe(1);
  });
});
