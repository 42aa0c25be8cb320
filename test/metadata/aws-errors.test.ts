// lib/metadata/aws-errors.ts: which SDK failures are refusals, throttling, timeouts, and the
// SluiceError a caller gets for each: a Kafka code and a generic message, never the SDK's text.
import { describe, expect, it } from 'vitest';
import { SluiceError } from '../../lib/errors.js';
import { isConditionalCheckFailed, isNoSuchKey, isThrottling, isTimeoutOrNetwork, toSluiceError } from '../../lib/metadata/aws-errors.js';

const err = (props: Record<string, unknown>, message = 'User: arn:aws:iam::123456789012:role/secret is not authorized on bucket-x') =>
  Object.assign(new Error(message), props);

describe('classification', () => {
  it('conditional check failed only by name', () => {
    expect(isConditionalCheckFailed(err({ name: 'ConditionalCheckFailedException' }))).toBe(true);
    expect(isConditionalCheckFailed(err({ name: 'ValidationException' }))).toBe(false);
    expect(isConditionalCheckFailed(undefined)).toBe(false);
    expect(isConditionalCheckFailed('ConditionalCheckFailedException')).toBe(false);
  });
  it('throttling by name or HTTP 429', () => {
    for (const name of ['ProvisionedThroughputExceededException', 'ThrottlingException', 'SlowDown', 'RequestLimitExceeded', 'TooManyRequestsException']) {
      expect(isThrottling(err({ name })), name).toBe(true);
    }
    expect(isThrottling(err({ name: 'X', $metadata: { httpStatusCode: 429 } }))).toBe(true);
    expect(isThrottling(err({ name: 'X', $metadata: { httpStatusCode: 500 } }))).toBe(false);
  });
  it('no such key by name or 404', () => {
    expect(isNoSuchKey(err({ name: 'NoSuchKey' }))).toBe(true);
    expect(isNoSuchKey(err({ name: 'NotFound' }))).toBe(true);
    expect(isNoSuchKey(err({ name: 'X', $metadata: { httpStatusCode: 404 } }))).toBe(true);
    expect(isNoSuchKey(err({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }))).toBe(false);
  });
  it('timeouts by name, network failures by code', () => {
    expect(isTimeoutOrNetwork(err({ name: 'TimeoutError' }))).toBe(true);
    expect(isTimeoutOrNetwork(err({ name: 'AbortError' }))).toBe(true);
    expect(isTimeoutOrNetwork(err({ code: 'ECONNRESET' }))).toBe(true);
    expect(isTimeoutOrNetwork(err({ code: 'EPIPE' }))).toBe(true);
    expect(isTimeoutOrNetwork(err({ name: 'InternalServerError' }))).toBe(false);
  });
});

describe('toSluiceError', () => {
  it('a SluiceError passes through unchanged', () => {
    const e = new SluiceError('OFFSET_OUT_OF_RANGE', 'x');
    expect(toSluiceError(e, 'read')).toBe(e);
  });
  it.each([
    [{ name: 'ThrottlingException' }, 'THROTTLING', /storage is throttling/],
    [{ name: 'TimeoutError' }, 'REQUEST_TIMED_OUT', /did not answer in time/],
    [{ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }, 'UNKNOWN_SERVER_ERROR', /internal error/],
  ])('%o becomes %s with a generic message naming only what Sluice was doing', (props, code, message) => {
    const out = toSluiceError(err(props), 'append to orders-3');
    expect(out).toBeInstanceOf(SluiceError);
    expect(out.code).toBe(code);
    expect(out.message).toMatch(/^append to orders-3: /);
    expect(out.message).toMatch(message);
    expect(out.message).not.toMatch(/arn:|123456789012|bucket-x/);
    expect(out.retriable).toBe(true);
  });
  it('a non-Error value is still an UNKNOWN_SERVER_ERROR', () => {
    expect(toSluiceError('boom', 'x').code).toBe('UNKNOWN_SERVER_ERROR');
  });
});
