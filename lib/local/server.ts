// The local HTTP front end: what API Gateway does in AWS. Each request becomes an API Gateway
// HTTP API (payload v2) event and goes to the Lambda handler of the function that owns the route
// (the same createLambdaHandler + operation table as lambdas/*.ts), with the local context
// injected instead of one built from the environment. So local behaviour is the cloud's. Where
// the cloud has IAM, this server has request-guard.ts: loopback Host and Origin, JSON or
// record-batches bodies only, so a web page the developer visits cannot drive it.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { SluiceContext } from '../context.js';
import { SluiceError } from '../errors.js';
import { createLambdaHandler } from '../api/lambda-adapter.js';
import type { Operation } from '../api/operation.js';
import { allOperations, functionOperations } from '../api/operations.js';
import { MAX_BODY_BYTES, errorResponse, resolveRoute } from '../api/router.js';
import { refusal } from './request-guard.js';

export interface ServerOptions {
  readonly context: SluiceContext;
  /** @default 0 (a free port) */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** Receives one JSON line per request; @default no request log */
  readonly log?: (line: string) => void;
  /** How long close() lets running requests finish before cutting them (long-polls included); @default 5000 */
  readonly drainMs?: number;
}

export interface LocalServer {
  readonly url: string;
  close(): Promise<void>;
}

type Handler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

/** A request body as received: its chunks and their total size. */
interface ReceivedBody {
  readonly chunks: Buffer[];
  readonly size: number;
}

function readBody(req: IncomingMessage): Promise<ReceivedBody | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Keep draining (so the client sees the 413, not a reset) but stop buffering.
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? 'too-large' : { chunks, size }));
    req.on('error', reject);
  });
}

/**
 * The body's bytes in one piece, for the event to copy into its string at once. Several chunks are
 * joined in a scratch buffer the server reuses instead of a new Buffer per request: the event body
 * is a string (text or base64) made synchronously from these bytes, so nothing holds the view past
 * toEvent, and a 1 MiB produce does not allocate 1 MiB more (large Buffers drive V8's GC).
 */
function contiguous(body: ReceivedBody, scratch: { buf: Buffer }): Buffer {
  if (body.chunks.length === 1) return body.chunks[0];
  if (body.chunks.length === 0) return Buffer.alloc(0);
  if (scratch.buf.length < body.size) scratch.buf = Buffer.allocUnsafeSlow(Math.min(MAX_BODY_BYTES, Math.max(body.size, 2 * scratch.buf.length)));
  let position = 0;
  for (const chunk of body.chunks) position += chunk.copy(scratch.buf, position);
  return scratch.buf.subarray(0, body.size);
}

/** Media types whose bodies API Gateway HTTP APIs hand to a Lambda as text; none given counts as text. */
function isTextMediaType(contentType: string | undefined): boolean {
  if (!contentType) return true;
  const type = contentType.split(';')[0].trim().toLowerCase();
  return (
    type.startsWith('text/') ||
    /^application\/([\w.-]+\+)?(json|xml)$/.test(type) ||
    type === 'application/javascript'
  );
}

/** The API Gateway event for a request; reads `body` only while it runs (it may be a reused scratch buffer). */
function toEvent(req: IncomingMessage, body: Buffer, routeKey: string): APIGatewayProxyEventV2 {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  const rawQueryString = q < 0 ? '' : url.slice(q + 1);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(',') : v;
  const queryStringParameters: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(rawQueryString)) queryStringParameters[k] = k in queryStringParameters ? `${queryStringParameters[k]},${v}` : v;
  // API Gateway passes text bodies as is and anything else base64-encoded: a body whose media type
  // is not text (record batches, octet streams) always, and any body that is not valid UTF-8.
  const text = isTextMediaType(headers['content-type']) ? body.toString('utf8') : undefined;
  const isText = text !== undefined && Buffer.byteLength(text, 'utf8') === body.length && !text.includes('\uFFFD');
  const now = Date.now();
  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString,
    headers,
    queryStringParameters: rawQueryString ? queryStringParameters : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method: req.method ?? 'GET',
        path: rawPath,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
    },
    body: body.length === 0 ? undefined : isText ? text : body.toString('base64'),
    isBase64Encoded: body.length > 0 && !isText,
  };
}

function send(res: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const body = result.body === undefined ? '' : result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body;
  res.writeHead(result.statusCode ?? 200, { ...(result.headers as Record<string, string>), 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}

function errorResult(error: SluiceError): APIGatewayProxyStructuredResultV2 {
  const { status, headers, body } = errorResponse(error);
  return { statusCode: status, headers, body };
}

export async function startServer(options: ServerOptions): Promise<LocalServer> {
  const context = () => options.context;
  // One handler per function, as deployed; the route table picks the function like API Gateway does.
  const owners = new Map<Operation, Handler>();
  for (const operations of Object.values(functionOperations)) {
    const handler = createLambdaHandler(operations, { context }) as Handler;
    for (const op of operations) owners.set(op, handler);
  }
  // Unmatched routes still get the contract's 404/405 body, from a handler that knows every route.
  const fallback = createLambdaHandler(allOperations, { context }) as Handler;

  const scratch = { buf: Buffer.alloc(0) };
  /** The port the server listens on (known once listening): the only one a request's Host may name. */
  let port = 0;
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const server = createServer(async (req, res) => {
    inFlight++;
    const started = performance.now();
    let status = 500;
    try {
      const body = await readBody(req);
      let result: APIGatewayProxyStructuredResultV2;
      // Before anything else, the body included: a web page's request must change nothing.
      const refused = refusal(
        {
          method: req.method ?? 'GET',
          headers: req.headers,
          hasBody: Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined,
        },
        port,
      );
      if (refused) {
        result = errorResult(refused);
      } else if (body === 'too-large') {
        result = errorResult(new SluiceError('MESSAGE_TOO_LARGE', `request body is over the limit of ${MAX_BODY_BYTES} bytes (6 MB)`));
      } else {
        const path = (req.url ?? '/').split('?')[0];
        let handler = fallback;
        let routeKey = '$default';
        try {
          const { operation } = resolveRoute(allOperations, req.method ?? 'GET', path);
          handler = owners.get(operation) ?? fallback;
          routeKey = `${operation.method} ${operation.path}`;
        } catch {
          // Not a route: the fallback answers with the right error.
        }
        result = await handler(toEvent(req, contiguous(body, scratch), routeKey));
      }
      status = result.statusCode ?? 200;
      send(res, result);
    } catch (e) {
      // Only a broken connection gets here: the handlers never throw.
      if (!res.headersSent) send(res, errorResult(new SluiceError('UNKNOWN_SERVER_ERROR', 'internal error')));
      options.log?.(JSON.stringify({ level: 'ERROR', message: 'request failed', error: String(e) }));
    }
    options.log?.(
      JSON.stringify({ time: new Date().toISOString(), method: req.method, path: req.url, status, ms: Math.round(performance.now() - started) }),
    );
    if (--inFlight === 0) drained?.();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  port = address.port;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    // Stop accepting, let running requests (an append mid-flight) answer, then cut what is left:
    // a long-poll would otherwise hold close() for up to maxWaitMs.
    async close() {
      const closed = new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
      server.closeIdleConnections();
      if (inFlight > 0) {
        const finished = new Promise<void>((resolve) => (drained = resolve));
        await Promise.race([finished, sleep(options.drainMs ?? 5_000, undefined, { ref: false })]);
      }
      server.closeAllConnections();
      await closed;
    },
  };
}
