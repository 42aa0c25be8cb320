// lib/api/encoding.ts: bytes in JSON as UTF-8 or strict base64.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBytes, encodeBytes } from '../../lib/api/encoding.js';

describe('encoding', () => {
  it('null and undefined stay null (a tombstone)', () => {
    expect(decodeBytes(null, 'utf8', 'value')).toBeNull();
    expect(decodeBytes(undefined, 'base64', 'value')).toBeNull();
    expect(encodeBytes(null, 'utf8')).toBeNull();
    expect(encodeBytes(undefined, 'base64')).toBeNull();
  });
  it('property: bytes round-trip through base64; text through utf8', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.string(), (bytes, text) => {
        const b = Buffer.from(bytes);
        expect(decodeBytes(encodeBytes(b, 'base64'), 'base64', 'f')).toEqual(b);
        expect(encodeBytes(decodeBytes(text, 'utf8', 'f'), 'utf8')).toBe(text);
      }),
    );
  });
  it('malformed base64 is INVALID_REQUEST naming the field (never silently skipped)', () => {
    for (const bad of ['abc', 'ab!=', 'YQ', '====', 'Y Q==']) {
      expect(() => decodeBytes(bad, 'base64', 'records[0].value')).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST', details: { fields: ['records[0].value'] } }));
    }
  });
  it('a Uint8Array view encodes only its own bytes', () => {
    const backing = new Uint8Array([1, 2, 3, 4, 5]);
    expect(encodeBytes(backing.subarray(1, 3), 'base64')).toBe(Buffer.from([2, 3]).toString('base64'));
  });
});

describe('decodeBytes on values of max.message.bytes', () => {
  it('checks a multi-megabyte base64 value without exhausting the stack', () => {
    const bytes = Buffer.alloc(4 * 1024 * 1024, 7);
    expect(decodeBytes(bytes.toString('base64'), 'base64', 'records[0].value')!.equals(bytes)).toBe(true);
    expect(() => decodeBytes(`${bytes.toString('base64').slice(0, -4)}A=A=`, 'base64', 'records[0].value')).toThrow(/not valid base64/);
  });
});
