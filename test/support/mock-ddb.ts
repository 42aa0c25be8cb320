// A context whose DynamoDB document client is an aws-sdk-client-mock mock: for fast unit tests of
// the exact requests (condition and update expressions) a module sends, without an emulator.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createContext, type SluiceContext, type SluiceSettings } from '../../lib/context.js';

export function mockedDdbContext(settings: Partial<SluiceSettings> & { now?: () => number } = {}) {
  const ddb = DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } }),
  );
  const mock = mockClient(ddb);
  const { now, ...rest } = settings;
  const base = createContext({ s3: undefined as never, ddb }, { table: 'tbl', ...rest });
  const ctx: SluiceContext = now ? { ...base, now } : base;
  return { ctx, mock };
}

/** The error DynamoDB answers when a condition is refused. */
export const conditionFailed = () =>
  Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException', $metadata: { httpStatusCode: 400 } });
