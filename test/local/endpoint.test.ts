// `npm start` against a configured endpoint (how it runs against LocalStack): either one
// AWS_ENDPOINT_URL for both services (LocalStack's single port; here a proxy in front of the
// emulators), or the SDK-native per-service AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL_DYNAMODB.
// Credentials come from the environment.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { startSingleEndpoint } from '../support/single-endpoint.js';
import { emulatorClients } from '../support/storage.js';
import { request, startMain, type MainProcess } from './main-process.js';

describe('npm start with a configured AWS endpoint', () => {
  const unused = join(mkdtempSync(join(tmpdir(), 'sluice-endpoint-')), 'data');
  let main: MainProcess | undefined;
  afterAll(async () => {
    if (main && main.child.exitCode === null && main.child.signalCode === null) main.child.kill('SIGKILL');
    rmSync(join(unused, '..'), { recursive: true, force: true });
  });

  /** Provisions bucket and table on the endpoint, serves a round trip, stops cleanly on SIGTERM. */
  async function roundTrip(endpointEnv: Record<string, string>, shown: string): Promise<void> {
    const id = randomBytes(4).toString('hex');
    main = await startMain({
      ...endpointEnv,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_REGION: 'us-east-1',
      SLUICE_BUCKET: `sluice-ep-${id}`,
      SLUICE_TABLE: `sluice-ep-${id}`,
      SLUICE_DATA_DIR: unused,
    });
    expect(main.output()).toContain(`endpoint ${shown}`);
    const url = main.url;
    expect((await request(url, 'POST', '/v1/topics', { name: 'ep', partitions: 1 })).status).toBe(201);
    const produced = await request(url, 'POST', '/v1/topics/ep/records', { records: [{ key: 'k', value: 'über' }] });
    expect(produced.body.records).toEqual([{ partition: 0, offset: 0 }]);
    const fetched = await request(url, 'GET', '/v1/topics/ep/partitions/0/records?offset=0');
    expect(fetched.body.records[0]).toMatchObject({ offset: 0, key: 'k', value: 'über' });

    // The segment is in the bucket on the given endpoint, and no embedded emulator ran.
    const listed = await emulatorClients().s3.send(new ListObjectsV2Command({ Bucket: `sluice-ep-${id}` }));
    expect(listed.Contents?.some((o) => o.Key?.endsWith('.log'))).toBe(true);
    expect(existsSync(unused)).toBe(false);

    main.child.kill('SIGTERM');
    expect(await main.exited).toBe(0);
  }

  it('uses the per-service AWS_ENDPOINT_URL_S3 and AWS_ENDPOINT_URL_DYNAMODB', async () => {
    await roundTrip(
      { AWS_ENDPOINT_URL_S3: inject('s3Endpoint'), AWS_ENDPOINT_URL_DYNAMODB: inject('dynamodbEndpoint') },
      `S3 ${inject('s3Endpoint')}, DynamoDB ${inject('dynamodbEndpoint')}`,
    );
  }, 90_000);

  it('uses one AWS_ENDPOINT_URL for both services, as with LocalStack', async () => {
    const endpoint = await startSingleEndpoint(inject('dynamodbEndpoint'), inject('s3Endpoint'));
    try {
      await roundTrip({ AWS_ENDPOINT_URL: endpoint.url }, endpoint.url);
    } finally {
      await endpoint.close();
    }
  }, 90_000);
});
