// lib/client/record-accumulator.ts: the async producer's buffer. Requests cut at batchSize, a
// linger timer for partial queues, bufferMemory / maxBufferedRecords enforced by blocking (in
// arrival order) or dropping, flush waits for everything, close refuses new records.
import { describe, expect, it } from 'vitest';
import type { PendingRecord } from '../../lib/client/batch-sender.js';
import { RecordAccumulator } from '../../lib/client/record-accumulator.js';

const rec = (id: number, size = 10): PendingRecord => ({ message: { value: `m${id}` }, partition: 0, size });
const ids = (records: PendingRecord[]) => records.map((r) => r.message.value);

function sink(delayMs = 0) {
  const sent: { topic: string; records: PendingRecord[] }[] = [];
  let release: (() => void)[] = [];
  const send = async (topic: string, records: PendingRecord[]) => {
    sent.push({ topic, records });
    if (delayMs < 0) await new Promise<void>((r) => release.push(r)); // held until released
    else if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
  };
  return { sent, send, releaseAll: () => { const r = release; release = []; r.forEach((f) => f()); } };
}

describe('RecordAccumulator', () => {
  it('a full queue goes at once, cut into requests of at most batchSize; the partial rest after lingerMs', async () => {
    const s = sink();
    const acc = new RecordAccumulator({ batchSize: 30, lingerMs: 50 }, s.send);
    await acc.append('t', [1, 2, 3, 4].map((i) => rec(i)));
    expect(s.sent.map((x) => ids(x.records))).toEqual([['m1', 'm2', 'm3']]);
    await new Promise((r) => setTimeout(r, 80));
    expect(s.sent.map((x) => ids(x.records))).toEqual([['m1', 'm2', 'm3'], ['m4']]);
  });

  it('topics are queued apart; flush sends everything now and waits for acknowledgements', async () => {
    const s = sink(5);
    const acc = new RecordAccumulator({ lingerMs: 10_000 }, s.send);
    await acc.append('a', [rec(1)]);
    await acc.append('b', [rec(2), rec(3)]);
    expect(acc.buffered).toEqual({ records: 3, bytes: 30 });
    await acc.flush();
    expect(s.sent.map((x) => [x.topic, ids(x.records)])).toEqual([['a', ['m1']], ['b', ['m2', 'm3']]]);
    expect(acc.buffered).toEqual({ records: 0, bytes: 0 });
  });

  it('a record larger than batchSize still goes (alone)', async () => {
    const s = sink();
    const acc = new RecordAccumulator({ batchSize: 5, lingerMs: 10_000 }, s.send);
    await acc.append('t', [rec(1, 8), rec(2, 8)]);
    await acc.flush();
    expect(s.sent.map((x) => ids(x.records))).toEqual([['m1'], ['m2']]);
  });

  it("'drop': what does not fit is returned and reported, the rest accepted", async () => {
    const s = sink(-1);
    const dropped: unknown[] = [];
    const acc = new RecordAccumulator({ bufferMemory: 25, bufferFullPolicy: 'drop', lingerMs: 10_000, onDrop: (topic, m) => dropped.push([topic, m.map((x) => x.value)]) }, s.send);
    const out = await acc.append('t', [rec(1), rec(2), rec(3), rec(4)]);
    expect(out.accepted).toBe(2);
    expect(out.dropped.map((m) => m.value)).toEqual(['m3', 'm4']);
    expect(dropped).toEqual([['t', ['m3', 'm4']]]);
  });

  it("'block': waits for space freed by acknowledgements; maxBufferedRecords counts records", async () => {
    const s = sink(-1);
    const acc = new RecordAccumulator({ maxBufferedRecords: 2, lingerMs: 10_000 }, s.send);
    let done = false;
    const appending = acc.append('t', [rec(1), rec(2), rec(3)]).then((r) => ((done = true), r));
    await new Promise((r) => setTimeout(r, 20));
    expect(done).toBe(false);
    expect(s.sent.map((x) => ids(x.records))).toEqual([['m1', 'm2']]); // blocked: what was buffered is sent
    s.releaseAll();
    expect((await appending).accepted).toBe(3);
    const flushing = acc.flush();
    await new Promise((r) => setTimeout(r, 5));
    s.releaseAll();
    await flushing;
    expect(s.sent.flatMap((x) => ids(x.records))).toEqual(['m1', 'm2', 'm3']);
  });

  it('refusals: a record larger than bufferMemory; appends after close', async () => {
    const s = sink();
    const acc = new RecordAccumulator({ bufferMemory: 100 }, s.send);
    await expect(acc.append('t', [rec(1, 101)])).rejects.toMatchObject({ code: 'MESSAGE_TOO_LARGE' });
    await acc.append('t', [rec(2)]);
    await acc.close();
    expect(s.sent.flatMap((x) => ids(x.records))).toEqual(['m2']);
    await expect(acc.append('t', [rec(3)])).rejects.toMatchObject({ code: 'PRODUCER_CLOSED' });
  });
});
