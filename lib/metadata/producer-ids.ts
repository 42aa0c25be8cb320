// Producer ids for idempotent producers (Kafka's InitProducerId). Each id is verifiable without a
// read: its high bits are an allocation counter (`PRODUCER` / `NEXT`, incremented with ADD, so
// concurrent allocations never share one), its low 24 bits an HMAC-SHA256 tag of the counter under
// a random key kept in the table (`PRODUCER` / `KEY`, created once, read once per process). A
// made-up id is then refused with UNKNOWN_PRODUCER_ID before anything is written, so nobody can fill
// partitions' STATE items with invented producers' entries (each partition also caps the entries
// it holds: lib/log/producer-sequence.ts). A guess passes one time in 16.7 million.
// Ids stay below 2^53 (JavaScript's safe integers; Kafka's are int64): 2^29 allocations.
// A fresh id always starts at producer epoch 0, as Kafka's InitProducerId does for a new producer.
import { createHmac, randomBytes } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type SluiceContext, cacheSlot } from '../context.js';
import { isConditionalCheckFailed } from './aws-errors.js';

export const PRODUCER_ID_KEY = { pk: 'PRODUCER', sk: 'NEXT' } as const;
export const PRODUCER_KEY_KEY = { pk: 'PRODUCER', sk: 'KEY' } as const;

const TAG_BITS = 24;
const TAG_SPACE = 2 ** TAG_BITS;
const MAX_COUNTER = Math.floor(Number.MAX_SAFE_INTEGER / TAG_SPACE);

// The context's `producerIdKey` cache slot (lib/context.ts): the key never changes once created,
// so it is read once per process; a failed read is forgotten and tried again.
const SIGNING_KEY = cacheSlot('producerIdKey', () => ({ key: undefined as Promise<Buffer> | undefined }));

function signingKey(ctx: SluiceContext): Promise<Buffer> {
  const slot = ctx.caches.get(SIGNING_KEY);
  if (!slot.key) {
    const key = loadOrCreateKey(ctx);
    slot.key = key;
    key.catch(() => {
      if (slot.key === key) slot.key = undefined;
    });
  }
  return slot.key;
}

async function loadOrCreateKey(ctx: SluiceContext): Promise<Buffer> {
  const read = async () =>
    (await ctx.ddb.send(new GetCommand({ TableName: ctx.table, Key: PRODUCER_KEY_KEY, ConsistentRead: true }))).Item?.key as
      | Uint8Array
      | undefined;
  const existing = await read();
  if (existing) return Buffer.from(existing);
  try {
    const fresh = randomBytes(32);
    await ctx.ddb.send(
      new PutCommand({ TableName: ctx.table, Item: { ...PRODUCER_KEY_KEY, key: fresh }, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
    return fresh;
  } catch (e) {
    if (!isConditionalCheckFailed(e)) throw e;
    return Buffer.from((await read())!); // another process created it first
  }
}

function tag(key: Buffer, counter: number): number {
  return createHmac('sha256', key).update(String(counter)).digest().readUIntBE(0, 3);
}

export async function allocateProducerId(ctx: SluiceContext): Promise<{ producerId: number; producerEpoch: number }> {
  const key = await signingKey(ctx);
  const out = await ctx.ddb.send(
    new UpdateCommand({
      TableName: ctx.table,
      Key: PRODUCER_ID_KEY,
      UpdateExpression: 'ADD #next :one',
      ExpressionAttributeNames: { '#next': 'nextProducerId' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  // The counter holds the last allocation; it starts at 1, so no id is 0 or -1 (Kafka's "none").
  const counter = Number(out.Attributes?.nextProducerId);
  if (counter > MAX_COUNTER) throw new Error('producer ids are exhausted');
  return { producerId: counter * TAG_SPACE + tag(key, counter), producerEpoch: 0 };
}

/** Whether `producerId` is one allocateProducerId handed out (no read once the key is known). */
export async function isIssuedProducerId(ctx: SluiceContext, producerId: number): Promise<boolean> {
  if (!Number.isSafeInteger(producerId) || producerId < TAG_SPACE) return false;
  const counter = Math.floor(producerId / TAG_SPACE);
  return producerId % TAG_SPACE === tag(await signingKey(ctx), counter);
}
