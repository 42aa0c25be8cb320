// lib/api/validation.ts: integers from JSON or strings, and one INVALID_REQUEST naming the fields.
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { SluiceError } from '../../lib/errors.js';
import { encoding, intField, intParam, parseInput } from '../../lib/api/validation.js';

const fail = (f: () => unknown): SluiceError => {
  try {
    f();
  } catch (e) {
    return e as SluiceError;
  }
  throw new Error('did not throw');
};

describe('validation', () => {
  it('intParam takes numbers and decimal strings in range; intField numbers only', () => {
    expect(parseInput(intParam(), '42')).toBe(42);
    expect(parseInput(intParam(-1), '-1')).toBe(-1);
    expect(parseInput(intParam(), 7)).toBe(7);
    expect(fail(() => parseInput(intParam(), '4.2')).code).toBe('INVALID_REQUEST');
    expect(fail(() => parseInput(intParam(0, 10), '11')).code).toBe('INVALID_REQUEST');
    expect(fail(() => parseInput(intParam(), String(2 ** 53))).code).toBe('INVALID_REQUEST');
    expect(fail(() => parseInput(intField(), '42')).code).toBe('INVALID_REQUEST');
    expect(parseInput(encoding, 'base64')).toBe('base64');
    expect(fail(() => parseInput(encoding, 'hex')).code).toBe('INVALID_REQUEST');
  });
  it('names missing, unknown and wrong fields with their paths', () => {
    const schema = z.strictObject({ topic: z.string(), records: z.array(z.strictObject({ partition: intField() })) });
    const e = fail(() => parseInput(schema, { records: [{ partition: 1 }, { partition: -1, extra: 1 }], bogus: 1 }));
    expect(e.code).toBe('INVALID_REQUEST');
    expect(e.message).toMatch(/'topic' is required/);
    expect(e.message).toMatch(/unknown field 'bogus'/);
    expect(e.message).toMatch(/unknown field 'records\[1\]\.extra'/);
    expect(e.message).toMatch(/'records\[1\]\.partition'/);
    expect(e.details.fields).toEqual(expect.arrayContaining(['topic', 'records[1].partition']));
  });
  it('shows at most five problems and counts the rest', () => {
    const schema = z.array(intField());
    const e = fail(() => parseInput(schema, ['a', 'b', 'c', 'd', 'e', 'f', 'g']));
    expect(e.message).toMatch(/\(and 2 more\)$/);
    expect(e.details.fields).toHaveLength(7);
  });
});
