// Unit tests of the append protocol's DynamoDB requests, without an emulator:
//   - with aws-sdk-client-mock, the exact condition and update expressions appendEntry sends for a
//     plain batch, an idempotent producer's sequence 0 and a continuing sequence;
//     removeSpilledEntries' descending REMOVE indexes; putSpillItem's create-only condition;
//   - with a fake HTTP handler under the REAL client stack (retry middleware included), that
//     sendOnce (unknown-outcome.ts) turns a lost reply (timeout, dropped connection, 5xx) into an
//     UnknownOutcomeError after exactly one attempt, while the SDK still retries a throttled
//     attempt and a ConditionalCheckFailed reaches the caller as it is.
import { Readable } from 'node:stream';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { createContext, type SluiceContext } from '../../lib/context.js';
import { spillTail } from '../../lib/log/spill.js';
import { putSpillItem } from '../../lib/metadata/manifest.js';
import { appendEntry, removeSpilledEntries } from '../../lib/metadata/partition-state.js';
import type { ManifestEntry, PartitionState, SpilledItem, TopicRef } from '../../lib/metadata/types.js';
import { UnknownOutcomeError, sendOnce } from '../../lib/metadata/unknown-outcome.js';

const topic: TopicRef = { name: 't', id: 'TOPICID' };
const stateItem = (over: Partial<PartitionState> = {}) => ({
  pk: 'PART#t#TOPICID#0',
  sk: 'STATE',
  logEndOffset: 7,
  logStartOffset: 0,
  tailBase: 0,
  tail: [],
  epoch: 0,
  expiresAt: 0,
  bytes: 0,
  segments: 0,
  producers: {},
  producerBases: {},
  ...over,
});

function mockedContext() {
  const ddb = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } }));
  const mock = mockClient(ddb);
  const ctx = createContext({ s3: undefined as never, ddb }, { table: 'tbl' });
  return { ctx, mock };
}

/** Entries as stored (encodeEntry's output, written out). */
const entries = (...e: string[]) => e as ManifestEntry[];
const [ENTRY] = entries('2,0,100,1000,0,0,iabcdef0123456789');
const producerEntry = (baseSequence: number) => ({ producerEpoch: 3, baseSequence, lastSequence: baseSequence + 1, count: 2, lastUpdated: 1000 });

