// The retention Lambda as deployed: configured only by its environment, invoked with
// EventBridge's scheduled event and a Lambda context whose remaining time is its budget.
import type { Context } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { inject } from 'vitest';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';
import { appendSpilled } from './maintenance-support.js';

const scheduledEvent = {
  version: '0',
  id: 'c8b0a1e2-0000-0000-0000-000000000000',
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: '123456789012',
  time: new Date().toISOString(),
  region: 'us-east-1',
  resources: ['arn:aws:events:us-east-1:123456789012:rule/RetentionSchedule'],
  detail: {},
};

describe('retention Lambda handler', () => {
  it('runs one maintenance pass within the invocation’s remaining time', async () => {
    const ctx = await createTestContext();
    const topic = await createTopic(ctx, 'scheduled', 1, { 'retention.bytes': 1 });
    // Each append spilled into a SEG item of its own: three segments.
    for (let i = 0; i < 3; i++) await appendSpilled(ctx, topic, [`v${i}`]);

    vi.stubEnv('AWS_ENDPOINT_URL_S3', inject('s3Endpoint'));
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', inject('dynamodbEndpoint'));
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'S3RVER');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'S3RVER');
    vi.stubEnv('AWS_REGION', 'us-east-1');
    vi.stubEnv('SLUICE_BUCKET', ctx.bucket);
    vi.stubEnv('SLUICE_TABLE', ctx.table);
    try {
      const { handler } = await import('../../lambdas/retention.js');
      const deadline = Date.now() + 60_000;
      const lambdaContext = { getRemainingTimeInMillis: () => deadline - Date.now(), awsRequestId: 'test' } as unknown as Context;
      const result = await handler(scheduledEvent, lambdaContext);
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ outcome: 'complete', errors: [], retention: { segments: 2 } });
      expect((await getPartitionState(ctx, topic, 0)).logStartOffset).toBe(2);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
