// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum Kafka's RecordBatch v2
// stores over everything from `attributes` to the end of the batch. Slice-by-8 tables: eight
// bytes per step keep checksum cost well below decode cost for megabyte segments.

const POLYNOMIAL = 0x82f63b78;

const TABLES: Int32Array = (() => {
  const t = new Int32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLYNOMIAL : c >>> 1;
    t[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n];
    for (let k = 1; k < 8; k++) {
      c = t[c & 0xff] ^ (c >>> 8);
      t[k * 256 + n] = c;
    }
  }
  return t;
})();

/** CRC-32C of `buf[start, end)` as an unsigned 32-bit number. */
export function crc32c(buf: Uint8Array, start = 0, end = buf.length): number {
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end > buf.length || start > end) {
    throw new RangeError(`crc32c range [${start}, ${end}) is outside a buffer of ${buf.length} bytes`);
  }
  const t = TABLES;
  let crc = -1;
  let i = start;
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