describe('appendEntry sends one conditional UpdateItem', () => {
  it('plain batch: item exists (its key carries the topic id), tail room and entry-not-yet-listed; logEndOffset += count and list_append; returns the old STATE', async () => {
    const { ctx, mock } = mockedContext();
    mock.on(UpdateCommand).resolves({ Attributes: stateItem() });
    const before = await appendEntry(ctx, { topic, partition: 0, entry: ENTRY, count: 2, bytes: 100, maxTailEntries: 8 });
    expect(before.logEndOffset).toBe(7);
    const calls = mock.commandCalls(UpdateCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0].args[0].input;
    expect(input.Key).toEqual({ pk: 'PART#t#TOPICID#0', sk: 'STATE' });
    expect(input.ConditionExpression).toBe('attribute_exists(pk) AND size(#tail) < :maxTail AND NOT contains(#tail, :entry)');
    expect(input.UpdateExpression).toBe(
      'SET #logEndOffset = #logEndOffset + :count, #tail = list_append(#tail, :entryList), #bytes = #bytes + :bytes, #segments = #segments + :one',
    );
    expect(input.ExpressionAttributeValues).toMatchObject({ ':count': 2, ':entryList': [ENTRY], ':entry': ENTRY, ':maxTail': 8 });
    expect(input.ReturnValues).toBe('ALL_OLD');
    expect(JSON.stringify(input)).not.toMatch(/producer/i);
  });

  it('idempotent sequence 0: entry absent (and room under the producer cap) or of an older epoch; entry and base set in the same update', async () => {
    const { ctx, mock } = mockedContext();
    mock.on(UpdateCommand).resolves({ Attributes: stateItem() });
    await appendEntry(ctx, {
      topic,
      partition: 0,
      entry: ENTRY,
      count: 2,
      bytes: 100,
      maxTailEntries: 8,
      producer: { producerId: 42, entry: producerEntry(0), maxProducers: 8 },
    });
    const input = mock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(input.ConditionExpression).toBe(
      'attribute_exists(pk) AND size(#tail) < :maxTail AND NOT contains(#tail, :entry)' +
        ' AND ((attribute_not_exists(#producers.#pid) AND size(#producers) < :maxProducers) OR #producers.#pid.#pEpoch < :pEpoch)',
    );
    expect(input.UpdateExpression).toMatch(/, #producers\.#pid = :producer, #bases\.#pid = #logEndOffset$/);
    expect(input.UpdateExpression).toContain('SET #logEndOffset = #logEndOffset + :count');
    expect(input.ExpressionAttributeNames).toMatchObject({ '#producers': 'producers', '#bases': 'producerBases', '#pid': '42', '#pEpoch': 'e' });
    // Stored with one-letter names (partition-state.ts StoredProducerEntry).
    expect(input.ExpressionAttributeValues).toMatchObject({ ':producer': { e: 3, s: 0, l: 1, n: 2, t: 1000 }, ':pEpoch': 3, ':maxProducers': 8 });
    expect(input.ExpressionAttributeValues).not.toHaveProperty(':prevSeq');
  });

  it('idempotent continuing sequence: same epoch and the previous sequence as the entry\'s last', async () => {
    const { ctx, mock } = mockedContext();
    mock.on(UpdateCommand).resolves({ Attributes: stateItem() });
    await appendEntry(ctx, {
      topic,
      partition: 0,
      entry: ENTRY,
      count: 2,
      bytes: 100,
      maxTailEntries: 8,
      producer: { producerId: 42, entry: producerEntry(5), maxProducers: 8 },
    });
    const input = mock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(input.ConditionExpression).toBe(
      'attribute_exists(pk) AND size(#tail) < :maxTail AND NOT contains(#tail, :entry) AND #producers.#pid.#pEpoch = :pEpoch AND #producers.#pid.#pLast = :prevSeq',
    );
    expect(input.ExpressionAttributeValues).toMatchObject({ ':pEpoch': 3, ':prevSeq': 4 });
    expect(input.ExpressionAttributeValues).not.toHaveProperty(':maxProducers');
    expect(input.UpdateExpression).toContain('#producers.#pid = :producer, #bases.#pid = #logEndOffset');
  });

  it('a refused condition reaches the caller as ConditionalCheckFailedException, not as an unknown outcome', async () => {
    const { ctx, mock } = mockedContext();
    mock.on(UpdateCommand).rejects(Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException', $metadata: { httpStatusCode: 400 } }));
    await expect(appendEntry(ctx, { topic, partition: 0, entry: ENTRY, count: 2, bytes: 100, maxTailEntries: 8 })).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
    });
  });
});

