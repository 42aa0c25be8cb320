// docs/openapi.json against the operation table it is generated from (lib/api/openapi.ts): every
// route and schema in it, the checked-in file up to date, served at GET /v1/openapi.json, and the
// response schemas true to what the operations really answer.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { SluiceContext } from '../../lib/context.js';
import { ERROR_CODES, errorBodySchema } from '../../lib/api/errors.js';
import { buildOpenApi } from '../../lib/api/openapi.js';
import { OPENAPI_FILE, renderOpenApi } from '../../lib/api/openapi-file.js';
import type { Operation } from '../../lib/api/operation.js';
import { allOperations, functionOperations } from '../../lib/api/operations.js';
import { handleHttp, handleInvoke } from '../../lib/api/router.js';
import { RECORD_BATCHES_MEDIA_TYPE } from '../../lib/records/batch-frames.js';
import { createTestContext } from '../support/storage.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any;

const checkedIn: Doc = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));

/** Every `$ref` in a JSON value. */
function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refs(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

function resolve(doc: Doc, ref: string): unknown {
  expect(ref.startsWith('#/')).toBe(true);
  return ref
    .slice(2)
    .split('/')
    .reduce<Doc>((node, key) => (node === undefined ? undefined : node[key]), doc);
}

/** The names of the fields an operation's input takes (its zod object's keys). */
function inputFields(op: Operation): string[] {
  const schema = z.toJSONSchema(op.input, { io: 'input' }) as { properties?: Record<string, unknown> };
  return Object.keys(schema.properties ?? {}).sort();
}

describe('docs/openapi.json', () => {
  it('is what `npm run openapi` generates today (regenerate it when an operation changes)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8'), 'docs/openapi.json is stale: run `npm run openapi`').toBe(renderOpenApi());
  });

  it('is OpenAPI 3.1 with every $ref resolving', () => {
    expect(checkedIn.openapi).toBe('3.1.0');
    for (const ref of refs(checkedIn)) expect(resolve(checkedIn, ref), ref).toBeDefined();
  });

  it('has exactly the routes of the operation table, each with its operationId', () => {
    const documented = Object.entries(checkedIn.paths as Record<string, Record<string, Doc>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    );
    expect(documented.sort()).toEqual(allOperations.map((op) => `${op.method} ${op.path} ${op.name}`).sort());
  });

  it("documents every field of each operation's input, as path, query or body, and its answer's schema", () => {
    for (const op of allOperations) {
      const entry = checkedIn.paths[op.path][op.method.toLowerCase()];
      const params = (entry.parameters ?? []) as { name: string; in: string; schema: unknown }[];
      for (const p of params) expect(p.schema, `${op.name} ${p.name}`).toBeDefined();
      const bodyRef = entry.requestBody?.content?.['application/json']?.schema?.$ref;
      const body = bodyRef ? (resolve(checkedIn, bodyRef) as { properties: Record<string, unknown> }) : undefined;
      const documented = [...params.map((p) => p.name), ...Object.keys(body?.properties ?? {})].sort();
      expect(documented, op.name).toEqual(inputFields(op));
      for (const p of params) expect(p.in, `${op.name} ${p.name}`).toBe(op.path.includes(`{${p.name}}`) ? 'path' : 'query');

      const success = entry.responses[String(op.response.status)];
      expect(success, `${op.name} ${op.response.status}`).toBeDefined();
      if (op.response.body) {
        const ref = success.content['application/json'].schema.$ref as string;
        expect(resolve(checkedIn, ref), `${op.name} ${ref}`).toMatchObject({ type: 'object' });
      } else {
        expect(success.content, op.name).toBeUndefined();
      }
      expect(entry.responses['4XX']).toEqual({ $ref: '#/components/responses/Error' });
      expect(entry.responses['5XX']).toEqual({ $ref: '#/components/responses/Error' });
    }
  });

  it('gives produce and fetch the record-batches media type as a second body and answer', () => {
    const takes = allOperations.filter((op) => op.acceptsBatchBody).map((op) => op.name);
    const answers = allOperations.filter((op) => op.answersBatches).map((op) => op.name);
    expect(takes).toEqual(['produce']);
    expect(answers).toEqual(['fetch']);
    for (const op of allOperations) {
      const entry = checkedIn.paths[op.path][op.method.toLowerCase()];
      const request = Object.keys(entry.requestBody?.content ?? {});
      const response = Object.keys(entry.responses[String(op.response.status)].content ?? {});
      expect(request.includes(RECORD_BATCHES_MEDIA_TYPE), op.name).toBe(!!op.acceptsBatchBody);
      expect(response.includes(RECORD_BATCHES_MEDIA_TYPE), op.name).toBe(!!op.answersBatches);
      if (op.acceptsBatchBody) expect(request).toContain('application/json');
      if (op.answersBatches) expect(response).toContain('application/json');
    }
    const fetch = checkedIn.paths['/v1/topics/{topic}/partitions/{partition}/records'].get.responses['200'];
    expect(Object.keys(fetch.headers).sort()).toEqual(['Sluice-High-Watermark', 'Sluice-Log-Start-Offset', 'Sluice-Next-Offset']);
  });

  it('answers every error with the one error body, its code one of the codes enum', () => {
    expect(checkedIn.components.responses.Error.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(checkedIn.components.schemas.Error.properties.error.properties.code).toEqual({ $ref: '#/components/schemas/ErrorCode' });
    expect(checkedIn.components.schemas.ErrorCode.enum).toEqual(ERROR_CODES);
    expect(ERROR_CODES).toContain('OFFSET_OUT_OF_RANGE');
  });

  it('fails to generate when a path parameter is not a field of the input', () => {
    const broken: Operation = { ...allOperations[0], name: 'broken', method: 'GET', path: '/v1/things/{thing}', input: z.strictObject({}) };
    expect(() => buildOpenApi({ admin: [broken] })).toThrow(/\{thing\}/);
  });
});

