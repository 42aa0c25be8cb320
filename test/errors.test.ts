// lib/errors.ts: SluiceError carries a Kafka code, whether a retry may succeed, details for the
// body and a Retry-After for retriable refusals.
import { describe, expect, it } from 'vitest';
import { SluiceError, isSluiceError, type ErrorCode } from '../lib/errors.js';

describe('SluiceError', () => {
  it('retriable codes are exactly the transient ones, with Retry-After 1 s by default', () => {
    const retriable: ErrorCode[] = ['REBALANCE_IN_PROGRESS', 'THROTTLING', 'REQUEST_TIMED_OUT', 'UNKNOWN_SERVER_ERROR'];
    for (const code of retriable) {
      const e = new SluiceError(code, 'm');
      expect(e.retriable, code).toBe(true);
      expect(e.retryAfterSeconds).toBe(1);
    }
    for (const code of ['UNKNOWN_TOPIC_OR_PARTITION', 'INVALID_REQUEST', 'OFFSET_OUT_OF_RANGE', 'CORRUPT_MESSAGE', 'ILLEGAL_GENERATION', 'DUPLICATE_SEQUENCE_NUMBER'] as ErrorCode[]) {
      const e = new SluiceError(code, 'm');
      expect(e.retriable, code).toBe(false);
      expect(e.retryAfterSeconds).toBeUndefined();
    }
    expect(new SluiceError('THROTTLING', 'm', {}, 7).retryAfterSeconds).toBe(7);
  });
  it('toBody: code, message, retriable, then the details', () => {
    const e = new SluiceError('OFFSET_OUT_OF_RANGE', 'too far', { logStartOffset: 0, highWatermark: 5 });
    expect(e.toBody()).toEqual({ error: { code: 'OFFSET_OUT_OF_RANGE', message: 'too far', retriable: false, logStartOffset: 0, highWatermark: 5 } });
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('SluiceError');
  });
  it('isSluiceError tells it from other errors', () => {
    expect(isSluiceError(new SluiceError('NOT_FOUND', 'x'))).toBe(true);
    expect(isSluiceError(Object.assign(new Error('x'), { code: 'NOT_FOUND' }))).toBe(false);
    expect(isSluiceError(undefined)).toBe(false);
  });
});
