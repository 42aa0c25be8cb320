// lib/client/batch-encoder.ts: a send's records as one RecordBatch per partition, split only past
// max.message.bytes (sequences continuing across the split), frames spread over requests only past
// the body limit.
import { describe, expect, it } from 'vitest';
import { encodeProduceRequests, toRecordInput } from '../../lib/client/batch-encoder.js';
import { decodeBatchFrames } from '../../lib/records/batch-frames.js';
import { decodeRecordBatch } from '../../lib/records/index.js';

const frames = (body: Buffer) => [...decodeBatchFrames(body)].map((f) => ({ partition: f.partition, batch: decodeRecordBatch(f.bytes) }));

describe('batch encoder', () => {
  it('toRecordInput: strings to UTF-8, numeric-string timestamps, now when absent, headers listed', () => {
    expect(toRecordInput({ key: 'k', value: 'v', headers: { h: ['a', 'b'] }, timestamp: '42' }, 1000)).toEqual({
      timestamp: 42,
      key: Buffer.from('k'),
      value: Buffer.from('v'),
      headers: [{ key: 'h', value: Buffer.from('a') }, { key: 'h', value: Buffer.from('b') }],
    });
    expect(toRecordInput({ value: null }, 1000)).toEqual({ timestamp: 1000, key: null, value: null, headers: [] });
  });

  it('one batch per partition in order of first appearance, base offset 0, non-idempotent fields -1', () => {
    const bodies = encodeProduceRequests(
      [{ message: { value: 'a' }, partition: 2 }, { message: { value: 'b' }, partition: 0 }, { message: { value: 'c' }, partition: 2 }],
      { maxMessageBytes: 1 << 20, now: 5 },
    );
    expect(bodies).toHaveLength(1);
    const f = frames(bodies[0]);
    expect(f.map((x) => x.partition)).toEqual([2, 0]);
    expect(f[0].batch.records.map((r) => r.value?.toString())).toEqual(['a', 'c']);
    expect(f[0].batch.header).toMatchObject({ baseOffset: 0, producerId: -1, producerEpoch: -1, baseSequence: -1 });
  });

  it('idempotent: producer id, epoch and each partition\'s base sequence; a split continues the sequence', () => {
    const records = Array.from({ length: 8 }, (_, i) => ({ message: { value: 'x'.repeat(100) + i }, partition: 1 }));
    const bodies = encodeProduceRequests(records, { maxMessageBytes: 500, now: 0, producer: { producerId: 77, producerEpoch: 2, baseSequences: new Map([[1, 10]]) } });
    const batches = bodies.flatMap(frames).map((f) => f.batch);
    expect(batches.length).toBeGreaterThan(1);
    expect(bodies.length).toBe(batches.length); // a partition's batches go in successive requests
    let expected = 10;
    for (const b of batches) {
      expect(b.header).toMatchObject({ producerId: 77, producerEpoch: 2, baseSequence: expected });
      expected += b.header.recordCount;
    }
    expect(expected).toBe(18);
    expect(batches.flatMap((b) => b.records.map((r) => r.value?.toString().slice(100)))).toEqual(['0', '1', '2', '3', '4', '5', '6', '7']);
  });

  it('a single record over the limit goes alone (the server refuses it by name)', () => {
    const bodies = encodeProduceRequests([{ message: { value: 'y'.repeat(2000) }, partition: 0 }], { maxMessageBytes: 100, now: 0 });
    expect(bodies.flatMap(frames)).toHaveLength(1);
  });
});
