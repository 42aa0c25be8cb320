import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CorruptRecordError } from '../../lib/records/index.js';
import {
  readVarint,
  readVarlong,
  sizeOfVarint,
  sizeOfVarlong,
  writeVarint,
  writeVarlong,
} from '../../lib/records/varint.js';

const require = createRequire(import.meta.url);
const Encoder = require('kafkajs/src/protocol/encoder.js');
const Long = require('kafkajs/src/utils/long.js');

function varint(value: number): string {
  const buf = Buffer.alloc(5);
  return buf.subarray(0, writeVarint(buf, value, 0)).toString('hex');
}

function varlong(value: number): string {
  const buf = Buffer.alloc(10);
  return buf.subarray(0, writeVarlong(buf, value, 0)).toString('hex');
}

function read(hex: string, reader: typeof readVarint): { value: number; position: number } {
  const buf = Buffer.from(hex, 'hex');
  const cursor = { position: 0, end: buf.length };
  const value = reader(buf, cursor);
  return { value, position: cursor.position };
}

describe('zigzag varints', () => {
  // zigzag(n) = 2n for n >= 0, -2n - 1 for n < 0; then 7 bits per byte, low group first.
  it.each([
    [0, '00'],
    [-1, '01'],
    [1, '02'],
    [63, '7e'],
    [-64, '7f'],
    [64, '8001'], // zigzag 128 = 0b1_0000000 -> 0x80 0x01
    [300, 'd804'], // zigzag 600 = 0x258 -> 0x58|0x80, 0x04
    [-300, 'd704'], // zigzag 599
    [2147483647, 'feffffff0f'],
    [-2147483648, 'ffffffff0f'],
  ])('writes the int32 %d as %s and reads it back', (value, hex) => {
    expect(varint(value)).toBe(hex);
    expect(sizeOfVarint(value)).toBe(hex.length / 2);
    expect(read(hex, readVarint)).toEqual({ value, position: hex.length / 2 });
  });

  it.each([
    [0, '00'],
    [-1, '01'],
    [2147483648, '8080808010'], // first value past int32: zigzag 2^32
    [1700000000000, '80a0abfef962'], // a millisecond timestamp, zigzag 3.4e12
    [Number.MAX_SAFE_INTEGER, 'feffffffffffff1f'], // zigzag 2^54 - 2,
    [Number.MIN_SAFE_INTEGER, 'fdffffffffffff1f'], // zigzag 2^54 - 3,
  ])('writes the int64 %d as %s and reads it back', (value, hex) => {
    expect(varlong(value)).toBe(hex);
    expect(sizeOfVarlong(value)).toBe(hex.length / 2);
    expect(read(hex, readVarlong)).toEqual({ value, position: hex.length / 2 });
  });

  it('encodes int32 varints exactly as kafkajs does', () => {
    fc.assert(
      fc.property(fc.integer({ min: -2147483648, max: 2147483647 }), (value) => {
        expect(varint(value)).toBe(new Encoder().writeVarInt(value).buffer.toString('hex'));
      }),
      { numRuns: 3000 },
    );
  });

  it('encodes safe-integer varlongs exactly as kafkajs does, and round-trips them', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (value) => {
        const hex = varlong(value);
        expect(hex).toBe(new Encoder().writeVarLong(Long.fromNumber(value)).buffer.toString('hex'));
        expect(sizeOfVarlong(value)).toBe(hex.length / 2);
        expect(read(hex, readVarlong).value).toBe(value);
      }),
      { numRuns: 3000 },
    );
  });

  it('reads a fifth varint byte as Java does, dropping bits beyond 32', () => {
    // 0x7f in the fifth byte: Java's `b << 28` keeps only its low 4 bits.
    expect(read('ffffffff7f', readVarint).value).toBe(read('ffffffff0f', readVarint).value);
  });

  it('refuses a varint running past the end of its bounds', () => {
    expect(() => read('', readVarint)).toThrow(CorruptRecordError);
    expect(() => read('80', readVarint)).toThrow(/truncated varint/);
    expect(() => read('ffff', readVarlong)).toThrow(/truncated varlong/);
    const buf = Buffer.from('8001', 'hex');
    expect(() => readVarint(buf, { position: 0, end: 1 })).toThrow(CorruptRecordError);
  });

  it('refuses a varint longer than 5 bytes and a varlong longer than 10', () => {
    expect(() => read('ffffffff8f01', readVarint)).toThrow(/longer than 5 bytes/);
    expect(() => read('ffffffffffffffffff8f01', readVarlong)).toThrow(/longer than 10 bytes/);
  });

  it('refuses a varlong outside the safe-integer range rather than rounding it', () => {
    expect(() => read('8080808080808080807f', readVarlong)).toThrow(/2\^53/);
    expect(() => read('8080808080808020', readVarlong)).toThrow(/2\^53/); // zigzag 2^54 = 2^53
  });
});
