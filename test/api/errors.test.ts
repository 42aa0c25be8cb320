// lib/api/errors.ts: every error code has its HTTP status; the body schema accepts every error body.
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, errorBodySchema, httpStatusOf } from '../../lib/api/errors.js';
import { SluiceError, type ErrorCode } from '../../lib/errors.js';

describe('HTTP mapping', () => {
  it('statuses: 4xx refusals, 503/429 retriable, 500 server faults', () => {
    const status = (code: ErrorCode) => httpStatusOf(new SluiceError(code, 'm'));
    expect(status('UNKNOWN_TOPIC_OR_PARTITION')).toBe(404);
    expect(status('TOPIC_ALREADY_EXISTS')).toBe(409);
    expect(status('INVALID_REQUEST')).toBe(400);
    expect(status('OFFSET_OUT_OF_RANGE')).toBe(416);
    expect(status('MESSAGE_TOO_LARGE')).toBe(413);
    expect(status('THROTTLING')).toBe(429);
    expect(status('REQUEST_TIMED_OUT')).toBe(503);
    expect(status('METHOD_NOT_ALLOWED')).toBe(405);
    expect(status('UNSUPPORTED_MEDIA_TYPE')).toBe(415);
    expect(status('CLUSTER_AUTHORIZATION_FAILED')).toBe(403);
    expect(status('UNKNOWN_SERVER_ERROR')).toBe(500);
  });
  it('every code has a status; a retriable code is never a plain 4xx refusal other than 409/429', () => {
    for (const code of ERROR_CODES) {
      const e = new SluiceError(code, 'm');
      const s = httpStatusOf(e);
      expect(Number.isInteger(s), code).toBe(true);
      if (e.retriable) expect([409, 429, 500, 503], code).toContain(s);
    }
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });
  it('the body schema accepts every SluiceError body, details included, and refuses unknown codes', () => {
    for (const code of ERROR_CODES) expect(errorBodySchema.safeParse(new SluiceError(code, 'm', { partition: 3 }).toBody()).success, code).toBe(true);
    expect(errorBodySchema.safeParse({ error: { code: 'NOPE', message: 'm', retriable: false } }).success).toBe(false);
    expect(errorBodySchema.safeParse({ error: { code: 'NOT_FOUND', message: 'm', retriable: false }, extra: 1 }).success).toBe(false);
  });
});
