// lib/metadata/producer-ids.ts: the allocator's exact requests (ADD on the counter; the signing key
// created once under attribute_not_exists, and a lost creation race adopts the winner's key), ids
// that verify without a read, and made-up ids refused.
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PRODUCER_ID_KEY, PRODUCER_KEY_KEY, allocateProducerId, isIssuedProducerId } from '../../lib/metadata/producer-ids.js';
import { conditionFailed, mockedDdbContext } from '../support/mock-ddb.js';
import { createTestContext } from '../support/storage.js';

const KEY = new Uint8Array(32).fill(7);

describe('allocateProducerId requests', () => {
  it('reads the key once (consistent), then one ADD per allocation on PRODUCER/NEXT; epoch 0', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({ Item: { ...PRODUCER_KEY_KEY, key: KEY } });
    mock.on(UpdateCommand).resolvesOnce({ Attributes: { nextProducerId: 1 } }).resolves({ Attributes: { nextProducerId: 2 } });
    const a = await allocateProducerId(ctx);
    const b = await allocateProducerId(ctx);
    expect(a.producerEpoch).toBe(0);
    expect(Math.floor(a.producerId / 2 ** 24)).toBe(1);
    expect(Math.floor(b.producerId / 2 ** 24)).toBe(2);
    expect(mock.commandCalls(GetCommand)).toHaveLength(1);
    expect(mock.commandCalls(GetCommand)[0].args[0].input).toMatchObject({ Key: PRODUCER_KEY_KEY, ConsistentRead: true });
    const input = mock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(input).toMatchObject({
      Key: PRODUCER_ID_KEY,
      UpdateExpression: 'ADD #next :one',
      ExpressionAttributeNames: { '#next': 'nextProducerId' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    });
    expect(input.ConditionExpression).toBeUndefined();
    expect(await isIssuedProducerId(ctx, a.producerId)).toBe(true);
    expect(await isIssuedProducerId(ctx, b.producerId)).toBe(true);
  });

  it('no key yet: creates one with attribute_not_exists', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({});
    mock.on(PutCommand).resolves({});
    mock.on(UpdateCommand).resolves({ Attributes: { nextProducerId: 1 } });
    await allocateProducerId(ctx);
    const put = mock.commandCalls(PutCommand)[0].args[0].input;
    expect(put.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(put.Item).toMatchObject(PRODUCER_KEY_KEY);
    expect((put.Item?.key as Buffer).length).toBe(32);
  });

  it('losing the key-creation race adopts the stored key: ids verify under it', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolvesOnce({}).resolves({ Item: { ...PRODUCER_KEY_KEY, key: KEY } });
    mock.on(PutCommand).rejects(conditionFailed());
    mock.on(UpdateCommand).resolves({ Attributes: { nextProducerId: 5 } });
    const { producerId } = await allocateProducerId(ctx);
    // Another context holding the same stored key agrees.
    const other = mockedDdbContext();
    other.mock.on(GetCommand).resolves({ Item: { ...PRODUCER_KEY_KEY, key: KEY } });
    expect(await isIssuedProducerId(other.ctx, producerId)).toBe(true);
  });

  it('a failed key read is not cached: the next call reads again', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).rejectsOnce(Object.assign(new Error('x'), { name: 'InternalServerError' })).resolves({ Item: { ...PRODUCER_KEY_KEY, key: KEY } });
    mock.on(UpdateCommand).resolves({ Attributes: { nextProducerId: 1 } });
    await expect(allocateProducerId(ctx)).rejects.toMatchObject({ name: 'InternalServerError' });
    await expect(allocateProducerId(ctx)).resolves.toMatchObject({ producerEpoch: 0 });
  });

  it('counter past 2^29: exhausted', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({ Item: { ...PRODUCER_KEY_KEY, key: KEY } });
    mock.on(UpdateCommand).resolves({ Attributes: { nextProducerId: 2 ** 29 + 1 } });
    await expect(allocateProducerId(ctx)).rejects.toThrow(/exhausted/);
  });
});

describe('isIssuedProducerId', () => {
  it('refuses without a read what cannot be an id: negatives, fractions, unsafe, below 2^24', async () => {
    const { ctx, mock } = mockedDdbContext();
    for (const id of [-1, 0, 1.5, 2 ** 24 - 1, Number.MAX_SAFE_INTEGER + 2, Number.NaN]) expect(await isIssuedProducerId(ctx, id)).toBe(false);
    expect(mock.calls()).toHaveLength(0);
  });
  it('property: changing the tag of an issued id makes it unverifiable', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(GetCommand).resolves({ Item: { ...PRODUCER_KEY_KEY, key: KEY } });
    mock.on(UpdateCommand).resolves({ Attributes: { nextProducerId: 3 } });
    const { producerId } = await allocateProducerId(ctx);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 24 - 1 }), async (delta) => {
        const counter = Math.floor(producerId / 2 ** 24);
        const forged = counter * 2 ** 24 + (((producerId % 2 ** 24) + delta) % 2 ** 24);
        expect(await isIssuedProducerId(ctx, forged)).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});

describe('against the emulator', () => {
  it('distinct ids from concurrent allocations of two processes, each verifiable by the other', async () => {
    const a = await createTestContext();
    const b = { ...a, ownerId: 'other' }; // another context object: its own key cache
    const ids = await Promise.all([...Array.from({ length: 5 }, () => allocateProducerId(a)), ...Array.from({ length: 5 }, () => allocateProducerId(b))]);
    const unique = new Set(ids.map((i) => i.producerId));
    expect(unique.size).toBe(10);
    for (const { producerId } of ids) {
      expect(await isIssuedProducerId(a, producerId)).toBe(true);
      expect(await isIssuedProducerId(b, producerId)).toBe(true);
    }
    expect(await isIssuedProducerId(a, ids[0].producerId + 1)).toBe(false);
  });
});
