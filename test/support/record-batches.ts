// Decoding a run of concatenated RecordBatches in tests (a fetch answer, a segment, a produce
// body): lib/ reads batches one at a time (decodeRecordBatch), a consumer through
// lib/client/consumed-message.ts.
import { type DecodeLimits, type DecodedBatch, decodeRecordBatch } from '../../lib/records/index.js';

/** Decodes consecutive batches that fill `buf` exactly. */
export function decodeRecordBatches(buf: Buffer, limits: DecodeLimits = {}): DecodedBatch[] {
  const batches: DecodedBatch[] = [];
  for (let position = 0; position < buf.length; ) {
    const batch = decodeRecordBatch(buf, position, limits);
    batches.push(batch);
    position += batch.header.sizeInBytes;
  }
  return batches;
}
