// lib/records/errors.ts: the codec's three failures are distinct, named, and carry what callers use.
import { describe, expect, it } from 'vitest';
import { CorruptRecordError, DecompressedSizeError, UnsupportedCompressionError } from '../../lib/records/errors.js';

describe('codec errors', () => {
  it('each is an Error with its own name, not an instance of the others', () => {
    const corrupt = new CorruptRecordError('c');
    const unsupported = new UnsupportedCompressionError('u');
    const size = new DecompressedSizeError('s', 42);
    expect([corrupt.name, unsupported.name, size.name]).toEqual(['CorruptRecordError', 'UnsupportedCompressionError', 'DecompressedSizeError']);
    for (const e of [corrupt, unsupported, size]) expect(e).toBeInstanceOf(Error);
    expect(unsupported).not.toBeInstanceOf(CorruptRecordError);
    expect(size).not.toBeInstanceOf(CorruptRecordError);
    expect(size.limit).toBe(42);
    expect(size.message).toBe('s');
  });
});
