// The fetch response budget counts each record's JSON size without serializing it
// (recordJsonBytes); it must equal the UTF-8 size of JSON.stringify exactly, escapes included.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordJsonBytes } from '../../lib/api/fetch-operations.js';

const text = fc.option(
  fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.string({ unit: 'grapheme' }),
    fc.constantFrom('a"b', '\\', '\u0000x\u001f', '\ud800', 'z\udc00', 'é漢😀', '\u2028'),
  ),
  { nil: null },
);

describe('recordJsonBytes', () => {
  it('equals the UTF-8 byte length of JSON.stringify(record)', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: Number.MAX_SAFE_INTEGER }),
        fc.nat({ max: Number.MAX_SAFE_INTEGER }),
        text,
        text,
        fc.array(fc.record({ key: fc.string({ unit: 'binary' }), value: text }), { maxLength: 4 }),
        (offset, timestamp, key, value, headers) => {
          const record = { offset, timestamp, key, value, headers };
          expect(recordJsonBytes(record)).toBe(Buffer.byteLength(JSON.stringify(record)));
        },
      ),
      { numRuns: 5000 },
    );
  });
});
