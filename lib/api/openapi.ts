// The OpenAPI 3.1 document of the HTTP API, generated from the operation table (operations.ts):
// each Operation's method and path, and the zod schemas it parses its input with and answers with
// (`input`, `response`), turned into JSON Schema by zod's own `z.toJSONSchema`. Nothing is written
// twice: docs/openapi.json is this function's output (`npm run openapi`), served at
// GET /v1/openapi.json, and test/api/openapi.test.ts fails when the two differ or an operation is
// missing from it.
//
// How an operation's one input object maps onto HTTP (router.ts merges them back):
//   - the fields its path names ({topic}, {group}, ...) are path parameters;
//   - the other fields are the JSON request body of a POST, and query parameters otherwise;
//   - `acceptsBatchBody`: the body may instead be application/vnd.sluice.record-batches (binary);
//   - `answersBatches`: the answer may instead be that media type (with `Accept:` naming it), the
//     offsets in Sluice-Next-Offset / Sluice-High-Watermark / Sluice-Log-Start-Offset headers.
// Every error is the one error body (`{error: {code, message, retriable, ...}}`, the codes enum),
// under 4XX and 5XX.
import * as z from 'zod';
import pkg from '../../package.json' with { type: 'json' };
import { HIGH_WATERMARK_HEADER, LOG_START_OFFSET_HEADER, NEXT_OFFSET_HEADER, RECORD_BATCHES_MEDIA_TYPE } from '../records/batch-frames.js';
import { errorBodySchema } from './errors.js';
import type { Operation } from './operation.js';
import { parseInput } from './validation.js';

type Json = Record<string, unknown>;

export const OPENAPI_PATH = '/v1/openapi.json';

const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

const binary = { type: 'string', format: 'binary' } as const;

function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** JSON Schema (2020-12, as OpenAPI 3.1 has it) of a zod schema; `$schema` dropped, shared ids into `shared`. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output', shared: Json): Json {
  const generated = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'throw' });
  // Schemas with a meta id (ErrorCode) are $defs, referenced: they become components.
  const out = JSON.parse(JSON.stringify(generated).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
  delete out.$schema;
  const defs = out.$defs as Record<string, Json> | undefined;
  if (defs) {
    for (const [id, def] of Object.entries(defs)) shared[id] = def;
    delete out.$defs;
  }
  return out;
}

function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
}

function operationObject(op: Operation, tag: string, schemas: Json): Json {
  const input = jsonSchema(op.input, 'input', schemas);
  const properties = (input.properties ?? {}) as Record<string, Json>;
  const required = new Set((input.required ?? []) as string[]);
  const inPath = pathParams(op.path);
  for (const p of inPath) {
    if (!(p in properties)) throw new Error(`${op.name}: path parameter {${p}} is not a field of its input schema`);
  }

  const parameters: Json[] = inPath.map((p) => ({ name: p, in: 'path', required: true, schema: properties[p] }));
  const rest = Object.keys(properties).filter((k) => !inPath.includes(k));
  const out: Json = { operationId: op.name, summary: op.summary, tags: [tag] };

  if (BODY_METHODS.has(op.method)) {
    const content: Json = {};
    if (rest.length > 0) {
      const body: Json = { ...input, properties: Object.fromEntries(rest.map((k) => [k, properties[k]])) };
      const bodyRequired = rest.filter((k) => required.has(k));
      if (bodyRequired.length > 0) body.required = bodyRequired;
      else delete body.required;
      schemas[`${pascal(op.name)}Request`] = body;
      content['application/json'] = { schema: { $ref: `#/components/schemas/${pascal(op.name)}Request` } };
    }
    if (op.acceptsBatchBody) {
      content[RECORD_BATCHES_MEDIA_TYPE] = {
        schema: {
          ...binary,
          description: 'Frames of an int32 partition and one Kafka RecordBatch v2 each (lib/records/batch-frames.ts); the answer has no per-record list.',
        },
      };
    }
    if (Object.keys(content).length > 0) out.requestBody = { required: rest.some((k) => required.has(k)) || !!op.acceptsBatchBody, content };
  } else {
    for (const k of rest) parameters.push({ name: k, in: 'query', required: required.has(k), schema: properties[k] });
  }
  if (parameters.length > 0) out.parameters = parameters;

  const success: Json = { description: op.summary };
  if (op.response.body) {
    const id = `${pascal(op.name)}Response`;
    schemas[id] = jsonSchema(op.response.body, 'output', schemas);
    const content: Json = { 'application/json': { schema: { $ref: `#/components/schemas/${id}` } } };
    if (op.answersBatches) {
      content[RECORD_BATCHES_MEDIA_TYPE] = {
        schema: {
          ...binary,
          description: 'The stored RecordBatches concatenated (Accept: this media type); the first may start before the offset asked for.',
        },
      };
      success.headers = Object.fromEntries(
        [
          [NEXT_OFFSET_HEADER, 'The offset to fetch next (record-batches answers).'],
          [HIGH_WATERMARK_HEADER, "The partition's high watermark (record-batches answers)."],
          [LOG_START_OFFSET_HEADER, "The partition's log start offset (record-batches answers)."],
        ].map(([name, description]) => [name.replace(/(^|-)([a-z])/g, (_, d: string, c: string) => d + c.toUpperCase()), { description, schema: { type: 'integer', minimum: 0 } }]),
      );
    }
    success.content = content;
  }
  out.responses = {
    [String(op.response.status)]: success,
    '4XX': { $ref: '#/components/responses/Error' },
    '5XX': { $ref: '#/components/responses/Error' },
  };
  return out;
}

