// lib/api/operations.ts: the one table of operations every entry point reads.
import { describe, expect, it } from 'vitest';
import { allOperations, functionOperations } from '../../lib/api/operations.js';

describe('operation registry', () => {
  it('names and method + path pairs are unique across the whole API', () => {
    expect(new Set(allOperations.map((o) => o.name)).size).toBe(allOperations.length);
    expect(new Set(allOperations.map((o) => `${o.method} ${o.path}`)).size).toBe(allOperations.length);
  });
  it('each function serves its own operations; all of them make up the API', () => {
    expect(Object.keys(functionOperations).sort()).toEqual(['admin', 'fetch', 'groups', 'produce']);
    const names = (f: keyof typeof functionOperations) => functionOperations[f].map((o) => o.name);
    expect(names('produce')).toEqual(expect.arrayContaining(['produce', 'initProducerId']));
    expect(names('fetch')).toEqual(['fetch', 'listOffsets']);
    expect(names('admin')).toEqual(expect.arrayContaining(['createTopic', 'deleteTopic']));
    expect(names('groups')).toEqual(expect.arrayContaining(['joinGroup', 'heartbeat', 'commitOffsets']));
    expect(allOperations.length).toBe(Object.values(functionOperations).reduce((n, ops) => n + ops.length, 0));
    for (const o of allOperations) expect(o.path.startsWith('/v1/'), o.name).toBe(true);
  });
});
