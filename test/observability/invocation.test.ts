// lib/observability/invocation.ts: one line and the right counters per invocation, with fake
// observers: 2xx/4xx info, 503/429 retriable refusals (never server errors), 5xx and throws
// server errors; cold start only inside Lambda; always flushed.
import { describe, expect, it } from 'vitest';
import { observeInvocation, type Observers } from '../../lib/observability/invocation.js';
import { runInRequestScope } from '../../lib/observability/request-scope.js';

function fakes() {
  const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  const counts: Record<string, number> = {};
  const bump = (k: string) => () => void (counts[k] = (counts[k] ?? 0) + 1);
  const log = (level: string) => (message: string, fields: Record<string, unknown>) => void lines.push({ level, message, fields });
  const observers = {
    logger: { info: log('info'), warn: log('warn'), error: log('error'), addContext: bump('addContext') },
    metrics: { coldStart: bump('coldStart'), retriableRefusal: bump('retriableRefusal'), serverError: bump('serverError'), flush: bump('flush') },
  } as unknown as Observers;
  return { observers, lines, counts };
}

describe('observeInvocation', () => {
  it.each([
    [{ status: 200 }, 'info', {}],
    [{ statusCode: 404 }, 'info', {}],
    [{}, 'info', {}], // an API Gateway result without statusCode is a 200
    [{ status: 503 }, 'warn', { retriableRefusal: 1 }],
    [{ statusCode: 429 }, 'warn', { retriableRefusal: 1 }],
    [{ status: 500 }, 'error', { serverError: 1 }],
  ])('%o: a %s line and %o', async (reply, level, expected) => {
    const { observers, lines, counts } = fakes();
    const out = await runInRequestScope({ requestId: 'r1', topic: 't' }, () => observeInvocation('produce', undefined, async () => reply, observers));
    expect(out).toBe(reply);
    expect(lines).toHaveLength(1);
    expect(lines[0].level).toBe(level);
    expect(lines[0].fields).toMatchObject({ operation: 'produce', requestId: 'r1', topic: 't' });
    expect(typeof lines[0].fields.durationMs).toBe('number');
    expect(counts).toEqual({ flush: 1, ...expected });
  });
  it('a thrown error: server error, error line, rethrown, flushed', async () => {
    const { observers, lines, counts } = fakes();
    await expect(observeInvocation('fetch', undefined, async () => Promise.reject(new Error('boom')), observers)).rejects.toThrow('boom');
    expect(lines.map((l) => [l.level, l.message])).toEqual([['error', 'operation threw']]);
    expect(counts).toEqual({ serverError: 1, flush: 1 });
  });
  it('inside Lambda: the context is added and cold start counted', async () => {
    const { observers, counts } = fakes();
    await observeInvocation('x', { awsRequestId: 'a' } as never, async () => ({ status: 200 }), observers);
    expect(counts).toMatchObject({ addContext: 1, coldStart: 1, flush: 1 });
  });
});
