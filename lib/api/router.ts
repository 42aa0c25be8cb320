// Dispatch of one request to an Operation, shared by every entry point: HTTP (API Gateway event
// or the local server) and direct Lambda invoke. It owns the parts of the contract that are not
// any one operation's: path matching, input merging (JSON body + query + path parameters, path
// wins), the 6 MB body limit, the record-batches body and answer (lib/records/batch-frames.ts,
// batch-body.ts: bytes in, bytes out base64-flagged, as API Gateway carries binary), and the error
// shape `{error: {code, message, retriable, ...}}` with
// `Retry-After` on retriable refusals. Unexpected exceptions become a generic 500; the real error
// is logged, never sent.
import { httpStatusOf } from './errors.js';
import type { SluiceContext } from '../context.js';
import { isThrottling, isTimeoutOrNetwork } from '../metadata/aws-errors.js';
import { logErrorCause } from '../observability/error-cause.js';
import { MAX_BATCH_BODY_BYTES, RECORD_BATCHES_MEDIA_TYPE, namesRecordBatches } from '../records/batch-frames.js';
import { RecordBatchesReply } from './batch-body.js';
import { SluiceError, isSluiceError } from '../errors.js';
import type { Operation, OperationResult } from './operation.js';
import { allOperations } from './operations.js';

/** Lambda's synchronous payload limit: larger bodies could never reach a Lambda in AWS. */
export const MAX_BODY_BYTES = 6 * 1024 * 1024;

