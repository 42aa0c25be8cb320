// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum Kafka's RecordBatch v2
// stores over everything from `attributes` to the end of the batch. Slicing-by-16 tables, reading
// the input as aligned little-endian 32-bit words through an Int32Array view: sixteen bytes per
// step with four loads instead of sixteen. A reader verifies every batch, so for large values
// decoding is CRC-bound; this is ~1.3-1.5x the byte-wise slicing-by-8 it replaced (bench/).
import { endianness } from 'node:os';

const POLYNOMIAL = 0x82f63b78;
const SLICES = 16;

const TABLES: Int32Array = (() => {
  const t = new Int32Array(SLICES * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLYNOMIAL : c >>> 1;
    t[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n];
    for (let k = 1; k < SLICES; k++) {
      c = t[c & 0xff] ^ (c >>> 8);
      t[k * 256 + n] = c;
    }
  }
  return t;
})();

/** Word reads assume the host's byte order is little-endian (every platform Node ships for today). */
const WORDS = endianness() === 'LE';
/** Below this, a typed-array view costs more than it saves. */
const WORD_PATH_MIN = 64;

/** CRC-32C of `buf[start, end)` as an unsigned 32-bit number. */
export function crc32c(buf: Uint8Array, start = 0, end = buf.length): number {
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end > buf.length || start > end) {
    throw new RangeError(`crc32c range [${start}, ${end}) is outside a buffer of ${buf.length} bytes`);
  }
  const t = TABLES;
  let crc = -1;
  let i = start;
  if (WORDS && end - start >= WORD_PATH_MIN) {
    // Bytes up to a 4-byte boundary of the underlying memory, then whole 16-byte steps.
    for (; ((buf.byteOffset + i) & 3) !== 0; i++) crc = t[(crc ^ buf[i]) & 0xff] ^ (crc >>> 8);
    const steps = (end - i) >>> 4;
    const words = new Int32Array(buf.buffer, buf.byteOffset + i, steps * 4);
    for (let w = 0; w < words.length; w += 4) {
      const a = words[w] ^ crc;
      const b = words[w + 1];
      const c = words[w + 2];
      const d = words[w + 3];
      crc =
        t[3840 + (a & 0xff)] ^
        t[3584 + ((a >>> 8) & 0xff)] ^
        t[3328 + ((a >>> 16) & 0xff)] ^
        t[3072 + (a >>> 24)] ^
        t[2816 + (b & 0xff)] ^
        t[2560 + ((b >>> 8) & 0xff)] ^
        t[2304 + ((b >>> 16) & 0xff)] ^
        t[2048 + (b >>> 24)] ^
        t[1792 + (c & 0xff)] ^
        t[1536 + ((c >>> 8) & 0xff)] ^
        t[1280 + ((c >>> 16) & 0xff)] ^
        t[1024 + (c >>> 24)] ^
        t[768 + (d & 0xff)] ^
        t[512 + ((d >>> 8) & 0xff)] ^
        t[256 + ((d >>> 16) & 0xff)] ^
        t[d >>> 24];
    }
    i += steps * 16;
  }
  for (const stop = end - 8; i <= stop; i += 8) {
    crc ^= buf[i] | (buf[i + 1] << 8) | (buf[i + 2] << 16) | (buf[i + 3] << 24);
    crc =
      t[1792 + (crc & 0xff)] ^
      t[1536 + ((crc >>> 8) & 0xff)] ^
      t[1280 + ((crc >>> 16) & 0xff)] ^
      t[1024 + (crc >>> 24)] ^
      t[768 + buf[i + 4]] ^
      t[512 + buf[i + 5]] ^
      t[256 + buf[i + 6]] ^
      t[buf[i + 7]];
  }
  for (; i < end; i++) crc = t[(crc ^ buf[i]) & 0xff] ^ (crc >>> 8);
  return ~crc >>> 0;
}
