// Zigzag varints (int32) and varlongs (int64) as Kafka's ByteUtils writes them inside
// RecordBatch v2 records: 7 bits per byte, least significant group first, high bit = "more".
// Zigzag maps signed to unsigned so small negatives stay short: 0→0, -1→1, 1→2, -2→3, ...
//
// Reads advance a shared ByteCursor instead of returning {value, next} pairs, so decoding a
// record allocates nothing per field. Every read is bounded by `cursor.end`; running past it
// is corruption (a truncated varint), not an out-of-range read of neighbouring bytes.

import { CorruptRecordError } from './errors.js';

/** Read position and exclusive bound inside a buffer. */
export interface ByteCursor {
  position: number;
  end: number;
}

const INT32_MIN = -0x8000_0000;
const INT32_MAX = 0x7fff_ffff;

function isInt32(value: number): boolean {
  return Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX;
}

/** Bytes taken by `value` (an int32) as a zigzag varint. */
export function sizeOfVarint(value: number): number {
  const z = ((value << 1) ^ (value >> 31)) >>> 0;
  if (z < 0x80) return 1;
  if (z < 0x4000) return 2;
  if (z < 0x20_0000) return 3;
  if (z < 0x1000_0000) return 4;
  return 5;
}

/** Bytes taken by `value` (a safe integer) as a zigzag varlong. */
export function sizeOfVarlong(value: number): number {
  if (isInt32(value)) return sizeOfVarint(value);
  // Exact enough: the byte-count boundaries (2^35, 2^42, 2^49, 2^56) are never crossed by rounding.
  let z = value >= 0 ? value * 2 : -value * 2 - 1;
  let size = 1;
  while (z >= 0x80) {
    z = Math.floor(z / 0x80);
    size++;
  }
  return size;
}

/** Writes `value` (an int32) as a zigzag varint at `position`; returns the position after it. */
export function writeVarint(buf: Uint8Array, value: number, position: number): number {
  let z = ((value << 1) ^ (value >> 31)) >>> 0;
  while (z >= 0x80) {
    buf[position++] = (z & 0x7f) | 0x80;
    z >>>= 7;
  }
  buf[position++] = z;
  return position;
}

/** Writes `value` (a safe integer) as a zigzag varlong at `position`; returns the position after it. */
export function writeVarlong(buf: Uint8Array, value: number, position: number): number {
  if (isInt32(value)) return writeVarint(buf, value, position);
  const n = BigInt(value);
  let z = BigInt.asUintN(64, (n << 1n) ^ (n >> 63n));
  while (z >= 0x80n) {
    buf[position++] = Number(z & 0x7fn) | 0x80;
    z >>= 7n;
  }
  buf[position++] = Number(z);
  return position;
}

/**
 * Reads a zigzag varint (int32). Like Kafka's ByteUtils.readVarint, a fifth byte with the
 * continuation bit set is an error; the fifth byte's bits above 32 are dropped as Java does.
 */
export function readVarint(buf: Uint8Array, cursor: ByteCursor): number {
  let position = cursor.position;
  const end = cursor.end;
  let value = 0;
  let shift = 0;
  let b: number;
  for (;;) {
    if (position >= end) throw new CorruptRecordError(`truncated varint at byte ${cursor.position}`);
    b = buf[position++];
    if ((b & 0x80) === 0) break;
    value |= (b & 0x7f) << shift;
    shift += 7;
    if (shift > 28) throw new CorruptRecordError(`varint at byte ${cursor.position} is longer than 5 bytes`);
  }
  value |= b << shift;
  cursor.position = position;
  return (value >>> 1) ^ -(value & 1);
}

/**
 * Reads a zigzag varlong (int64) as a number. At most 10 bytes, as Kafka's readVarlong; values
 * outside the safe-integer range are refused (Sluice's timestamps and offsets are numbers).
 */
export function readVarlong(buf: Uint8Array, cursor: ByteCursor): number {
  const start = cursor.position;
  const end = cursor.end;
  let position = start;
  let z = 0;
  let multiplier = 1;
  for (let i = 0; ; i++) {
    if (i === 10) throw new CorruptRecordError(`varlong at byte ${start} is longer than 10 bytes`);
    if (position >= end) throw new CorruptRecordError(`truncated varlong at byte ${start}`);
    const b = buf[position++];
    z += (b & 0x7f) * multiplier;
    if ((b & 0x80) === 0) break;
    multiplier *= 0x80;
  }
  cursor.position = position;
  if (z <= Number.MAX_SAFE_INTEGER) return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  return readLargeVarlong(buf, start, position);
}

function readLargeVarlong(buf: Uint8Array, start: number, end: number): number {
  let z = 0n;
  let shift = 0n;
  for (let i = start; i < end; i++, shift += 7n) z |= BigInt(buf[i] & 0x7f) << shift;
  z = BigInt.asUintN(64, z);
  const n = BigInt.asIntN(64, (z >> 1n) ^ -(z & 1n));
  if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new CorruptRecordError(`varlong at byte ${start} is outside the 2^53 range Sluice supports`);
  }
  return Number(n);
}
