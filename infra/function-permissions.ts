// Least privilege per function, in one table so it can be read (and reviewed) at a glance.
// Every action is named explicitly: no `s3:*`, no `dynamodb:*`, and none of the `s3:GetObject*` /
// `s3:DeleteObject*` wildcards that `bucket.grantReadWrite()` would add. Object actions are scoped
// to the data prefix, and so is ListBucket (an s3:prefix condition); table actions to the table
// itself (the table has no indexes).
//
//   function   S3 objects                 S3 bucket    DynamoDB
//   produce    Put                        -            Get Put Update Query
//   fetch      Get                        -            Get Query
//   admin      Get Delete                 List         Get BatchGet Put Update Delete BatchWrite Query Scan
//   groups     Get                        -            Get BatchGet Put Update Delete BatchWrite Query Scan
//   retention  Get Put Delete             List         Get Put Update Delete BatchWrite Query Scan
//   subscriptions Get Put                 -            Get BatchGet Put Update Delete BatchWrite Query Scan
//
// The subscriptions poller (only deployed with a subscription) also gets, per subscription,
// lambda:InvokeFunction on its target and sqs:SendMessage / sns:Publish on its onFailure
// destination (infra/sluice-subscription.ts).
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { SluiceHandlerName } from './routes.js';

interface FunctionAccess {
  readonly objectActions: readonly string[];
  readonly listBucket: boolean;
  readonly tableActions: readonly string[];
}

const READ_ITEMS = ['dynamodb:GetItem', 'dynamodb:Query'];
const MANAGE_ITEMS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:Query',
  'dynamodb:Scan',
];

export const FUNCTION_ACCESS: Readonly<Record<SluiceHandlerName, FunctionAccess>> = {
  // Appends write new, uniquely named objects only; overwriting or deleting data is not its job.
  produce: {
    objectActions: ['s3:PutObject'],
    listBucket: false,
    tableActions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query'],
  },
  // Readers never write: a compromised fetch path cannot alter the log.
  fetch: { objectActions: ['s3:GetObject'], listBucket: false, tableActions: READ_ITEMS },
  // Deleting a topic deletes its segments, found by listing the topic's key prefix. Describing a
  // subscription reads the oldest undelivered record (its age is the iterator age).
  admin: { objectActions: ['s3:GetObject', 's3:DeleteObject'], listBucket: true, tableActions: MANAGE_ITEMS },
  // Group coordination lives in DynamoDB, but resetOffsets {timestamp} finds the offset by reading
  // segments (the time index), so it reads objects. The emulators enforce no IAM, so only
  // test/infra/permissions.test.ts, which records every operation's AWS calls, can catch a gap here.
  groups: { objectActions: ['s3:GetObject'], listBucket: false, tableActions: MANAGE_ITEMS },
  // Retention deletes whole segments (and sweeps orphans); Get/Put cover segment rewrites.
  retention: {
    objectActions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
    listBucket: true,
    tableActions: MANAGE_ITEMS.filter((a) => a !== 'dynamodb:BatchGetItem'),
  },
  // The dispatcher reads the log, holds poller leases and commits its groups' offsets; Put is for
  // a subscription whose onFailure is a Sluice topic (the failed records' metadata is produced there).
  subscriptions: { objectActions: ['s3:GetObject', 's3:PutObject'], listBucket: false, tableActions: MANAGE_ITEMS },
};

export interface DataResources {
  readonly bucket: s3.IBucket;
  readonly table: dynamodb.ITable;
  /** Object key prefix without trailing slash ('' = whole bucket). */
  readonly dataPrefix: string;
  readonly encryptionKey?: kms.IKey;
}

/** The policy statements one function's role gets. */
export function functionStatements(name: SluiceHandlerName, data: DataResources): iam.PolicyStatement[] {
  const access = FUNCTION_ACCESS[name];
  const statements: iam.PolicyStatement[] = [];
  if (access.objectActions.length > 0) {
    statements.push(
      new iam.PolicyStatement({
        actions: [...access.objectActions],
        resources: [data.bucket.arnForObjects(data.dataPrefix ? `${data.dataPrefix}/*` : '*')],
      }),
    );
  }
  if (access.listBucket) {
    // Every listing names a Prefix under the data prefix; other keys in the bucket stay unlisted.
    statements.push(
      new iam.PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [data.bucket.bucketArn],
        conditions: data.dataPrefix ? { StringLike: { 's3:prefix': [`${data.dataPrefix}/*`] } } : undefined,
      }),
    );
  }
  statements.push(new iam.PolicyStatement({ actions: [...access.tableActions], resources: [data.table.tableArn] }));
  if (data.encryptionKey) {
    const writes = access.objectActions.some((a) => a !== 's3:GetObject') || access.tableActions.some((a) => !READ_ITEMS.includes(a));
    statements.push(
      new iam.PolicyStatement({
        actions: writes
          ? ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey']
          : ['kms:Decrypt', 'kms:DescribeKey'],
        resources: [data.encryptionKey.keyArn],
      }),
    );
  }
  return statements;
}
