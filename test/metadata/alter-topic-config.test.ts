// lib/metadata/alter-topic-config.ts against the emulators: set and delete (back to the default),
// validateOnly, refusals that leave the stored item byte for byte as it was, a lost race re-applied
// (not overwritten) — interleaved deterministically between two processes' contexts and at random
// with many at once —, a topic deleted or re-created meanwhile, and the warm cache of the process
// that altered.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { type SluiceContext, createContext } from '../../lib/context.js';
import { alterTopicConfig, applyConfigChanges, topicConfigKeys } from '../../lib/metadata/alter-topic-config.js';
import { topicKey } from '../../lib/metadata/keys.js';
import { DEFAULT_TOPIC_CONFIG, createTopic, deleteTopicItem, getTopic, getTopicCached } from '../../lib/metadata/topics.js';
import { createTestContext, emulatorClients } from '../support/storage.js';

async function storedItem(ctx: SluiceContext, name: string) {
  return (await ctx.ddb.send(new GetCommand({ TableName: ctx.table, Key: topicKey(name), ConsistentRead: true }))).Item;
}

/** A second process on the same table: its own clients, caches and metrics. */
function otherProcess(ctx: SluiceContext): SluiceContext {
  return createContext(emulatorClients(), { bucket: ctx.bucket, table: ctx.table, leaseMs: ctx.leaseMs, graceMs: ctx.graceMs });
}

/** Runs `during` once, just before the context's next UpdateItem of a topic item is sent. */
function beforeNextTopicUpdate(ctx: SluiceContext, during: () => Promise<void>) {
  let fired = false;
  (ctx.ddb.middlewareStack as unknown as { add: (m: unknown, o: unknown) => void }).add(
    (next: (args: unknown) => Promise<unknown>) => async (args: { input: { UpdateExpression?: string; Key?: { pk?: unknown } } }) => {
      const pk = args.input.Key?.pk;
      // The document client's commands reach the stack with marshalled keys ({S: ...}).
      const isTopicItem = pk === 'TOPICS' || (pk as { S?: string } | undefined)?.S === 'TOPICS';
      if (!fired && typeof args.input.UpdateExpression === 'string' && isTopicItem) {
        fired = true;
        await during();
      }
      return next(args);
    },
    { step: 'initialize', name: `beforeTopicUpdate${Math.random()}` },
  );
}

