// The process's mutable state held by the context (lib/context.ts): each cache slot is per context
// (a spread copy shares it, a new context does not), the topic cache lives there and never trusts
// an entry from a clock ahead of its own, keyless produces rotate per context, and the metrics lib/
// records go to the context's instance.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { ProcessCaches, cacheSlot, createContext, type SluiceContext } from '../lib/context.js';
import { metrics as processMetrics, type SluiceMetrics } from '../lib/observability/metrics.js';
import { getTopicCached } from '../lib/metadata/topics.js';
import { call } from './api/call.js';
import { mockedDdbContext } from './support/mock-ddb.js';
import { createTestContext } from './support/storage.js';

const clients = { s3: {} as never, ddb: {} as never };

describe('ProcessCaches', () => {
  it('creates a slot once per holder, fresh per createContext, shared by a spread copy; injectable', () => {
    const counter = cacheSlot('counter', () => ({ n: 0 }));
    const a = createContext(clients, {}, {});
    a.caches.get(counter).n++;
    expect(a.caches.get(counter).n).toBe(1);
    expect({ ...a, now: () => 0 }.caches.get(counter).n).toBe(1);
    expect(createContext(clients, {}, {}).caches.get(counter).n).toBe(0);
    expect(a.caches.names()).toEqual(['counter']);
    const shared = new ProcessCaches();
    expect(createContext(clients, {}, {}, { caches: shared }).caches).toBe(shared);
    a.caches.clear();
    expect(a.caches.get(counter).n).toBe(0);
  });

  it('two slots of the same name are still two slots', () => {
    const caches = new ProcessCaches();
    const one = cacheSlot('x', () => [1]);
    const two = cacheSlot('x', () => [2]);
    expect([caches.get(one), caches.get(two)]).toEqual([[1], [2]]);
  });
});

describe('the topic cache', () => {
  const item = { pk: 'TOPICS', sk: 't', name: 't', id: 'abc', partitions: 2, config: {}, createdAt: 1 };

  it('is read once per context within TOPIC_CACHE_MS, again by another context', async () => {
    let t = 1_000_000;
    const { ctx, mock } = mockedDdbContext({ now: () => t });
    mock.on(GetCommand).resolves({ Item: item });
    await getTopicCached(ctx, 't');
    t += 2999;
    await getTopicCached(ctx, 't');
    expect(mock.commandCalls(GetCommand)).toHaveLength(1);
    expect(ctx.caches.names()).toContain('topics');
    t += 1;
    await getTopicCached(ctx, 't');
    expect(mock.commandCalls(GetCommand)).toHaveLength(2);
    await getTopicCached({ ...ctx, caches: new ProcessCaches() }, 't');
    expect(mock.commandCalls(GetCommand)).toHaveLength(3);
  });

  it('an entry read by a clock ahead of this one is not fresh', async () => {
    const { ctx, mock } = mockedDdbContext({ now: () => 5_000_000 });
    mock.on(GetCommand).resolves({ Item: item });
    await getTopicCached(ctx, 't');
    await getTopicCached({ ...ctx, now: () => 1_000 }, 't');
    expect(mock.commandCalls(GetCommand)).toHaveLength(2);
  });
});

describe('per-context rotation and metrics (emulators)', () => {
  it('keyless produces rotate per context, and appends and fetches are recorded in the context metrics', async () => {
    const base = await createTestContext();
    expect(base.metrics).toBe(processMetrics);
    const recorded = { appended: vi.fn(), fetched: vi.fn() };
    const fake = recorded as unknown as SluiceMetrics;
    expect((await call(base, 'POST', '/v1/topics', { name: 'rot', partitions: 3 })).status).toBe(201);
    const partitionOf = async (ctx: SluiceContext) =>
      (await call(ctx, 'POST', '/v1/topics/rot/records', { records: [{ value: 'v' }] })).body.offsets[0].partition as number;
    const a = { ...base, metrics: fake };
    const b = createContext({ s3: base.s3, ddb: base.ddb }, { bucket: base.bucket, table: base.table }, {}, { metrics: fake });
    const first = await partitionOf(a);
    // A new context starts its own rotation where a fresh process would; `a` moves on.
    expect(await partitionOf(b)).toBe(first);
    expect(await partitionOf(a)).toBe((first + 1) % 3);
    expect(recorded.appended).toHaveBeenCalledTimes(3);
    await call(a, 'GET', `/v1/topics/rot/partitions/${first}/records`, undefined, { offset: '0' });
    expect(recorded.fetched).toHaveBeenCalledTimes(1);
  });
});
