// lib/metadata/unknown-outcome.ts: which failures cannot have landed. (sendOnce under the real
// SDK stack is exercised in append-conditions.test.ts.)
import { describe, expect, it } from 'vitest';
import { UnknownOutcomeError, cannotHaveLanded } from '../../lib/metadata/unknown-outcome.js';

describe('cannotHaveLanded', () => {
  it('a 4xx was refused', () => {
    for (const status of [400, 403, 409, 429, 499]) expect(cannotHaveLanded({ $metadata: { httpStatusCode: status } }), String(status)).toBe(true);
  });
  it('a 5xx or no status may have landed', () => {
    for (const status of [500, 503, 200]) expect(cannotHaveLanded({ $metadata: { httpStatusCode: status } }), String(status)).toBe(false);
    expect(cannotHaveLanded(new Error('socket hang up'))).toBe(false);
    expect(cannotHaveLanded(undefined)).toBe(false);
  });
  it('a connection never made cannot have landed; one reset after connecting may have', () => {
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']) expect(cannotHaveLanded({ code }), code).toBe(true);
    for (const code of ['ECONNRESET', 'EPIPE', 'ETIMEDOUT']) expect(cannotHaveLanded({ code }), code).toBe(false);
    expect(cannotHaveLanded(new Error('Socket timed out without establishing a connection within 2000 ms'))).toBe(true);
  });
  it('UnknownOutcomeError keeps the failure out of `cause` (the SDK would retry by it) and names it', () => {
    const failure = Object.assign(new Error('timed out'), { name: 'TimeoutError' });
    const e = new UnknownOutcomeError(failure);
    expect(e.name).toBe('UnknownOutcomeError');
    expect(e.failure).toBe(failure);
    expect(e.cause).toBeUndefined();
    expect(e.message).toBe('outcome unknown: timed out');
    expect(new UnknownOutcomeError('x').message).toBe('outcome unknown: x');
  });
});
