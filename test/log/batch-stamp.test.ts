// lib/log/batch-stamp.ts: stamping base offsets and the leader epoch on intake batches in place,
// outside the CRC, and refusing batches that do not hold exactly the range's records.
import { describe, expect, it } from 'vitest';
import { PARTITION_LEADER_EPOCH, stampRange } from '../../lib/log/batch-stamp.js';
import type { ManifestRange } from '../../lib/metadata/types.js';
import { encodeRecordBatch, validateRecordBatch } from '../../lib/records/index.js';
import { decodeRecordBatches } from '../support/record-batches.js';

const batch = (n: number, tag: string) =>
  encodeRecordBatch(Array.from({ length: n }, (_, i) => ({ timestamp: 1000 + i, key: null, value: Buffer.from(`${tag}${i}`) })), { baseOffset: 0, partitionLeaderEpoch: -1 });
const range = (baseOffset: number, count: number): ManifestRange => ({ baseOffset, lastOffset: baseOffset + count - 1, count, objectKey: 'obj', position: 0, size: 0, minTimestamp: 0, maxTimestamp: 0, createdAt: 0, intake: true });

describe('stampRange', () => {
  it('each batch gets the next base offset and the constant epoch; the CRC stays valid', () => {
    const buf = Buffer.concat([batch(2, 'a'), batch(3, 'b')]);
    stampRange(range(100, 5), buf);
    const batches = decodeRecordBatches(buf);
    expect(batches.map((b) => b.header.baseOffset)).toEqual([100, 102]);
    expect(batches.map((b) => b.header.partitionLeaderEpoch)).toEqual([PARTITION_LEADER_EPOCH, PARTITION_LEADER_EPOCH]);
    expect(batches.flatMap((b) => b.records.map((r) => r.offset))).toEqual([100, 101, 102, 103, 104]);
    expect(() => validateRecordBatch(buf, 0)).not.toThrow();
  });
  it('batches holding fewer or more records than the range: CORRUPT_MESSAGE naming the object', () => {
    expect(() => stampRange(range(0, 3), batch(2, 'a'))).toThrow(expect.objectContaining({ code: 'CORRUPT_MESSAGE', details: { objectKey: 'obj' } }));
    expect(() => stampRange(range(0, 1), batch(2, 'a'))).toThrow(expect.objectContaining({ code: 'CORRUPT_MESSAGE' }));
  });
  it('a truncated batch: CORRUPT_MESSAGE', () => {
    const b = batch(2, 'a');
    expect(() => stampRange(range(0, 2), b.subarray(0, b.length - 1))).toThrow(/truncated/);
    expect(() => stampRange(range(0, 2), b.subarray(0, 20))).toThrow(/truncated/);
  });
});
