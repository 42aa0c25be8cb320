// lib/client/producer-identity.ts: one producer id per identity (shared by concurrent callers,
// re-requested after a failure), sequences per partition wrapping at 2^31, reset starts over.
import { describe, expect, it } from 'vitest';
import { ProducerIdentity } from '../../lib/client/producer-identity.js';
import type { SluiceApi } from '../../lib/client/wire.js';

function api(replies: (() => Promise<{ producerId: number; producerEpoch: number }>)[]) {
  let calls = 0;
  return { api: { initProducer: () => replies[Math.min(calls++, replies.length - 1)]() } as unknown as SluiceApi, calls: () => calls };
}

describe('ProducerIdentity', () => {
  it('concurrent callers share one request', async () => {
    const a = api([async () => ({ producerId: 7, producerEpoch: 0 })]);
    const id = new ProducerIdentity(a.api);
    const [x, y] = await Promise.all([id.current(), id.current()]);
    expect(x).toEqual({ producerId: 7, producerEpoch: 0 });
    expect(y).toBe(x);
    expect(a.calls()).toBe(1);
  });
  it('a failed request is not kept: the next call asks again', async () => {
    const a = api([async () => Promise.reject(new Error('down')), async () => ({ producerId: 8, producerEpoch: 0 })]);
    const id = new ProducerIdentity(a.api);
    await expect(id.current()).rejects.toThrow('down');
    await expect(id.current()).resolves.toEqual({ producerId: 8, producerEpoch: 0 });
    expect(a.calls()).toBe(2);
  });
  it('sequences per partition from 0, wrapping at 2^31; reset forgets id and sequences', async () => {
    const a = api([async () => ({ producerId: 1, producerEpoch: 0 }), async () => ({ producerId: 2, producerEpoch: 0 })]);
    const id = new ProducerIdentity(a.api);
    expect(id.reserve('t', 0, 5)).toBe(0);
    expect(id.reserve('t', 0, 3)).toBe(5);
    expect(id.reserve('t', 1, 1)).toBe(0);
    expect(id.reserve('u', 0, 1)).toBe(0);
    id.reserve('w', 0, 2 ** 31 - 2);
    expect(id.reserve('w', 0, 4)).toBe(2 ** 31 - 2);
    expect(id.reserve('w', 0, 1)).toBe(2);
    expect((await id.current()).producerId).toBe(1);
    id.reset();
    expect(id.reserve('t', 0, 1)).toBe(0);
    expect((await id.current()).producerId).toBe(2);
  });
});