/**
 * The OpenAPI 3.1 document of the operations, tagged by the function that serves each (key of the
 * table). Throws when an operation's schema cannot be represented (a transform, a custom check).
 */
export function buildOpenApi(table: Readonly<Record<string, readonly Operation[]>>): Json {
  const schemas: Json = {};
  const paths: Record<string, Json> = {};
  for (const [fn, operations] of Object.entries(table)) {
    for (const op of operations) {
      const item = (paths[op.path] ??= {});
      const method = op.method.toLowerCase();
      if (item[method]) throw new Error(`${op.method} ${op.path} is served by two operations`);
      item[method] = operationObject(op, fn, schemas);
    }
  }
  schemas.Error = jsonSchema(errorBodySchema, 'output', schemas);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Sluice',
      version: pkg.version,
      description:
        "Kafka's partitioned, append-only log on serverless AWS, over HTTP. Generated from lib/api/operations.ts by lib/api/openapi.ts (npm run openapi); do not edit.",
      license: { name: pkg.license, identifier: pkg.license },
    },
    security: [{ sigv4: [] }],
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      responses: {
        Error: {
          description: 'A refusal or failure: the error body, its code one of ErrorCode.',
          headers: {
            'Retry-After': { description: 'Seconds to wait before retrying (retriable errors).', schema: { type: 'integer', minimum: 0 } },
            Allow: { description: 'The methods the path takes (METHOD_NOT_ALLOWED).', schema: { type: 'string' } },
          },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
      securitySchemes: {
        sigv4: {
          type: 'apiKey',
          name: 'Authorization',
          in: 'header',
          description: 'AWS Signature Version 4 (IAM); the local server takes unsigned requests.',
          'x-amazon-apigateway-authtype': 'awsSigv4',
        },
      },
    },
  };
}

/** GET /v1/openapi.json: this document, built once per process from the table `table()` returns. */
export function openApiOperation(table: () => Readonly<Record<string, readonly Operation[]>>): Operation {
  let document: Json | undefined;
  return {
    name: 'getOpenApi',
    method: 'GET',
    path: OPENAPI_PATH,
    summary: 'The OpenAPI 3.1 document of this API',
    input: z.strictObject({}),
    response: { status: 200, body: z.looseObject({ openapi: z.literal('3.1.0') }) },
    async run(_ctx, raw) {
      parseInput(z.strictObject({}), raw);
      document ??= buildOpenApi(table());
      return { status: 200, body: document };
    },
  };
}