describe('the spill', () => {
  it('removeSpilledEntries removes the indexes in descending order, conditioned on tailBase and the item existing', async () => {
    const { ctx, mock } = mockedContext();
    mock.on(UpdateCommand).resolves({});
    expect(await removeSpilledEntries(ctx, topic, 0, 16, entries('a', 'b', 'c', 'd'), 9)).toBe(true);
    const input = mock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(input.UpdateExpression).toBe('REMOVE #tail[3], #tail[2], #tail[1], #tail[0] SET #tailBase = #tailBase + :count, #segments = #segments + :fold');
    expect(input.ConditionExpression).toBe('attribute_exists(pk) AND #tailBase = :tailBase AND size(#tail) >= :n');
    expect(input.ExpressionAttributeValues).toEqual({ ':tailBase': 16, ':n': 4, ':count': 9, ':fold': -3 });
  });

  it('removeSpilledEntries answers false when refused (someone else spilled first)', async () => {
    const { ctx, mock } = mockedContext();
    mock.on(UpdateCommand).rejects(Object.assign(new Error('refused'), { name: 'ConditionalCheckFailedException' }));
    expect(await removeSpilledEntries(ctx, topic, 0, 16, entries('a'), 1)).toBe(false);
  });

  it('putSpillItem is attribute_not_exists only: never overwrites, never requires "identical"', async () => {
    const { ctx, mock } = mockedContext();
    mock.on(PutCommand).resolves({});
    const item: SpilledItem = { baseOffset: 5, lastOffset: 6, count: 2, objectKey: 'k', position: 0, size: 1, minTimestamp: 0, maxTimestamp: 0, createdAt: 0, epoch: 0, entries: entries('x') };
    expect(await putSpillItem(ctx, topic, 0, item)).toBe(true);
    const input = mock.commandCalls(PutCommand)[0].args[0].input;
    expect(input.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(input.ExpressionAttributeValues).toBeUndefined();
    expect(input.ExpressionAttributeNames).toBeUndefined();
    expect(input.Item).toMatchObject({ pk: 'PART#t#TOPICID#0', sk: 'SEG#00000000000000000005', entries: ['x'] });
    mock.on(PutCommand).rejects(Object.assign(new Error('exists'), { name: 'ConditionalCheckFailedException' }));
    expect(await putSpillItem(ctx, topic, 0, item)).toBe(false);
  });

  it('spillTail adopts the existing item at tailBase (a shorter spill by someone else) and removes exactly its entries', async () => {
    const { ctx, mock } = mockedContext();
    const tail = entries('1,0,10,1000,0,0,kobj-a', '1,0,10,1000,0,0,kobj-b', '1,0,10,1000,0,0,kobj-c');
    mock.on(PutCommand).rejects(Object.assign(new Error('exists'), { name: 'ConditionalCheckFailedException' }));
    mock.on(GetCommand).resolves({
      Item: { pk: 'PART#t#TOPICID#0', sk: 'SEG#00000000000000000004', baseOffset: 4, lastOffset: 4, count: 1, objectKey: 'obj-a', position: 0, size: 10, minTimestamp: 1000, maxTimestamp: 1000, createdAt: 1, epoch: 0, entries: tail.slice(0, 1) },
    });
    mock.on(UpdateCommand).resolves({});
    const state = { ...stateItem({ tailBase: 4, logEndOffset: 7, tail }) } as unknown as PartitionState;
    expect(await spillTail(ctx, topic, state)).toBe(true);
    expect(mock.commandCalls(GetCommand)[0].args[0].input).toMatchObject({ ConsistentRead: true, Key: { sk: 'SEG#00000000000000000004' } });
    const removes = mock.commandCalls(UpdateCommand).map((c) => c.args[0].input).filter((i) => String(i.UpdateExpression).startsWith('REMOVE #tail['));
    expect(removes).toHaveLength(1);
    const [remove] = removes;
    expect(remove.UpdateExpression).toMatch(/^REMOVE #tail\[0\] SET/);
    expect(remove.ExpressionAttributeValues).toMatchObject({ ':tailBase': 4, ':n': 1, ':count': 1 });
  });
});

// ---- sendOnce under the real SDK stack ------------------------------------------------------

/** What the fake DynamoDB endpoint does with each attempt. */
type Behaviour = 'apply' | 'apply-then-timeout' | 'apply-then-reset' | 'apply-then-503' | '500' | 'throttle' | 'condition';

function fakeDynamo(script: Behaviour[]): { ctx: SluiceContext; attempts: Behaviour[]; applied: () => number } {
  const attempts: Behaviour[] = [];
  let applied = 0;
  const reply = (statusCode: number, body: unknown) => ({
    response: { statusCode, headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'r' }, body: Readable.from([Buffer.from(JSON.stringify(body))]) },
  });
  const handler = {
    handle: async () => {
      const behaviour = script[Math.min(attempts.length, script.length - 1)];
      attempts.push(behaviour);
      switch (behaviour) {
        case 'apply':
          applied++;
          return reply(200, { Attributes: { n: { N: String(applied) } } });
        case 'apply-then-timeout':
          applied++;
          throw Object.assign(new Error('Connection timed out after 5000 ms'), { name: 'TimeoutError' });
        case 'apply-then-reset':
          applied++;
          throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
        case 'apply-then-503':
          applied++;
          return reply(503, { __type: 'com.amazonaws.dynamodb.v20120810#ServiceUnavailable', message: 'unavailable' });
        case '500':
          return reply(500, { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'internal' });
        case 'throttle':
          return reply(400, { __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException', message: 'slow down' });
        case 'condition':
          return reply(400, { __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException', message: 'The conditional request failed' });
      }
    },
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
  };
  const dynamo = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:1',
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    maxAttempts: 3,
    retryStrategy: undefined,
    requestHandler: handler as never,
  });
  const ddb = DynamoDBDocumentClient.from(dynamo);
  const ctx = createContext({ s3: undefined as never, ddb }, { table: 'tbl' });
  return { ctx, attempts, applied: () => applied };
}

const update = () =>
  new UpdateCommand({ TableName: 'tbl', Key: { pk: 'p', sk: 's' }, UpdateExpression: 'SET n = n + :one', ExpressionAttributeValues: { ':one': 1 }, ReturnValues: 'ALL_OLD' });

describe('sendOnce: an update whose outcome is unknown is never re-sent', () => {
  it.each(['apply-then-timeout', 'apply-then-reset', 'apply-then-503', '500'] as const)(
    '%s: one attempt, then UnknownOutcomeError (the SDK would retry it otherwise)',
    async (behaviour) => {
      const { ctx, attempts, applied } = fakeDynamo([behaviour, 'apply', 'apply']);
      const error = await sendOnce(ctx, update()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnknownOutcomeError);
      expect(attempts).toEqual([behaviour]);
      expect(applied()).toBe(behaviour === '500' ? 0 : 1);
    },
  );

  it('the same failures through a plain send ARE retried by the SDK (what the guard prevents)', async () => {
    const { ctx, attempts, applied } = fakeDynamo(['apply-then-timeout', 'apply']);
    await ctx.ddb.send(update());
    expect(attempts).toEqual(['apply-then-timeout', 'apply']);
    expect(applied()).toBe(2);
  });

  it('a throttled attempt (a definite 4xx refusal) is retried by the SDK and then applied once', async () => {
    const { ctx, attempts, applied } = fakeDynamo(['throttle', 'apply']);
    const out = await sendOnce(ctx, update());
    expect(out.Attributes).toEqual({ n: 1 });
    expect(attempts).toEqual(['throttle', 'apply']);
    expect(applied()).toBe(1);
  });

  it('persistent throttling reaches the caller as the SDK\'s throttling error, not as an unknown outcome', async () => {
    const { ctx, attempts } = fakeDynamo(['throttle']);
    const error = await sendOnce(ctx, update()).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(UnknownOutcomeError);
    expect(error).toMatchObject({ name: 'ProvisionedThroughputExceededException' });
    expect(attempts).toHaveLength(3);
  });

  it('ConditionalCheckFailedException passes through as it is, after one attempt', async () => {
    const { ctx, attempts } = fakeDynamo(['condition']);
    const error = await sendOnce(ctx, update()).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(attempts).toEqual(['condition']);
  });

  it('guards only the command it was given: the next command on the same client retries as usual', async () => {
    const { ctx, attempts } = fakeDynamo(['apply', 'apply-then-timeout', 'apply']);
    await sendOnce(ctx, update());
    await ctx.ddb.send(update());
    expect(attempts).toEqual(['apply', 'apply-then-timeout', 'apply']);
  });
});

afterEach(() => undefined);
