import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32c } from '../../lib/records/index.js';
import { kafkajsCrc32c } from './kafkajs-codec.js';

/** Bit-at-a-time CRC-32C straight from the definition, to check the sliced tables against. */
function referenceCrc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

describe('crc32c', () => {
  it('gives the CRC-32C check value for "123456789"', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
  });

  // RFC 3720 (iSCSI) appendix B.4 test vectors.
  it.each([
    ['32 zero bytes', Buffer.alloc(32, 0x00), 0x8a9136aa],
    ['32 0xff bytes', Buffer.alloc(32, 0xff), 0x62a8ab43],
    ['bytes 0..31 ascending', Buffer.from(Array.from({ length: 32 }, (_, i) => i)), 0x46dd794e],
    ['bytes 31..0 descending', Buffer.from(Array.from({ length: 32 }, (_, i) => 31 - i)), 0x113fdb5c],
  ])('matches RFC 3720 for %s', (_name, bytes, expected) => {
    expect(crc32c(bytes)).toBe(expected);
  });

  it('is 0 for no bytes', () => {
    expect(crc32c(Buffer.alloc(0))).toBe(0);
  });

  it('checksums exactly the [start, end) range', () => {
    const framed = Buffer.concat([Buffer.from('xx'), Buffer.from('123456789'), Buffer.from('yyy')]);
    expect(crc32c(framed, 2, 11)).toBe(0xe3069283);
    expect(crc32c(framed, 2)).toBe(crc32c(framed.subarray(2)));
  });

  it('refuses a range outside the buffer', () => {
    expect(() => crc32c(Buffer.alloc(4), 0, 5)).toThrow(RangeError);
    expect(() => crc32c(Buffer.alloc(4), 3, 2)).toThrow(RangeError);
    expect(() => crc32c(Buffer.alloc(4), -1)).toThrow(RangeError);
  });

  it('agrees with the bit-at-a-time definition and with kafkajs for any bytes and range', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(), fc.nat(), (bytes, a, b) => {
        const buf = Buffer.from(bytes);
        const start = bytes.length === 0 ? 0 : a % (bytes.length + 1);
        const end = start + (b % (bytes.length - start + 1));
        const slice = buf.subarray(start, end);
        const expected = referenceCrc32c(slice);
        expect(crc32c(buf, start, end)).toBe(expected);
        expect(kafkajsCrc32c(Buffer.from(slice))).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});
