// fast-check generators for record batches: binary and unicode data, nulls, headers, timestamps.

import fc from 'fast-check';
import type { RecordHeader, RecordInput } from '../../lib/records/index.js';

const bytes = fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b));
const nullableBytes = fc.option(bytes, { nil: null, freq: 5 });
const unicodeKey = fc.string({ unit: 'grapheme', maxLength: 12 });

export const header: fc.Arbitrary<RecordHeader> = fc.record({ key: unicodeKey, value: nullableBytes });

/** Millisecond timestamps, mostly near now, sometimes anywhere in the safe range. */
export const timestamp = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1_600_000_000_000, max: 1_800_000_000_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }) },
);

export function recordInput(headers: fc.Arbitrary<RecordHeader[]> = fc.array(header, { maxLength: 4 })): fc.Arbitrary<RecordInput> {
  return fc.record({ timestamp, key: nullableBytes, value: nullableBytes, headers });
}

export const records = fc.array(recordInput(), { minLength: 1, maxLength: 20 });

/**
 * A JavaScript object (kafkajs's headers) lists integer-like keys ("0", "42") first, in numeric
 * order, whatever order they were added in: such keys would reorder kafkajs's headers.
 */
const ARRAY_INDEX_KEY = /^(0|[1-9]\d*)$/;

/** Records kafkajs can encode identically: unique header keys that keep their order in an object, non-null header values. */
export const kafkajsCompatibleRecords = fc.array(
  recordInput(
    fc.uniqueArray(fc.record({ key: unicodeKey.filter((k) => !ARRAY_INDEX_KEY.test(k)), value: bytes }), { maxLength: 4, selector: (h) => h.key }),
  ),
  { minLength: 1, maxLength: 20 },
);

export const batchFields = fc.record({
  baseOffset: fc.integer({ min: 0, max: 2 ** 50 }),
  partitionLeaderEpoch: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
  producerId: fc.integer({ min: -1, max: 2 ** 50 }),
  producerEpoch: fc.integer({ min: -1, max: 2 ** 15 - 1 }),
  baseSequence: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
  isTransactional: fc.boolean(),
});
