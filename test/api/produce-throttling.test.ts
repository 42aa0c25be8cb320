// RELIABILITY.md: "a THROTTLING 429 never stored anything", and an append whose outcome is unknown
// is answered REQUEST_TIMED_OUT (503) — never 429 — because it may still land. Shown for produce
// over the HTTP contract, with faults injected by SDK middleware (test/log/sdk-faults.ts) inside
// the SDK's retry loop, so they travel exactly the code a real throttle or timeout would.
import { describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { getTopic } from '../../lib/metadata/topics.js';
import { createTestContext } from '../support/storage.js';
import { isCommit, isStateRead, observeSdk, serverError, throttlingError, timeoutError } from '../log/sdk-faults.js';
import { call } from './call.js';

const produce = (ctx: SluiceContext, value: string) => call(ctx, 'POST', '/v1/topics/t/records', { records: [{ partition: 0, value }] });
const values = async (ctx: SluiceContext) =>
  (await call(ctx, 'GET', '/v1/topics/t/partitions/0/records', undefined, { offset: '0' })).body.records.map((r: { value: string }) => r.value);

async function setup() {
  const ctx = await createTestContext();
  expect((await call(ctx, 'POST', '/v1/topics', { name: 't', partitions: 1 })).status).toBe(201);
  expect((await produce(ctx, 'before')).status).toBe(200);
  return { ctx, sdk: observeSdk(ctx) };
}

describe('produce: 429 is definite, an unknown outcome is 503 REQUEST_TIMED_OUT', () => {
  it('a throttled update answers 429 THROTTLING and stores nothing', async () => {
    const { ctx, sdk } = await setup();
    const topic = (await getTopic(ctx, 't'))!;
    const stateBefore = await getPartitionState(ctx, topic, 0);
    sdk.fault = (c) => (isCommit(c) ? { when: 'before', error: throttlingError() } : undefined);
    const res = await produce(ctx, 'throttled');
    expect(res).toMatchObject({ status: 429, body: { error: { code: 'THROTTLING', retriable: true } } });
    sdk.fault = () => undefined;
    const stateAfter = await getPartitionState(ctx, topic, 0);
    expect({ logEndOffset: stateAfter.logEndOffset, tail: stateAfter.tail, bytes: stateAfter.bytes }).toEqual({
      logEndOffset: stateBefore.logEndOffset,
      tail: stateBefore.tail,
      bytes: stateBefore.bytes,
    });
    expect(await values(ctx)).toEqual(['before']);
  });

  it.each([
    ['landed (reply lost)', 'after' as const],
    ['not landed (timed out before DynamoDB applied it)', 'before' as const],
  ])('an update whose outcome is unknown — %s — is 503 REQUEST_TIMED_OUT even when the resolution read is throttled', async (_what, when) => {
    const { ctx, sdk } = await setup();
    let committed = false;
    sdk.fault = (c) => {
      if (isCommit(c) && !committed) {
        committed = true;
        return { when, error: timeoutError() };
      }
      // Every read that could resolve the outcome is throttled (or fails with a 5xx).
      if (committed && (c.command === 'GetItem' || c.command === 'Query')) {
        return { when: 'before', error: c.command === 'Query' ? serverError(503, 'ServiceUnavailable') : throttlingError() };
      }
      return undefined;
    };
    const res = await produce(ctx, 'unknown');
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'REQUEST_TIMED_OUT', retriable: true });
    expect(sdk.calls.filter(isCommit)).toHaveLength(1); // an append's commit is never re-sent
    expect(sdk.calls.some((c) => isStateRead(c))).toBe(true); // the resolution was attempted, and throttled
    sdk.fault = () => undefined;
    // Why it cannot be 429: when the update landed, the record is there.
    expect(await values(ctx)).toEqual(when === 'after' ? ['before', 'unknown'] : ['before']);
  });
});
