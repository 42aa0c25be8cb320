// lib/observability/error-cause.ts: what of a hidden failure goes to the log, with the request's scope.
import { describe, expect, it, vi } from 'vitest';
import { describeCause, logErrorCause } from '../../lib/observability/error-cause.js';
import { logger } from '../../lib/observability/logger.js';
import { runInRequestScope } from '../../lib/observability/request-scope.js';

describe('error cause', () => {
  it('describeCause keeps the SDK\'s name, code, fault, status and request ids', () => {
    const e = Object.assign(new Error('denied on arn:...'), { name: 'AccessDenied', Code: 'AccessDenied', $fault: 'client', $metadata: { httpStatusCode: 403, requestId: 'R', extendedRequestId: 'X' } });
    expect(describeCause(e)).toMatchObject({ name: 'AccessDenied', message: 'denied on arn:...', code: 'AccessDenied', fault: 'client', httpStatusCode: 403, awsRequestId: 'R', awsExtendedRequestId: 'X' });
    expect(describeCause(e).stack).toMatch(/AccessDenied|denied/);
    expect(describeCause(Object.assign(new Error('x'), { code: 'ECONNRESET' })).code).toBe('ECONNRESET');
    expect(describeCause('plain')).toEqual({ message: 'plain' });
    expect(describeCause(null)).toEqual({ message: 'null' });
  });
  it('logErrorCause logs at the level asked, with where, the cause and the request scope', async () => {
    const error = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const info = vi.spyOn(logger, 'info').mockImplementation(() => undefined);
    await runInRequestScope({ requestId: 'req-1', operation: 'produce', topic: 'orders' }, async () => {
      logErrorCause('error', 'storage failed', 'append to orders-3', Object.assign(new Error('m'), { name: 'N' }));
      logErrorCause('info', 'storage throttled', 'w', new Error('t'));
    });
    expect(error).toHaveBeenCalledWith('storage failed', expect.objectContaining({ requestId: 'req-1', operation: 'produce', topic: 'orders', where: 'append to orders-3', cause: expect.objectContaining({ name: 'N', message: 'm' }) }));
    expect(info).toHaveBeenCalledWith('storage throttled', expect.objectContaining({ where: 'w' }));
    error.mockRestore();
    info.mockRestore();
  });
});
