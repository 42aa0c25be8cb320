// docs/openapi.json, the checked-in OpenAPI document: `npm run openapi` (tsx lib/api/openapi-file.ts)
// rewrites it from the operation table; test/api/openapi.test.ts fails when it is out of date.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildOpenApi } from './openapi.js';
import { functionOperations } from './operations.js';

export const OPENAPI_FILE = fileURLToPath(new URL('../../docs/openapi.json', import.meta.url));

/** The document's text as checked in: 2-space JSON and a final newline. */
export function renderOpenApi(): string {
  return `${JSON.stringify(buildOpenApi(functionOperations), null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(OPENAPI_FILE, renderOpenApi());
  process.stdout.write(`wrote ${OPENAPI_FILE}\n`);
}
