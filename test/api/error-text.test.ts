// Callers see Kafka codes and generic messages, never AWS error text: an AccessDenied names the
// account, the role ARN and the bucket. The cause goes to the log instead, as one structured line
// with the request id and the topic of the request it failed. Both the router's catch-all (a
// DynamoDB failure) and the log layer's classification (an S3 failure inside an append) are covered.
import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { PutObjectCommand, S3ServiceException } from '@aws-sdk/client-s3';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { createLambdaHandler } from '../../lib/api/lambda-adapter.js';
import { allOperations } from '../../lib/api/operations.js';
import { createTestContext } from '../support/storage.js';
import { call } from './call.js';

const ACCOUNT = '123456789012';
const BUCKET = 'acme-prod-secret-segments';
const ROLE = `arn:aws:sts::${ACCOUNT}:assumed-role/sluice-produce-role/sluice-produce`;
const SECRETS = [ACCOUNT, BUCKET, ROLE, 'AccessDenied', 'not authorized'];

function accessDenied<T extends typeof S3ServiceException | typeof DynamoDBServiceException>(Exception: T, name: string, resource: string) {
  return new Exception({
    name,
    $fault: 'client',
    $metadata: { httpStatusCode: 403, requestId: 'AWSREQ-7' },
    message: `User: ${ROLE} is not authorized to perform this action on resource: ${resource}`,
  });
}

function httpEvent(method: string, path: string, requestId: string, body?: unknown): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: { 'content-type': 'application/json' },
    requestContext: {
      accountId: 'local', apiId: 'local', domainName: 'localhost', domainPrefix: 'local', requestId, routeKey: '$default', stage: '$default',
      time: new Date().toISOString(), timeEpoch: Date.now(),
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    isBase64Encoded: false,
  };
}

/** Every JSON log line Powertools writes while `run` runs (it writes to stdout and stderr). */
async function logLines<T>(run: () => Promise<T>): Promise<{ result: T; lines: Record<string, any>[] }> {
  const written: string[] = [];
  const capture = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    const result = await run();
    return { result, lines: written.join('').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)) };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

function expectNoSecrets(text: string): void {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

describe('AWS error text never reaches a caller', () => {
  let ctx: SluiceContext;
  let handler: ReturnType<typeof createLambdaHandler>;
  beforeAll(async () => {
    ctx = await createTestContext();
    handler = createLambdaHandler(allOperations, { context: () => ctx });
    expect((await call(ctx, 'POST', '/v1/topics', { name: 'orders', partitions: 1 })).status).toBe(201);
  });
  afterEach(() => vi.restoreAllMocks());

  it('an AccessDenied from DynamoDB is a generic 500, its cause logged with request id and topic', async () => {
    const ddb = mockClient(ctx.ddb);
    ddb.on(GetCommand).rejects(accessDenied(DynamoDBServiceException, 'AccessDeniedException', `arn:aws:dynamodb:eu-west-1:${ACCOUNT}:table/sluice`));
    try {
      const { result, lines } = await logLines(() => handler(httpEvent('GET', '/v1/topics/orders', 'req-ddb-1')) as Promise<APIGatewayProxyStructuredResultV2>);
      expect(result.statusCode).toBe(500);
      expect(JSON.parse(result.body!).error).toEqual({ code: 'UNKNOWN_SERVER_ERROR', message: 'internal error; the request may be retried', retriable: true });
      expectNoSecrets(result.body!);
      const cause = lines.find((l) => l.cause?.name === 'AccessDeniedException');
      expect(cause).toMatchObject({ level: 'ERROR', requestId: 'req-ddb-1', topic: 'orders', operation: 'describeTopic' });
      expect(cause!.cause.message).toContain(ROLE);
      expect(cause!.cause).toMatchObject({ httpStatusCode: 403, awsRequestId: 'AWSREQ-7' });
    } finally {
      ddb.restore();
    }
  });

  it('an AccessDenied from S3 inside an append is a generic error naming only the partition', async () => {
    const s3 = mockClient(ctx.s3);
    s3.on(PutObjectCommand).rejects(accessDenied(S3ServiceException, 'AccessDenied', `arn:aws:s3:::${BUCKET}/log/orders/0/0.log`));
    try {
      const { result, lines } = await logLines(
        () => handler(httpEvent('POST', '/v1/topics/orders/records', 'req-s3-1', { records: [{ partition: 0, value: 'v' }] })) as Promise<APIGatewayProxyStructuredResultV2>,
      );
      const error = JSON.parse(result.body!).error;
      expect(error.code).toBe('UNKNOWN_SERVER_ERROR');
      expect(error.message).toMatch(/^append to orders-0: internal error/);
      expectNoSecrets(result.body!);
      const cause = lines.find((l) => l.cause?.name === 'AccessDenied');
      expect(cause).toMatchObject({ requestId: 'req-s3-1', topic: 'orders', operation: 'produce', where: 'append to orders-0' });
      expect(cause!.cause.message).toContain(BUCKET);
    } finally {
      s3.restore();
    }
  });
});
