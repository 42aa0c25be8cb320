// lib/api/openapi-file.ts: the checked-in document's text, and importing it writes nothing.
import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILE, renderOpenApi } from '../../lib/api/openapi-file.js';
import { buildOpenApi } from '../../lib/api/openapi.js';
import { functionOperations } from '../../lib/api/operations.js';

describe('openapi file', () => {
  it('docs/openapi.json, 2-space JSON with a final newline, the document of the operation table', () => {
    expect(OPENAPI_FILE.endsWith('/docs/openapi.json')).toBe(true);
    const text = renderOpenApi();
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.split('\n')[1]).toMatch(/^ {2}"/);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(buildOpenApi(functionOperations))));
  });
  it('importing the module (not running it) leaves the file alone', () => {
    const before = statSync(OPENAPI_FILE).mtimeMs;
    renderOpenApi();
    expect(statSync(OPENAPI_FILE).mtimeMs).toBe(before);
    expect(readFileSync(OPENAPI_FILE, 'utf8').length).toBeGreaterThan(0);
  });
});
