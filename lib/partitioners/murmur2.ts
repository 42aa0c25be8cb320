// Kafka's key hash: Utils.murmur2 from the Java client (MurmurHash2, seed 0x9747b28c), returning
// the same signed 32-bit int Java does. Partition placement depends on every bit of it, so a
// key produced through Sluice lands on the same partition as one produced by a Java client.

const SEED = 0x9747b28c;
const M = 0x5bd1e995;
const R = 24;

/** Java's `Utils.murmur2(data)`: a signed int32. */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let h = SEED ^ length;
  const length4 = length >>> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4;
    let k = data[i4] | (data[i4 + 1] << 8) | (data[i4 + 2] << 16) | (data[i4 + 3] << 24);
    k = Math.imul(k, M);
    k ^= k >>> R;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const tail = length & ~3;
  // Java's switch falls through: 3 mixes bytes 2,1,0; 2 mixes 1,0; 1 mixes 0.
  switch (length & 3) {
    case 3:
      h ^= data[tail + 2] << 16;
    // falls through
    case 2:
      h ^= data[tail + 1] << 8;
    // falls through
    case 1:
      h ^= data[tail];
      h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** Java's `Utils.toPositive`: clears the sign bit (not Math.abs, which Kafka avoids). */
export function toPositive(n: number): number {
  return n & 0x7fffffff;
}
