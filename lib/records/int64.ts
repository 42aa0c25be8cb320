// Big-endian int64 fields (offsets, timestamps, producer ids) as JS numbers. Kafka stores them
// as Java longs; Sluice keeps them as numbers (the HTTP API promises values below 2^53), so a
// stored value outside the safe-integer range is refused rather than silently rounded.

import { CorruptRecordError } from './errors.js';

const TWO_32 = 0x1_0000_0000;

/** Reads a signed int64; throws CorruptRecordError naming `field` when it is not a safe integer. */
export function readInt64(buf: Buffer, position: number, field: string): number {
  const value = buf.readInt32BE(position) * TWO_32 + buf.readUInt32BE(position + 4);
  if (!Number.isSafeInteger(value)) {
    throw new CorruptRecordError(`${field} at byte ${position} is outside the 2^53 range Sluice supports`);
  }
  return value;
}

/** Writes a safe integer as a signed big-endian int64. */
export function writeInt64(buf: Buffer, value: number, position: number): void {
  const high = Math.floor(value / TWO_32);
  buf.writeInt32BE(high, position);
  buf.writeUInt32BE(value - high * TWO_32, position + 4);
}
