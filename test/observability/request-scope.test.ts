// lib/observability/request-scope.ts: the scope follows async work of its own request only.
import { describe, expect, it } from 'vitest';
import { currentRequestScope, runInRequestScope } from '../../lib/observability/request-scope.js';

describe('request scope', () => {
  it('empty outside a request; each concurrent request sees its own, across awaits', async () => {
    expect(currentRequestScope()).toEqual({});
    const seen = await Promise.all(
      ['a', 'b', 'c'].map((id, i) =>
        runInRequestScope({ requestId: id, operation: 'op' }, async () => {
          await new Promise((r) => setTimeout(r, 5 - i));
          await Promise.resolve();
          return currentRequestScope().requestId;
        }),
      ),
    );
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(currentRequestScope()).toEqual({});
  });
  it('returns what the run returns, and a nested scope replaces the outer one inside it', async () => {
    const out = await runInRequestScope({ requestId: 'outer' }, async () => {
      const inner = await runInRequestScope({ requestId: 'inner' }, async () => currentRequestScope().requestId);
      return [inner, currentRequestScope().requestId];
    });
    expect(out).toEqual(['inner', 'outer']);
  });
});
