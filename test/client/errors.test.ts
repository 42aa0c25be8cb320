// lib/client/errors.ts: server error bodies map 1:1; anything else by status; thrown values are
// retriable network errors.
import { describe, expect, it } from 'vitest';
import { SluiceClientError, errorFromReply, isSluiceClientError, toClientError } from '../../lib/client/errors.js';

describe('client errors', () => {
  it('a server error body: code, message, retriable and the extra fields as details', () => {
    const e = errorFromReply(416, { error: { code: 'OFFSET_OUT_OF_RANGE', message: 'far', retriable: false, logStartOffset: 0, highWatermark: 9 } }, 250);
    expect(e).toMatchObject({ code: 'OFFSET_OUT_OF_RANGE', message: 'far', retriable: false, status: 416, retryAfterMs: 250, details: { logStartOffset: 0, highWatermark: 9 } });
    expect(isSluiceClientError(e)).toBe(true);
    expect(e.name).toBe('SluiceClientError');
  });
  it('a body without `retriable` falls back on the status', () => {
    expect(errorFromReply(503, { error: { code: 'X' } }).retriable).toBe(true);
    expect(errorFromReply(400, { error: { code: 'X' } })).toMatchObject({ retriable: false, message: 'X' });
  });
  it('no error body: THROTTLING for 429, UNKNOWN_SERVER_ERROR for 5xx, INVALID_REQUEST otherwise; text kept (200 chars)', () => {
    expect(errorFromReply(429, undefined)).toMatchObject({ code: 'THROTTLING', retriable: true, message: 'HTTP 429' });
    expect(errorFromReply(502, '<html>bad gateway</html>')).toMatchObject({ code: 'UNKNOWN_SERVER_ERROR', retriable: true, message: '<html>bad gateway</html>' });
    expect(errorFromReply(404, 'x'.repeat(500))).toMatchObject({ code: 'INVALID_REQUEST', retriable: false });
    expect(errorFromReply(404, 'x'.repeat(500)).message).toHaveLength(200);
  });
  it('toClientError keeps client errors and wraps anything else as a retriable NETWORK_ERROR with its cause', () => {
    const mine = new SluiceClientError('A', 'a');
    expect(toClientError(mine)).toBe(mine);
    const cause = new Error('socket hang up');
    expect(toClientError(cause)).toMatchObject({ code: 'NETWORK_ERROR', retriable: true, message: 'socket hang up', cause });
    expect(toClientError('weird').message).toBe('weird');
    expect(new SluiceClientError('B', 'b').details).toEqual({});
  });
});
