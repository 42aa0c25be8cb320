// Codec throughput: Sluice's RecordBatch v2 encoder/decoder against kafkajs's own
// (kafkajs/src/protocol/recordBatch/v0 and its decoder) in the same process and run, on the same
// records, as MB/s of encoded batch bytes. Sluice's decode verifies the CRC-32C of every batch;
// kafkajs's does not, so the comparison is conservative for Sluice.
import { decodeRecordBatch, encodeRecordBatch, type RecordInput } from '../lib/records/index.js';
import { kafkajsDecode, kafkajsEncode } from '../test/records/kafkajs-codec.js';

export interface CodecResult {
  readonly recordBytes: number;
  readonly records: number;
  readonly batchBytes: number;
  readonly encodeMBps: { readonly sluice: number; readonly kafkajs: number };
  readonly decodeMBps: { readonly sluice: number; readonly kafkajs: number };
}

/** About 1 MB of records per batch, with a key and a header as producers usually send. */
function recordsOf(recordBytes: number): RecordInput[] {
  const count = Math.max(16, Math.round(2 ** 20 / recordBytes));
  return Array.from({ length: count }, (_, i) => ({
    timestamp: 1_700_000_000_000 + i,
    key: Buffer.from(`key-${i % 1000}`),
    value: Buffer.alloc(recordBytes, (i % 251) + 1),
    headers: [{ key: 'trace', value: Buffer.from(`t${i}`) }],
  }));
}

/** Runs `fn` repeatedly for about `ms` (after one warm-up call) and returns MB/s of `bytes` per call. */
async function measure(bytes: number, ms: number, fn: () => unknown): Promise<number> {
  await fn();
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

const options = { baseOffset: 0, partitionLeaderEpoch: 1, producerId: -1, producerEpoch: -1, baseSequence: -1, isTransactional: false, gzip: false };

export async function benchCodec(recordBytes: number, msPerMeasure: number): Promise<CodecResult> {
  const records = recordsOf(recordBytes);
  const ours = encodeRecordBatch(records, { baseOffset: 0, partitionLeaderEpoch: 1 });
  const theirs = await kafkajsEncode(records, options);
  // Same format: both decoders read each other's bytes; sizes agree.
  if (ours.length !== theirs.length) throw new Error(`encoded sizes differ: ${ours.length} vs ${theirs.length}`);
  if (decodeRecordBatch(theirs).records.length !== records.length) throw new Error('sluice could not read kafkajs bytes');
  const bytes = ours.length;
  return {
    recordBytes,
    records: records.length,
    batchBytes: bytes,
    encodeMBps: {
      sluice: await measure(bytes, msPerMeasure, () => encodeRecordBatch(records, { baseOffset: 0, partitionLeaderEpoch: 1 })),
      kafkajs: await measure(bytes, msPerMeasure, () => kafkajsEncode(records, options)),
    },
    decodeMBps: {
      sluice: await measure(bytes, msPerMeasure, () => decodeRecordBatch(ours)),
      kafkajs: await measure(bytes, msPerMeasure, () => kafkajsDecode(theirs)),
    },
  };
}
