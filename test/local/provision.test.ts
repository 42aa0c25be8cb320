// lib/local/provision.ts: bucket and table created when missing, idempotently, on the emulators.
import { randomBytes } from 'node:crypto';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { ensureBucket, ensureTable } from '../../lib/local/provision.js';
import { emulatorClients } from '../support/storage.js';

describe('provision (emulators)', () => {
  it('creates a missing bucket and table (pk/sk strings), and a second call changes nothing', async () => {
    const { s3, ddb } = emulatorClients();
    const name = `prov-${randomBytes(4).toString('hex')}`;
    await ensureBucket(s3, name);
    await ensureBucket(s3, name);
    await expect(s3.send(new HeadBucketCommand({ Bucket: name }))).resolves.toBeDefined();
    await Promise.all([ensureTable(ddb, name), ensureTable(ddb, name)]); // concurrent creators
    await ensureTable(ddb, name);
    const d = await (ddb as unknown as DynamoDBClient).send(new DescribeTableCommand({ TableName: name }));
    expect(d.Table?.TableStatus).toBe('ACTIVE');
    expect(d.Table?.KeySchema).toEqual([{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }]);
  });
});
