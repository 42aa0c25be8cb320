// Codec throughput: Sluice's RecordBatch v2 encoder/decoder against kafkajs's own
// (kafkajs/src/protocol/recordBatch/v0 and its decoder) in the same process and run, on the same
// records, as MB/s of encoded batch bytes.
//
// Decoding is measured two ways, because the two decoders do different work:
//   - raw: each library's decoder as is. Sluice's ALWAYS verifies the batch's CRC-32C (it never
//     returns corrupt records); kafkajs's decoder does not verify the CRC at all.
//   - decode + CRC (apples to apples): kafkajs's decoder plus kafkajs's own crc32C
//     (kafkajs/src/protocol/recordBatch/crc32C) over the same bytes Kafka covers (attributes .. end),
//     compared with the stored CRC, against Sluice's decoder (which does that itself).
// After a warm-up round of each side, measurements alternate between the two sides (and which goes
// first) in short rounds and report the median round, so load from other processes on a shared
// machine hits both sides alike.
import { decodeRecordBatch, encodeRecordBatch, type RecordInput } from '../lib/records/index.js';
import { kafkajsCrc32c, kafkajsDecode, kafkajsEncode } from '../test/records/kafkajs-codec.js';

export interface SidePair {
  readonly sluice: number;
  readonly kafkajs: number;
}

export interface CodecResult {
  readonly recordBytes: number;
  readonly records: number;
  readonly batchBytes: number;
  readonly encodeMBps: SidePair;
  /** Each decoder as is: Sluice verifies the CRC, kafkajs does not. */
  readonly decodeMBps: SidePair;
  /** Both verify the CRC-32C: kafkajs decode + kafkajs crc32C check. */
  readonly decodeVerifiedMBps: SidePair;
}

/** About 1 MB of records per batch, with a key and a header as producers usually send. */
function recordsOf(recordBytes: number): RecordInput[] {
  const count = Math.max(16, Math.round(2 ** 20 / recordBytes));
  return Array.from({ length: count }, (_, i) => ({
    timestamp: 1_700_000_000_000 + i,
    key: Buffer.from(`key-${i % 1000}`),
    // Varied bytes (not one repeated byte), as real values are.
    value: Buffer.from(Array.from({ length: recordBytes }, (_, j) => (i * 31 + j * 7) & 0xff)),
    headers: [{ key: 'trace', value: Buffer.from(`t${i}`) }],
  }));
}

/** Calls `fn` for about `ms`; returns MB/s of `bytes` per call. */
async function round(bytes: number, ms: number, fn: () => unknown): Promise<number> {
  let calls = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  while (elapsed < ms) {
    await fn();
    calls++;
    elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  }
  return (bytes * calls) / 2 ** 20 / (elapsed / 1000);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * A warm-up round of each side (so both are JIT-compiled and their heaps sized before anything
 * counts), then rounds alternating the two sides, the side going first alternating too (so one
 * side's leftover garbage is not always collected on the other's clock); the median round of each.
 */
async function compare(bytes: number, ms: number, sluice: () => unknown, kafkajs: () => unknown): Promise<SidePair> {
  const ROUNDS = 5;
  await round(bytes, ms / ROUNDS, sluice);
  await round(bytes, ms / ROUNDS, kafkajs);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    if (i % 2 === 0) {
      a.push(await round(bytes, ms / ROUNDS, sluice));
      b.push(await round(bytes, ms / ROUNDS, kafkajs));
    } else {
      b.push(await round(bytes, ms / ROUNDS, kafkajs));
      a.push(await round(bytes, ms / ROUNDS, sluice));
    }
  }
  return { sluice: median(a), kafkajs: median(b) };
}

const options = { baseOffset: 0, partitionLeaderEpoch: 1, producerId: -1, producerEpoch: -1, baseSequence: -1, isTransactional: false, gzip: false };

/** Offsets of the CRC field and of the first byte it covers (attributes), as Kafka lays them out. */
const CRC_OFFSET = 17;
const ATTRIBUTES_OFFSET = 21;

/** kafkajs's decoder plus the CRC check it leaves out, with kafkajs's own crc32C. */
async function kafkajsDecodeVerified(batch: Buffer) {
  if (kafkajsCrc32c(batch.subarray(ATTRIBUTES_OFFSET)) !== batch.readUInt32BE(CRC_OFFSET)) throw new Error('kafkajs: corrupt batch');
  return kafkajsDecode(batch);
}

export async function benchCodec(recordBytes: number, msPerMeasure: number): Promise<CodecResult> {
  const records = recordsOf(recordBytes);
  const ours = encodeRecordBatch(records, { baseOffset: 0, partitionLeaderEpoch: 1 });
  const theirs = await kafkajsEncode(records, options);
  // Same format: identical bytes, and each decoder reads the other's output.
  if (!ours.equals(theirs)) throw new Error('Sluice and kafkajs encode different bytes');
  if (decodeRecordBatch(theirs).records.length !== records.length) throw new Error('sluice could not read kafkajs bytes');
  if ((await kafkajsDecodeVerified(ours)).records.length !== records.length) throw new Error('kafkajs could not read sluice bytes');
  const bytes = ours.length;
  return {
    recordBytes,
    records: records.length,
    batchBytes: bytes,
    encodeMBps: await compare(
      bytes,
      msPerMeasure,
      () => encodeRecordBatch(records, { baseOffset: 0, partitionLeaderEpoch: 1 }),
      () => kafkajsEncode(records, options),
    ),
    // Both decoders read the very same buffer (the encoders' outputs are identical, checked above).
    decodeMBps: await compare(bytes, msPerMeasure, () => decodeRecordBatch(ours), () => kafkajsDecode(ours)),
    decodeVerifiedMBps: await compare(bytes, msPerMeasure, () => decodeRecordBatch(ours), () => kafkajsDecodeVerified(ours)),
  };
}
