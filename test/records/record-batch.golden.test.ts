import { describe, expect, it } from 'vitest';
import { decodeRecordBatch, encodeRecordBatch, readBatchHeader } from '../../lib/records/index.js';
import { goldenBatchHex, goldenOptions, goldenRecords } from './fixtures/golden-batches.js';
import { kafkajsCrc32c, kafkajsDecode, kafkajsEncode } from './kafkajs-codec.js';

const golden = Buffer.from(goldenBatchHex, 'hex');

describe('RecordBatch v2 golden bytes', () => {
  it('the hand-derived fixture is self-consistent: length and CRC-32C by an independent implementation', () => {
    expect(golden.length).toBe(89);
    expect(golden.readInt32BE(8)).toBe(golden.length - 12);
    expect(kafkajsCrc32c(golden.subarray(21))).toBe(golden.readUInt32BE(17));
  });

  it('encodes the fixture records to exactly the fixture bytes', () => {
    expect(encodeRecordBatch(goldenRecords, goldenOptions).toString('hex')).toBe(goldenBatchHex);
  });

  it('decodes every field of the fixture', () => {
    const { header, records } = decodeRecordBatch(golden);
    expect(header).toEqual({
      baseOffset: 42,
      batchLength: 77,
      partitionLeaderEpoch: 7,
      magic: 2,
      crc: 0x2b12d397,
      attributes: 0,
      compression: 'none',
      timestampType: 'CreateTime',
      isTransactional: false,
      isControl: false,
      lastOffsetDelta: 1,
      lastOffset: 43,
      baseTimestamp: 1700000000000,
      maxTimestamp: 1700000000005,
      producerId: 1000,
      producerEpoch: 3,
      baseSequence: 17,
      recordCount: 2,
      sizeInBytes: 89,
    });
    expect(records).toEqual([
      { offset: 42, timestamp: 1700000000000, key: Buffer.from('k'), value: Buffer.from('hello'), headers: [{ key: 'h1', value: Buffer.from('v') }] },
      { offset: 43, timestamp: 1700000000005, key: null, value: null, headers: [{ key: 'n', value: null }] },
    ]);
    expect(readBatchHeader(golden)).toEqual(header);
  });

  it('kafkajs decodes the fixture to the same records', async () => {
    const theirs = await kafkajsDecode(golden);
    expect(theirs.firstOffset).toBe('42');
    expect(theirs.producerId).toBe('1000');
    expect(theirs.records.map((r) => [r.offset, r.timestamp, r.key, r.value, r.headers])).toEqual([
      ['42', '1700000000000', Buffer.from('k'), Buffer.from('hello'), { h1: Buffer.from('v') }],
      ['43', '1700000000005', null, null, { n: null }],
    ]);
  });

  it('writes producer defaults as a Kafka producer does: epoch, producer id, epoch and sequence all -1', () => {
    const batch = encodeRecordBatch([{ timestamp: 0, key: null, value: Buffer.from('x') }], { baseOffset: 0 });
    expect(batch.subarray(12, 16).toString('hex')).toBe('ffffffff'); // partitionLeaderEpoch
    expect(batch.subarray(43, 57).toString('hex')).toBe('ffffffffffffffff' + 'ffff' + 'ffffffff');
  });

  it('sets attribute bits for transactional and LogAppendTime batches, and reads LogAppendTime as maxTimestamp', () => {
    const batch = encodeRecordBatch(
      [
        { timestamp: 1000, key: null, value: Buffer.from('a') },
        { timestamp: 1500, key: null, value: Buffer.from('b') },
      ],
      { baseOffset: 0, isTransactional: true, timestampType: 'LogAppendTime' },
    );
    expect(batch.readInt16BE(21)).toBe(0x10 | 0x08);
    const { header, records } = decodeRecordBatch(batch);
    expect(header).toMatchObject({ isTransactional: true, timestampType: 'LogAppendTime', maxTimestamp: 1500 });
    expect(records.map((r) => r.timestamp)).toEqual([1500, 1500]);
  });

  it('takes baseTimestamp from the first record, so out-of-order timestamps give negative deltas', () => {
    const batch = encodeRecordBatch(
      [
        { timestamp: 2000, key: null, value: null },
        { timestamp: 1000, key: null, value: null },
      ],
      { baseOffset: 9 },
    );
    const { header, records } = decodeRecordBatch(batch);
    expect([header.baseTimestamp, header.maxTimestamp]).toEqual([2000, 2000]);
    expect(records.map((r) => [r.offset, r.timestamp])).toEqual([
      [9, 2000],
      [10, 1000],
    ]);
  });

  it('gzip-compresses the records section as one stream after the uncompressed count', async () => {
    const batch = encodeRecordBatch(goldenRecords, { ...goldenOptions, compression: 'gzip' });
    expect(batch.readInt16BE(21) & 0x07).toBe(1);
    expect(batch.readInt32BE(57)).toBe(2);
    expect(batch.subarray(61, 63).toString('hex')).toBe('1f8b'); // gzip magic
    const theirs = await kafkajsDecode(batch);
    expect(theirs.records.map((r) => r.value)).toEqual([Buffer.from('hello'), null]);
    // kafkajs cannot encode a null header value; the rest of the fixture goes through its gzip encoder.
    const records = [goldenRecords[0], { ...goldenRecords[1], headers: [] }];
    const kafkajsGzip = await kafkajsEncode(records, { ...goldenOptions, isTransactional: false, gzip: true });
    const plain = encodeRecordBatch(records, goldenOptions);
    expect(decodeRecordBatch(kafkajsGzip).records).toEqual(decodeRecordBatch(plain).records);
    expect(decodeRecordBatch(kafkajsGzip).header).toMatchObject({ compression: 'gzip', recordCount: 2, lastOffset: 43 });
  });

  it('decoded keys and values alias the batch buffer (no copy)', () => {
    const { records } = decodeRecordBatch(golden);
    expect(records[0].value?.buffer).toBe(golden.buffer);
    expect(records[0].value?.byteOffset).toBe(golden.byteOffset + golden.indexOf('hello'));
  });
});
