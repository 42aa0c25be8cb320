// The decoder reuses a header key string when the same bytes stood at the same header index of an
// earlier record in the batch (record.ts); these pin that reuse never mixes up different keys.
import { describe, expect, it } from 'vitest';
import { decodeRecordBatch, encodeRecordBatch, type RecordInput } from '../../lib/records/index.js';

const record = (headers: RecordInput['headers']): RecordInput => ({ timestamp: 1_700_000_000_000, key: null, value: Buffer.from('v'), headers });

describe('header keys across the records of one batch', () => {
  it('decodes different keys of the same length at the same index as themselves', () => {
    const batch = encodeRecordBatch(
      [
        record([{ key: 'aa', value: Buffer.from('1') }, { key: 'trace', value: null }]),
        record([{ key: 'bb', value: Buffer.from('2') }, { key: 'trace', value: null }]),
        record([{ key: 'aa', value: Buffer.from('3') }, { key: 'tracf', value: null }]),
        record([{ key: 'é', value: Buffer.from('4') }]),
      ],
      { baseOffset: 0 },
    );
    const { records } = decodeRecordBatch(batch);
    expect(records.map((r) => r.headers.map((h) => h.key))).toEqual([['aa', 'trace'], ['bb', 'trace'], ['aa', 'tracf'], ['é']]);
    expect(records.map((r) => r.headers[0].value?.toString())).toEqual(['1', '2', '3', '4']);
  });

  it('gives records without headers an empty list that cannot be changed', () => {
    const { records } = decodeRecordBatch(encodeRecordBatch([record([]), record(undefined)], { baseOffset: 0 }));
    for (const r of records) {
      expect(r.headers).toEqual([]);
      expect(Object.isFrozen(r.headers)).toBe(true);
    }
  });
});
