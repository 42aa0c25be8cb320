// lib/records/int64.ts: signed big-endian int64 as JS numbers, refusing what is not a safe integer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CorruptRecordError } from '../../lib/records/errors.js';
import { readInt64, writeInt64 } from '../../lib/records/int64.js';

describe('int64', () => {
  it('property: agrees with Buffer\'s BigInt codec over the safe range, both ways', () => {
    fc.assert(
      fc.property(fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), (n) => {
        const ours = Buffer.alloc(10);
        writeInt64(ours, n, 1);
        const ref = Buffer.alloc(10);
        ref.writeBigInt64BE(BigInt(n), 1);
        expect(ours).toEqual(ref);
        expect(readInt64(ref, 1, 'f')).toBe(n);
      }),
    );
  });
  it('-1 is all ones (Kafka\'s "none")', () => {
    const b = Buffer.alloc(8);
    writeInt64(b, -1, 0);
    expect(b.toString('hex')).toBe('ffffffffffffffff');
  });
  it('outside ±(2^53 - 1): CorruptRecordError naming the field and position', () => {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(2n ** 53n, 0);
    expect(() => readInt64(b, 0, 'baseOffset')).toThrow(CorruptRecordError);
    expect(() => readInt64(b, 0, 'baseOffset')).toThrow(/baseOffset at byte 0/);
    b.writeBigInt64BE(-(2n ** 60n), 0);
    expect(() => readInt64(b, 0, 'x')).toThrow(CorruptRecordError);
  });
});
