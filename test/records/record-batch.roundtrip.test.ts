import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type RecordInput, decodeRecordBatch, encodeRecordBatch } from '../../lib/records/index.js';
import { decodeRecordBatches } from '../support/record-batches.js';
import { batchFields, kafkajsCompatibleRecords, records } from './arbitraries.js';
import { kafkajsDecode, kafkajsEncode } from './kafkajs-codec.js';

function expected(inputs: readonly RecordInput[], baseOffset: number) {
  return inputs.map((r, i) => ({
    offset: baseOffset + i,
    timestamp: r.timestamp,
    key: r.key,
    value: r.value,
    headers: (r.headers ?? []).map((h) => ({ key: h.key, value: h.value })),
  }));
}

describe('RecordBatch v2 round trip', () => {
  it('decodes whatever it encodes: keys, values, nulls, unicode headers, timestamps, both codecs', () => {
    fc.assert(
      fc.property(records, batchFields, fc.constantFrom('none' as const, 'gzip' as const), (inputs, fields, compression) => {
        const batch = encodeRecordBatch(inputs, { ...fields, compression });
        const { header, records: decoded } = decodeRecordBatch(batch);
        expect(decoded).toEqual(expected(inputs, fields.baseOffset));
        expect(header).toMatchObject({
          ...fields,
          compression,
          recordCount: inputs.length,
          lastOffset: fields.baseOffset + inputs.length - 1,
          baseTimestamp: inputs[0].timestamp,
          maxTimestamp: Math.max(...inputs.map((r) => r.timestamp)),
          sizeInBytes: batch.length,
        });
      }),
      { numRuns: 400 },
    );
  });

  it('encodes uncompressed batches byte for byte as kafkajs does', async () => {
    await fc.assert(
      fc.asyncProperty(kafkajsCompatibleRecords, batchFields, async (inputs, fields) => {
        const ours = encodeRecordBatch(inputs, fields);
        const theirs = await kafkajsEncode(inputs, { ...fields, gzip: false });
        expect(ours.toString('hex')).toBe(theirs.toString('hex'));
      }),
      { numRuns: 300 },
    );
  });

  it('reads kafkajs gzip batches, and kafkajs reads ours, to the same records', async () => {
    await fc.assert(
      fc.asyncProperty(kafkajsCompatibleRecords, batchFields, async (inputs, fields) => {
        const theirs = await kafkajsEncode(inputs, { ...fields, gzip: true });
        expect(decodeRecordBatch(theirs).records).toEqual(expected(inputs, fields.baseOffset));

        const decodedByKafkajs = await kafkajsDecode(encodeRecordBatch(inputs, { ...fields, compression: 'gzip' }));
        expect(decodedByKafkajs.records.map((r) => [Number(r.offset), Number(r.timestamp), r.key, r.value])).toEqual(
          inputs.map((r, i) => [fields.baseOffset + i, r.timestamp, r.key, r.value]),
        );
      }),
      { numRuns: 100 },
    );
  });

  it('decodes a run of consecutive batches filling a buffer exactly', () => {
    fc.assert(
      fc.property(fc.array(records, { minLength: 1, maxLength: 5 }), (runs) => {
        let next = 0;
        const batches = runs.map((inputs, i) => {
          const batch = encodeRecordBatch(inputs, { baseOffset: next, compression: i % 2 ? 'gzip' : 'none' });
          next += inputs.length;
          return batch;
        });
        const decoded = decodeRecordBatches(Buffer.concat(batches));
        expect(decoded.map((b) => b.records.length)).toEqual(runs.map((r) => r.length));
        expect(decoded.flatMap((b) => b.records.map((r) => r.offset))).toEqual(Array.from({ length: next }, (_, i) => i));
      }),
      { numRuns: 100 },
    );
  });

  it('decodes nothing from an empty buffer', () => {
    expect(decodeRecordBatches(Buffer.alloc(0))).toEqual([]);
  });
});
