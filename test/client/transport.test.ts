// lib/client/transport.ts: the path and query forms both transports send.
import { describe, expect, it } from 'vitest';
import { expandPath, queryStrings } from '../../lib/client/transport.js';

describe('transport helpers', () => {
  it('expandPath percent-encodes parameters and refuses a missing one', () => {
    expect(expandPath('/v1/topics/{topic}/partitions/{partition}', { topic: 'a b/c', partition: 3 })).toBe('/v1/topics/a%20b%2Fc/partitions/3');
    expect(expandPath('/v1/topics')).toBe('/v1/topics');
    expect(() => expandPath('/v1/groups/{group}', {})).toThrow(/missing path parameter 'group'/);
  });
  it('queryStrings drops undefined and stringifies the rest', () => {
    expect(queryStrings({ a: 1, b: undefined, c: 'x' })).toEqual({ a: '1', c: 'x' });
    expect(queryStrings()).toEqual({});
  });
});
