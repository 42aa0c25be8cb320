// Creates the bucket and table Sluice needs when they are missing: the local server does this on
// start (embedded emulators, LocalStack, any endpoint); in AWS the CDK stack owns them.
import { CreateBucketCommand, HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export async function ensureBucket(s3: S3Client, bucket: string): Promise<void> {
  try {
    await s3.send(new HeadBucketCommand({ Bucket: bucket }));
  } catch {
    try {
      await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    } catch (e) {
      const name = (e as { name?: string }).name;
      if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw e;
    }
  }
}

export async function ensureTable(client: DynamoDBDocumentClient | DynamoDBClient, table: string): Promise<void> {
  // The document client wraps a DynamoDBClient; table control-plane commands pass through unchanged.
  const ddb = client as DynamoDBClient;
  try {
    const d = await ddb.send(new DescribeTableCommand({ TableName: table }));
    if (d.Table?.TableStatus === 'ACTIVE') return;
  } catch (e) {
    if ((e as { name?: string }).name !== 'ResourceNotFoundException') throw e;
    try {
      await ddb.send(
        new CreateTableCommand({
          TableName: table,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [
            { AttributeName: 'pk', AttributeType: 'S' },
            { AttributeName: 'sk', AttributeType: 'S' },
          ],
          KeySchema: [
            { AttributeName: 'pk', KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
          ],
        }),
      );
    } catch (err) {
      if ((err as { name?: string }).name !== 'ResourceInUseException') throw err;
    }
  }
  for (let i = 0; i < 100; i++) {
    const d = await ddb.send(new DescribeTableCommand({ TableName: table }));
    if (d.Table?.TableStatus === 'ACTIVE') return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`table ${table} did not become ACTIVE`);
}
