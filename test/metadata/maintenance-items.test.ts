// lib/metadata/maintenance-items.ts: the maintenance job's own items. The job lease's exact
// conditions (take it when free, expired or ours; release only ours) and what a refusal means,
// then the cursor and sweep marks against the emulator.
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  MAINTENANCE_PK,
  deleteSweepMarks,
  getMaintenanceCursor,
  getSweepMarks,
  putMaintenanceCursor,
  putSweepMarks,
  releaseMaintenanceLease,
  tryAcquireMaintenanceLease,
} from '../../lib/metadata/maintenance-items.js';
import { conditionFailed, mockedDdbContext } from '../support/mock-ddb.js';
import { createTestContext } from '../support/storage.js';

describe('the job lease (exact requests)', () => {
  it('acquire: put owner + expiry if absent, expired by my clock, or mine', async () => {
    const { ctx, mock } = mockedDdbContext({ now: () => 1000 });
    mock.on(PutCommand).resolvesOnce({}).rejectsOnce(conditionFailed()).rejects(Object.assign(new Error('x'), { name: 'InternalServerError' }));
    expect(await tryAcquireMaintenanceLease(ctx, 5000)).toBe(true);
    const input = mock.commandCalls(PutCommand)[0].args[0].input;
    expect(input.Item).toEqual({ pk: MAINTENANCE_PK, sk: 'LEASE', owner: ctx.ownerId, expiresAt: 5000 });
    expect(input.ConditionExpression).toBe('attribute_not_exists(pk) OR expiresAt < :now OR #owner = :me');
    expect(input.ExpressionAttributeNames).toEqual({ '#owner': 'owner' });
    expect(input.ExpressionAttributeValues).toEqual({ ':now': 1000, ':me': ctx.ownerId });
    expect(await tryAcquireMaintenanceLease(ctx, 5000)).toBe(false); // someone else's, live
    await expect(tryAcquireMaintenanceLease(ctx, 5000)).rejects.toMatchObject({ name: 'InternalServerError' });
  });
  it('release: delete only if mine; someone else\'s is left alone silently', async () => {
    const { ctx, mock } = mockedDdbContext();
    mock.on(DeleteCommand).resolvesOnce({}).rejectsOnce(conditionFailed()).rejects(Object.assign(new Error('x'), { name: 'InternalServerError' }));
    await releaseMaintenanceLease(ctx);
    const input = mock.commandCalls(DeleteCommand)[0].args[0].input;
    expect(input.Key).toEqual({ pk: MAINTENANCE_PK, sk: 'LEASE' });
    expect(input.ConditionExpression).toBe('#owner = :me');
    expect(input.ExpressionAttributeValues).toEqual({ ':me': ctx.ownerId });
    await expect(releaseMaintenanceLease(ctx)).resolves.toBeUndefined();
    await expect(releaseMaintenanceLease(ctx)).rejects.toMatchObject({ name: 'InternalServerError' });
  });
});

describe('against the emulator', () => {
  it('one holder at a time until expiry; release lets the next in', async () => {
    let now = 1000;
    const base = await createTestContext();
    const a = { ...base, ownerId: 'A', now: () => now };
    const b = { ...base, ownerId: 'B', now: () => now };
    expect(await tryAcquireMaintenanceLease(a, 2000)).toBe(true);
    expect(await tryAcquireMaintenanceLease(a, 3000)).toBe(true); // renew
    expect(await tryAcquireMaintenanceLease(b, 3000)).toBe(false);
    await releaseMaintenanceLease(b); // not b's: no effect
    expect(await tryAcquireMaintenanceLease(b, 3000)).toBe(false);
    now = 3001;
    expect(await tryAcquireMaintenanceLease(b, 9000)).toBe(true);
    await releaseMaintenanceLease(b);
    now = 3002;
    expect(await tryAcquireMaintenanceLease(a, 9000)).toBe(true);
  });
  it('cursor and sweep marks: put, read, clear', async () => {
    const ctx = await createTestContext();
    expect(await getMaintenanceCursor(ctx)).toBeUndefined();
    await putMaintenanceCursor(ctx, { topic: 't', task: 3 });
    expect(await getMaintenanceCursor(ctx)).toEqual({ topic: 't', task: 3 });
    await putMaintenanceCursor(ctx, undefined);
    expect(await getMaintenanceCursor(ctx)).toBeUndefined();
    expect(await getSweepMarks(ctx, 't')).toEqual({});
    await putSweepMarks(ctx, 't', { 'a/b.log': 5 });
    expect(await getSweepMarks(ctx, 't')).toEqual({ 'a/b.log': 5 });
    expect(await getSweepMarks(ctx, 'u')).toEqual({});
    await putSweepMarks(ctx, 't', {}); // empty marks delete the item
    expect(await getSweepMarks(ctx, 't')).toEqual({});
    await putSweepMarks(ctx, 'u', { k: 1 });
    await deleteSweepMarks(ctx, 'u');
    expect(await getSweepMarks(ctx, 'u')).toEqual({});
  });
});