export interface HttpRequest {
  readonly method: string;
  /** Path as received, percent-encoded, without the query string. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly headers?: Readonly<Record<string, string | undefined>>;
  /**
   * Text as received, or the raw bytes (an isBase64Encoded body): UTF-8 JSON, or record batches.
   * Bytes are handed over: a record-batches produce stamps offsets into its batches in place.
   */
  readonly body?: string | Buffer | null;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Text, or base64 of binary bytes when isBase64Encoded (a Lambda's answer to API Gateway). */
  readonly body: string;
  readonly isBase64Encoded?: boolean;
}

export interface InvokeResponse {
  readonly status: number;
  readonly body?: unknown;
}

interface CompiledRoute {
  readonly operation: Operation;
  readonly segments: readonly string[];
}

const compiled = new WeakMap<readonly Operation[], CompiledRoute[]>();

function routesOf(operations: readonly Operation[]): CompiledRoute[] {
  let routes = compiled.get(operations);
  if (!routes) {
    routes = operations.map((operation) => ({ operation, segments: operation.path.split('/').filter(Boolean) }));
    compiled.set(operations, routes);
  }
  return routes;
}

function matchPath(route: CompiledRoute, parts: readonly string[]): Record<string, string> | undefined {
  if (route.segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const template = route.segments[i];
    if (template.startsWith('{') && template.endsWith('}')) {
      if (parts[i] === '') return undefined;
      let value: string;
      try {
        value = decodeURIComponent(parts[i]);
      } catch {
        throw new SluiceError('INVALID_REQUEST', `path segment '${parts[i]}' is not valid percent-encoding`);
      }
      params[template.slice(1, -1)] = value;
    } else if (template !== parts[i]) {
      return undefined;
    }
  }
  return params;
}

/**
 * The operation of `operations` for method + path, and its path parameters; NOT_FOUND /
 * METHOD_NOT_ALLOWED otherwise. Whether a method is not allowed is judged on the whole API (any
 * function's operations): in AWS a request no route matches reaches one function (the `$default`
 * route), which must answer it as the local server does.
 */
export function resolveRoute(
  operations: readonly Operation[],
  method: string,
  path: string,
): { operation: Operation; params: Record<string, string> } {
  // Only the leading slash is dropped: an empty segment ('/v1/topics//t') matches no template
  // rather than shifting the others (DELETE /v1/topics//t must not delete topic 't').
  const parts = path.replace(/^\//, '').split('/');
  const wanted = method.toUpperCase();
  for (const route of routesOf(operations)) {
    const params = matchPath(route, parts);
    if (params && route.operation.method === wanted) return { operation: route.operation, params };
  }
  const allowed = new Set<string>();
  for (const route of routesOf(allOperations)) {
    if (route.operation.method !== wanted && matchPath(route, parts)) allowed.add(route.operation.method);
  }
  if (allowed.size > 0) {
    throw new SluiceError('METHOD_NOT_ALLOWED', `${wanted} is not allowed on ${path}; use ${[...allowed].join(' or ')}`, {
      allow: [...allowed],
    });
  }
  throw new SluiceError('NOT_FOUND', `no such resource: ${path}`);
}

// Fatal: a body in another encoding is refused, never stored with U+FFFD in place of its bytes.
const utf8 = new TextDecoder('utf-8', { fatal: true });

function parseBody(raw: string | Buffer | null | undefined): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  const size = typeof raw === 'string' ? Buffer.byteLength(raw, 'utf8') : raw.length;
  if (size > MAX_BODY_BYTES) {
    throw new SluiceError('MESSAGE_TOO_LARGE', `request body is ${size} bytes; the limit is ${MAX_BODY_BYTES} (6 MB)`, {
      size,
      limit: MAX_BODY_BYTES,
    });
  }
  let body: string;
  try {
    body = typeof raw === 'string' ? raw : utf8.decode(raw);
  } catch {
    throw new SluiceError('INVALID_REQUEST', 'request body is not valid UTF-8');
  }
  if (body.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (e) {
    throw new SluiceError('INVALID_REQUEST', `request body is not valid JSON: ${(e as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new SluiceError('INVALID_REQUEST', 'request body must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}

/** A header's value, whatever the case of its name (API Gateway and Node lower-case them; callers may not). */
function headerValue(headers: HttpRequest['headers'], name: string): string | undefined {
  if (!headers) return undefined;
  const exact = headers[name];
  if (exact !== undefined) return exact;
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

/** The bytes of a record-batches body: binary, so never read as text. */
function batchBody(operation: Operation, raw: string | Buffer | null | undefined): Buffer {
  if (!operation.acceptsBatchBody) {
    throw new SluiceError('INVALID_REQUEST', `${operation.method} ${operation.path} does not take a ${RECORD_BATCHES_MEDIA_TYPE} body; send JSON`);
  }
  const bytes = raw === undefined || raw === null ? Buffer.alloc(0) : typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
  if (bytes.length > MAX_BATCH_BODY_BYTES) {
    throw new SluiceError(
      'MESSAGE_TOO_LARGE',
      `request body is ${bytes.length} bytes; a ${RECORD_BATCHES_MEDIA_TYPE} body reaches the Lambda base64-encoded, so the limit is ${MAX_BATCH_BODY_BYTES}`,
      { size: bytes.length, limit: MAX_BATCH_BODY_BYTES },
    );
  }
  return bytes;
}

const TAKES_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * The operation's input. Each name comes from exactly one place: path parameters; the query
 * string (GET, DELETE) or the body (POST: JSON, or record batches by Content-Type, which alone
 * supplies `batches`); `format` from Accept. A name given in two places, a query string on a
 * POST, a body on a GET or a JSON `batches` field is INVALID_REQUEST — never one place silently
 * overriding another (a `?batches=` once sent a JSON produce down the record-batches path).
 */
function inputOf(operation: Operation, params: Record<string, string>, request: HttpRequest): Record<string, unknown> {
  const where = `${operation.method} ${operation.path}`;
  const recordBatches = namesRecordBatches(headerValue(request.headers, 'content-type'));
  const body = recordBatches ? { batches: batchBody(operation, request.body) } : parseBody(request.body);
  if (!recordBatches && 'batches' in body) {
    throw new SluiceError('INVALID_REQUEST', `'batches' is not a JSON field: send record batches as a ${RECORD_BATCHES_MEDIA_TYPE} body`);
  }
  const query: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(request.query ?? {})) if (v !== undefined) query[k] = v;
  if (TAKES_BODY.has(operation.method)) {
    const names = Object.keys(query);
    if (names.length > 0) throw new SluiceError('INVALID_REQUEST', `${where} takes its input from the body, not the query string (got ${names.join(', ')})`);
  } else if (Object.keys(body).length > 0) {
    throw new SluiceError('INVALID_REQUEST', `${where} takes no body; give its input in the query string`);
  }
  const fromAccept: Record<string, unknown> = {};
  if (operation.answersBatches && namesRecordBatches(headerValue(request.headers, 'accept'))) fromAccept.format = 'batches';
  const sources: [string, Record<string, unknown>][] = [
    ['path', params],
    ['query string', query],
    ['body', body],
    ['Accept header', fromAccept],
  ];
  const seen = new Map<string, string>();
  for (const [source, values] of sources) {
    for (const name of Object.keys(values)) {
      const first = seen.get(name);
      if (first !== undefined) throw new SluiceError('INVALID_REQUEST', `'${name}' is given both in the ${first} and in the ${source}; give it once`);
      seen.set(name, source);
    }
  }
  return { ...body, ...query, ...fromAccept, ...params };
}

/**
 * Turns any failure into the contract's error. AWS throttling and timeouts that an operation did
 * not classify itself are still retriable THROTTLING / REQUEST_TIMED_OUT; anything else is
 * logged and hidden.
 */
export function toSluiceError(e: unknown, where: string): SluiceError {
  if (isSluiceError(e)) return e;
  if (isThrottling(e)) {
    logErrorCause('info', 'storage throttled', where, e);
    return new SluiceError('THROTTLING', 'storage is throttling requests; retry after the given delay');
  }
  if (isTimeoutOrNetwork(e)) {
    logErrorCause('info', 'storage timed out', where, e);
    return new SluiceError('REQUEST_TIMED_OUT', 'storage did not answer in time; the request may be retried');
  }
  logErrorCause('error', 'unexpected error', where, e);
  return new SluiceError('UNKNOWN_SERVER_ERROR', 'internal error; the request may be retried');
}

function errorHeaders(error: SluiceError): Record<string, string> {
  const headers: Record<string, string> = {};
  if (error.retriable && error.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.retryAfterSeconds);
  if (error.code === 'METHOD_NOT_ALLOWED' && Array.isArray(error.details.allow)) headers.allow = error.details.allow.join(', ');
  return headers;
}

/** The HTTP answer for a failure: the contract's body, with `Retry-After` / `Allow` where they apply. */
export function errorResponse(error: SluiceError): HttpResponse {
  return {
    status: httpStatusOf(error),
    headers: { 'content-type': 'application/json', ...errorHeaders(error) },
    body: JSON.stringify(error.toBody()),
  };
}

/** Serves one HTTP request. Never throws. */
export async function handleHttp(
  ctx: SluiceContext,
  request: HttpRequest,
  operations: readonly Operation[] = allOperations,
): Promise<HttpResponse> {
  let result: OperationResult;
  try {
    const { operation, params } = resolveRoute(operations, request.method, request.path);
    result = await operation.run(ctx, inputOf(operation, params, request));
  } catch (e) {
    return errorResponse(toSluiceError(e, `${request.method} ${request.path}`));
  }
  if (result.body instanceof RecordBatchesReply) {
    const { headers, body } = result.body.toHttp();
    return { status: result.status, headers: { ...headers, ...result.headers }, body: body.toString('base64'), isBase64Encoded: true };
  }
  const hasBody = result.body !== undefined && result.status !== 204;
  return {
    status: result.status,
    headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...result.headers },
    body: hasBody ? JSON.stringify(result.body) : '',
  };
}

/** Serves one direct-invoke event `{op, ...input}`. Never throws; errors come back as `{status, body: {error}}`. */
export async function handleInvoke(
  ctx: SluiceContext,
  event: Readonly<Record<string, unknown>>,
  operations: readonly Operation[] = allOperations,
): Promise<InvokeResponse> {
  const { op, ...input } = event;
  try {
    const operation = operations.find((o) => o.name === op);
    if (!operation) {
      const known = operations.map((o) => o.name).join(', ');
      throw new SluiceError('NOT_FOUND', `unknown op ${JSON.stringify(op)}; this function serves: ${known}`);
    }
    const result = await operation.run(ctx, input);
    if (result.body instanceof RecordBatchesReply) return { status: result.status, body: result.body.toInvoke() };
    return result.body === undefined ? { status: result.status } : { status: result.status, body: result.body };
  } catch (e) {
    const error = toSluiceError(e, `invoke ${String(op)}`);
    return { status: httpStatusOf(error), body: error.toBody() };
  }
}