describe('applyConfigChanges', () => {
  it('sets, deletes back to the default, validates whole', () => {
    const current = { ...DEFAULT_TOPIC_CONFIG, 'retention.ms': 1000, 'segment.bytes': 4096 };
    expect(applyConfigChanges(current, { set: { 'retention.bytes': '2048' }, delete: ['segment.bytes'] })).toEqual({
      ...DEFAULT_TOPIC_CONFIG,
      'retention.ms': 1000,
      'retention.bytes': 2048,
    });
    expect(() => applyConfigChanges(current, { set: { 'retention.ms': 'soon' } })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG' }));
    expect(() => applyConfigChanges(current, { set: { 'no.such.key': '1' } })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG' }));
    expect(() => applyConfigChanges(current, { delete: ['no.such.key'] })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG' }));
    expect(() => applyConfigChanges(current, { set: { 'retention.ms': 1 }, delete: ['retention.ms'] })).toThrow(
      expect.objectContaining({ code: 'INVALID_REQUEST' }),
    );
    expect(topicConfigKeys()).toEqual(Object.keys(DEFAULT_TOPIC_CONFIG));
  });
});

describe('alterTopicConfig', () => {
  it('sets and deletes keys; a deleted key is back at its default; validateOnly writes nothing', async () => {
    const ctx = await createTestContext();
    await createTopic(ctx, 'orders', 2, { 'retention.ms': 1000, 'segment.bytes': 4096 });
    const altered = await alterTopicConfig(ctx, 'orders', { set: { 'retention.ms': '3600000', 'retention.bytes': 1 << 20 }, delete: ['segment.bytes'] });
    expect(altered).toMatchObject({ name: 'orders', partitions: 2 });
    expect(altered.config).toEqual({ ...DEFAULT_TOPIC_CONFIG, 'retention.ms': 3_600_000, 'retention.bytes': 1 << 20 });
    expect((await getTopic(ctx, 'orders'))!.config).toEqual(altered.config);

    const before = await storedItem(ctx, 'orders');
    const dry = await alterTopicConfig(ctx, 'orders', { set: { 'max.message.bytes': 1000 } }, { validateOnly: true });
    expect(dry.config['max.message.bytes']).toBe(1000);
    expect(await storedItem(ctx, 'orders')).toEqual(before);
    // A change to the values the topic has already is answered without a write.
    expect((await alterTopicConfig(ctx, 'orders', { set: { 'retention.ms': 3_600_000 }, delete: ['segment.bytes'] })).config).toEqual(altered.config);
    expect(await storedItem(ctx, 'orders')).toEqual(before);
  });

  it('refuses a change with one bad key or value whole: the stored item is unchanged', async () => {
    const ctx = await createTestContext();
    await createTopic(ctx, 'orders', 1, { 'retention.ms': 1000 });
    const before = await storedItem(ctx, 'orders');
    const refusals: [Parameters<typeof alterTopicConfig>[2], string][] = [
      [{ set: { 'retention.ms': 5000, 'segment.bytes': 'big' } }, 'INVALID_CONFIG'],
      [{ set: { 'retention.ms': 5000, 'retention.hours': 1 } }, 'INVALID_CONFIG'],
      [{ set: { 'retention.ms': 5000, 'max.message.bytes': 1 << 30 } }, 'INVALID_CONFIG'],
      [{ set: { 'retention.ms': -2 } }, 'INVALID_CONFIG'],
      [{ set: { 'retention.ms': 5000 }, delete: ['log.retention.hours'] }, 'INVALID_CONFIG'],
      [{ set: { 'retention.ms': 5000 }, delete: ['retention.ms'] }, 'INVALID_REQUEST'],
      [{ delete: ['segment.ms', 'segment.ms'] }, 'INVALID_REQUEST'],
    ];
    for (const [changes, code] of refusals) {
      await expect(alterTopicConfig(ctx, 'orders', changes), JSON.stringify(changes)).rejects.toMatchObject({ code });
    }
    expect(await storedItem(ctx, 'orders')).toEqual(before);
    await expect(alterTopicConfig(ctx, 'missing', { set: { 'retention.ms': 1 } })).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
    await expect(alterTopicConfig(ctx, 'a b', { set: { 'retention.ms': 1 } })).rejects.toMatchObject({ code: 'INVALID_TOPIC_EXCEPTION' });
    expect(await getTopic(ctx, 'missing')).toBeUndefined();
  });

  it('an alter that lost the race re-applies its change over the winner: both changes land', async () => {
    const ctx = await createTestContext();
    const other = otherProcess(ctx);
    await createTopic(ctx, 'orders', 1);
    // ctx has read the item (version 0) when the other process writes version 1 under it.
    beforeNextTopicUpdate(ctx, async () => {
      await alterTopicConfig(other, 'orders', { set: { 'retention.bytes': 777 } });
    });
    const result = await alterTopicConfig(ctx, 'orders', { set: { 'retention.ms': 5000 } });
    expect(result.config).toMatchObject({ 'retention.ms': 5000, 'retention.bytes': 777 });
    expect(await storedItem(ctx, 'orders')).toMatchObject({ configVersion: 2, config: expect.objectContaining({ 'retention.ms': 5000, 'retention.bytes': 777 }) });
  });

  it('many processes altering different keys at once: none is lost', async () => {
    const ctx = await createTestContext();
    await createTopic(ctx, 'orders', 1);
    const changes: Record<string, number> = {
      'retention.ms': 11_000,
      'retention.bytes': 22_000,
      'segment.bytes': 33_000,
      'segment.ms': 44_000,
      'max.message.bytes': 55_000,
      'index.interval.bytes': 66_000,
    };
    await Promise.all(Object.entries(changes).map(([key, value]) => alterTopicConfig(otherProcess(ctx), 'orders', { set: { [key]: value } })));
    expect((await getTopic(ctx, 'orders'))!.config).toMatchObject(changes);
    expect((await storedItem(ctx, 'orders'))!.configVersion).toBe(Object.keys(changes).length);
  });

  it('a topic deleted meanwhile is UNKNOWN_TOPIC_OR_PARTITION; one re-created meanwhile gets the change, not the old config', async () => {
    const ctx = await createTestContext();
    const other = otherProcess(ctx);
    await createTopic(ctx, 'gone', 1);
    beforeNextTopicUpdate(ctx, async () => void (await deleteTopicItem(other, 'gone')));
    await expect(alterTopicConfig(ctx, 'gone', { set: { 'retention.ms': 1 } })).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC_OR_PARTITION' });
    expect(await storedItem(ctx, 'gone')).toBeUndefined();

    const first = await createTopic(ctx, 'again', 1, { 'segment.bytes': 4096 });
    beforeNextTopicUpdate(ctx, async () => {
      await deleteTopicItem(other, 'again');
      await createTopic(other, 'again', 3);
    });
    const result = await alterTopicConfig(ctx, 'again', { set: { 'retention.ms': 9000 } });
    expect(result.id).not.toBe(first.id);
    expect(result.partitions).toBe(3);
    expect(result.config).toEqual({ ...DEFAULT_TOPIC_CONFIG, 'retention.ms': 9000 });
  });

  it("the altering process's warm cache answers the new config at once; another's within TOPIC_CACHE_MS", async () => {
    const ctx = await createTestContext();
    const other = otherProcess(ctx);
    await createTopic(ctx, 'orders', 1);
    expect((await getTopicCached(ctx, 'orders')).config['max.message.bytes']).toBe(DEFAULT_TOPIC_CONFIG['max.message.bytes']);
    expect((await getTopicCached(other, 'orders')).config['max.message.bytes']).toBe(DEFAULT_TOPIC_CONFIG['max.message.bytes']);
    await alterTopicConfig(ctx, 'orders', { set: { 'max.message.bytes': 2000 } });
    expect((await getTopicCached(ctx, 'orders')).config['max.message.bytes']).toBe(2000);
    // The other process still holds its entry (documented: up to TOPIC_CACHE_MS) ...
    expect((await getTopicCached(other, 'orders')).config['max.message.bytes']).toBe(DEFAULT_TOPIC_CONFIG['max.message.bytes']);
    // ... and reads the table again once it expires.
    const later = { ...other, now: () => Date.now() + 3_000 };
    expect((await getTopicCached(later, 'orders')).config['max.message.bytes']).toBe(2000);
  });
});
