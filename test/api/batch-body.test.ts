// lib/api/batch-body.ts: the broker's checks of a produced record-batches body (Kafka's
// LogValidator rules for a producer's batch), each refusal naming its frame, and the fetch answer.
import { describe, expect, it } from 'vitest';
import { MAX_DECOMPRESSED_BATCH_BYTES, RecordBatchesReply, readBatchFrames } from '../../lib/api/batch-body.js';
import { encodeBatchFrames } from '../../lib/records/batch-frames.js';
import { crc32c, encodeRecordBatch } from '../../lib/records/index.js';

const records = (n: number, ts = 100, size = 1) => Array.from({ length: n }, (_, i) => ({ timestamp: ts + i, key: null, value: Buffer.alloc(size, 97) }));
const batch = (n: number, opts: Parameters<typeof encodeRecordBatch>[1] = { baseOffset: 0 }, ts = 100, size = 1) => encodeRecordBatch(records(n, ts, size), opts);
/** Recomputes the CRC after editing header bytes (attributes onwards are covered). */
const fixCrc = (b: Buffer) => (b.writeUInt32BE(crc32c(b.subarray(21)), 17), b);
const refusal = (body: Buffer) => {
  try {
    readBatchFrames(body);
  } catch (e) {
    return e as { code: string; message: string; details: Record<string, unknown> };
  }
  throw new Error('accepted');
};

describe('readBatchFrames', () => {
  it('frames with their header, min timestamp and size (the larger of sent and decompressed)', () => {
    const plain = batch(3, { baseOffset: 0 }, 500);
    const zipped = batch(50, { baseOffset: 0, compression: 'gzip' }, 100, 100);
    const frames = readBatchFrames(encodeBatchFrames([{ partition: 2, batch: plain }, { partition: 0, batch: zipped }]));
    expect(frames.map((f) => [f.partition, f.header.recordCount, f.minTimestamp])).toEqual([[2, 3, 500], [0, 50, 100]]);
    expect(frames[0].bytes).toEqual(plain);
    expect(frames[0].size).toBe(plain.length);
    expect(frames[1].size).toBeGreaterThan(zipped.length);
  });

  it('a broken CRC, a base offset other than 0, transactional batches: INVALID_REQUEST naming the frame', () => {
    const good = batch(1);
    const corrupt = Buffer.from(batch(2));
    corrupt[corrupt.length - 1] ^= 1;
    expect(refusal(encodeBatchFrames([{ partition: 0, batch: good }, { partition: 1, batch: corrupt }]))).toMatchObject({ code: 'INVALID_REQUEST', details: { frame: 1, partition: 1 } });
    expect(refusal(encodeBatchFrames([{ partition: 0, batch: batch(1, { baseOffset: 5 }) }])).message).toMatch(/baseOffset is 5/);
    expect(refusal(encodeBatchFrames([{ partition: 0, batch: batch(1, { baseOffset: 0, isTransactional: true, producerId: 1, producerEpoch: 0, baseSequence: 0 }) }])).message).toMatch(/transactional/);
    expect(refusal(encodeBatchFrames([{ partition: 0, batch: batch(1, { baseOffset: 0, timestampType: 'LogAppendTime' }) }])).message).toMatch(/CreateTime/);
  });

  it('a lastOffsetDelta that does not match the records is refused', () => {
    const b = Buffer.from(batch(2));
    b.writeInt32BE(5, 23); // lastOffsetDelta
    expect(refusal(encodeBatchFrames([{ partition: 0, batch: fixCrc(b) }])).code).toBe('INVALID_REQUEST');
  });

  it('malformed framing is INVALID_REQUEST; a gzip bomb is MESSAGE_TOO_LARGE before inflating past the limit', () => {
    expect(refusal(Buffer.from([0, 0, 0]))).toMatchObject({ code: 'INVALID_REQUEST' });
    const bomb = batch(1, { baseOffset: 0, compression: 'gzip' }, 100, MAX_DECOMPRESSED_BATCH_BYTES + 1);
    expect(refusal(encodeBatchFrames([{ partition: 0, batch: bomb }]))).toMatchObject({ code: 'MESSAGE_TOO_LARGE', details: { frame: 0, partition: 0 } });
  });
});

describe('RecordBatchesReply', () => {
  it('HTTP: the concatenated batches with the offsets in headers; invoke: base64 JSON', () => {
    const r = new RecordBatchesReply([Buffer.from([1]), Buffer.from([2, 3])], 10, 12, 4);
    const { headers, body } = r.toHttp();
    expect(body).toEqual(Buffer.from([1, 2, 3]));
    expect(headers).toMatchObject({ 'content-type': 'application/vnd.sluice.record-batches', 'sluice-next-offset': '10', 'sluice-high-watermark': '12', 'sluice-log-start-offset': '4' });
    expect(r.toInvoke()).toEqual({ batches: Buffer.from([1, 2, 3]).toString('base64'), nextOffset: 10, highWatermark: 12, logStartOffset: 4 });
    const one = Buffer.from([9]);
    expect(new RecordBatchesReply([one], 0, 0, 0).bytes).toBe(one);
  });
});
