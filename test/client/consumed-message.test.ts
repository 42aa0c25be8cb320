// lib/client/consumed-message.ts: fetched records as user code sees them. Batches CRC-checked,
// records before the offset skipped, control batches skipped, repeated header keys as arrays,
// corrupt or oversized batches as client errors.
import { describe, expect, it } from 'vitest';
import { decodeFetched, decodeFetchedBatches } from '../../lib/client/consumed-message.js';
import { encodeRecordBatch } from '../../lib/records/index.js';

const batch = (base: number, n: number, compression: 'none' | 'gzip' = 'none', size = 2) =>
  encodeRecordBatch(
    Array.from({ length: n }, (_, i) => ({ timestamp: 10 + i, key: Buffer.from(`k${base + i}`), value: Buffer.alloc(size, 97), headers: [{ key: 'h', value: Buffer.from('1') }, { key: 'h', value: null }] })),
    { baseOffset: base, compression },
  );

describe('decodeFetchedBatches', () => {
  it('records at or after the offset, across batches, headers grouped by key', () => {
    const out = decodeFetchedBatches(Buffer.concat([batch(0, 3), batch(3, 2)]), 2);
    expect(out.map((m) => m.offset)).toEqual([2, 3, 4]);
    expect(out[0]).toMatchObject({ timestamp: 12, key: Buffer.from('k2'), value: Buffer.from('aa') });
    expect(out[0].headers).toEqual({ h: [Buffer.from('1'), null] });
  });
  it('a flipped byte: retriable CORRUPT_MESSAGE', () => {
    const b = batch(0, 2);
    b[b.length - 1] ^= 1;
    expect(() => decodeFetchedBatches(b, 0)).toThrow(expect.objectContaining({ code: 'CORRUPT_MESSAGE', retriable: true }));
  });
  it('a batch inflating past the limit: MESSAGE_TOO_LARGE, not retriable', () => {
    const b = batch(0, 4, 'gzip', 10_000);
    expect(() => decodeFetchedBatches(b, 0, { maxDecompressedBytes: 1000 })).toThrow(expect.objectContaining({ code: 'MESSAGE_TOO_LARGE', retriable: false, details: { maxDecompressedBytes: 1000 } }));
    expect(decodeFetchedBatches(b, 0)).toHaveLength(4);
  });
});

describe('decodeFetched (JSON base64 records)', () => {
  it('base64 fields to Buffers, nulls kept, repeated header keys as arrays', () => {
    const m = decodeFetched({ offset: 5, timestamp: 9, key: null, value: 'aGk=', headers: [{ key: 'a', value: 'eA==' }, { key: 'a', value: 'eQ==' }, { key: 'b', value: null }] });
    expect(m).toEqual({ offset: 5, timestamp: 9, key: null, value: Buffer.from('hi'), headers: { a: [Buffer.from('x'), Buffer.from('y')], b: null } });
    expect(decodeFetched({ offset: 0, timestamp: 0, value: null } as never)).toMatchObject({ key: null, value: null, headers: {} });
  });
});