describe('GET /v1/openapi.json and the answers the document promises', () => {
  let ctx: SluiceContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });

  it('serves the checked-in document', async () => {
    const res = await handleHttp(ctx, { method: 'GET', path: '/v1/openapi.json' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(JSON.parse(res.body)).toEqual(checkedIn);
    expect(functionOperations.admin.map((op) => op.name)).toContain('getOpenApi');
  });

  it("every operation's success answer parses with its response schema (strict: no undocumented field)", async () => {
    const byName = new Map(allOperations.map((op) => [op.name, op]));
    const seen = new Set<string>();
    const run = async (event: Record<string, unknown>) => {
      const op = byName.get(String(event.op))!;
      const reply = await handleInvoke(ctx, event);
      expect(reply.status, `${op.name}: ${JSON.stringify(reply.body)}`).toBe(op.response.status);
      if (op.response.body) {
        const parsed = op.response.body.safeParse(reply.body);
        expect(parsed.success, `${op.name}: ${parsed.error?.message} in ${JSON.stringify(reply.body)}`).toBe(true);
      } else {
        expect(reply.body, op.name).toBeUndefined();
      }
      seen.add(op.name);
      return reply.body as Record<string, any>;
    };

    await run({ op: 'createTopic', name: 'docs', partitions: 2 });
    await run({ op: 'listTopics' });
    await run({ op: 'createPartitions', topic: 'docs', count: 3 });
    const producer = await run({ op: 'initProducerId' });
    await run({ op: 'produce', topic: 'docs', records: [{ key: 'k', value: 'v', headers: [{ key: 'h', value: null }] }, { value: null, partition: 2 }] });
    await run({
      op: 'produce', topic: 'docs', producerId: producer.producerId, producerEpoch: producer.producerEpoch,
      sequences: [{ partition: 1, baseSequence: 0 }], records: [{ partition: 1, value: 'once' }],
    });
    // The retry of that batch: acknowledged with `duplicate`.
    await run({
      op: 'produce', topic: 'docs', producerId: producer.producerId, producerEpoch: producer.producerEpoch,
      sequences: [{ partition: 1, baseSequence: 0 }], records: [{ partition: 1, value: 'once' }],
    });
    await run({ op: 'describeTopic', topic: 'docs' });
    await run({ op: 'alterTopicConfig', topic: 'docs', config: { 'retention.ms': '3600000', 'segment.ms': null } });
    await run({ op: 'describeTopicConfigs', topic: 'docs' });
    await run({ op: 'fetch', topic: 'docs', partition: 1, offset: 0 });
    await run({ op: 'fetch', topic: 'docs', partition: 1, offset: 0, encoding: 'base64' });
    await run({ op: 'listOffsets', topic: 'docs', partition: 1, at: 'latest' });
    await run({ op: 'listOffsets', topic: 'docs', partition: 1, at: 0 });
    const joined = await run({ op: 'joinGroup', group: 'g', topics: ['docs'] });
    await run({ op: 'heartbeat', group: 'g', memberId: joined.memberId, generation: joined.generation });
    await run({ op: 'commitOffsets', group: 'g', memberId: joined.memberId, generation: joined.generation, offsets: [{ topic: 'docs', partition: 1, offset: 1 }] });
    await run({ op: 'fetchOffsets', group: 'g' });
    await run({ op: 'describeGroup', group: 'g' });
    await run({ op: 'listGroups' });
    await run({ op: 'leaveGroup', group: 'g', memberId: joined.memberId });
    await run({ op: 'resetOffsets', group: 'g', topic: 'docs', to: 'earliest' });
    await run({ op: 'deleteGroup', group: 'g' });
    await run({ op: 'createTopic', name: 'docs-dlq', partitions: 1 });
    await run({
      op: 'createSubscription', name: 'docs-hook', topic: 'docs', target: { type: 'https', url: 'https://example.com/hook' },
      startingPosition: 'AT_TIMESTAMP', startingPositionTimestamp: 0, onFailure: { type: 'topic', topic: 'docs-dlq' }, enabled: false,
    });
    await run({ op: 'listSubscriptions' });
    await run({ op: 'describeSubscription', name: 'docs-hook' });
    await run({ op: 'deleteSubscription', name: 'docs-hook' });
    await run({ op: 'getOpenApi' });
    await run({ op: 'deleteTopic', topic: 'docs' });
    expect([...seen].sort()).toEqual(allOperations.map((op) => op.name).sort());
  });

  it('an error answer parses with the Error schema', async () => {
    const res = await handleHttp(ctx, { method: 'GET', path: '/v1/topics/nope/partitions/0/records', query: { offset: '0' } });
    expect(res.status).toBe(404);
    const error = JSON.parse(res.body);
    expect(error.error.code).toBe('UNKNOWN_TOPIC_OR_PARTITION');
    expect(errorBodySchema.safeParse(error).success).toBe(true);
  });
});
