// One HTTP exchange over node:http / node:https with a keep-alive agent per transport, the body
// read whole as bytes. Not fetch(): undici's fetch copies a Buffer body (twice, through a web
// stream) and costs the client ~1.2 ms of CPU per MiB sent over loopback, 4x node:http (bench/);
// the AWS SDK, and so the raw-S3 side of bench (c), use node:http too.
import { Agent as HttpAgent, type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface HttpExchange {
  readonly method: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  /** Aborts the exchange; the promise rejects with an Error named 'AbortError'. */
  readonly signal?: AbortSignal;
  /** No answer (headers and body) within this many ms rejects with an Error named 'TimeoutError'. */
  readonly timeoutMs: number;
  /**
   * An answer larger than this rejects with an Error named 'ResponseTooLargeError' as soon as its
   * Content-Length or the bytes received pass it, and the connection is dropped: a broken or
   * hostile endpoint cannot make the client buffer without bound. @default no limit
   */
  readonly maxResponseBytes?: number;
}

export interface HttpAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** Keep-alive agents, one pair per transport, so sockets are reused across requests. */
export interface HttpAgents {
  readonly http: HttpAgent;
  readonly https: HttpsAgent;
}

export function createAgents(): HttpAgents {
  return { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
}

function named(name: string, message: string, cause?: unknown): Error {
  const error = new Error(message, cause === undefined ? undefined : { cause });
  error.name = name;
  return error;
}

/**
 * Sends one request and reads the whole answer. Rejects with the socket's error (with its `code`,
 * e.g. ECONNREFUSED), or an Error named 'TimeoutError' / 'AbortError'.
 */
export function exchange(agents: HttpAgents, request: HttpExchange): Promise<HttpAnswer> {
  const { url, signal } = request;
  if (signal?.aborted) return Promise.reject(named('AbortError', 'the request was aborted', signal.reason));
  const https = url.protocol === 'https:';
  const body = request.body === undefined ? undefined : typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : request.body;
  const headers: Record<string, string> = { ...request.headers };
  if (body !== undefined) headers['content-length'] = String(body.length);
  return new Promise<HttpAnswer>((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | undefined, answer?: HttpAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (error) {
        req.destroy();
        reject(error);
      } else {
        resolve(answer!);
      }
    };
    const onAbort = () => finish(named('AbortError', 'the request was aborted', signal?.reason));
    const timer = setTimeout(() => finish(named('TimeoutError', `no answer within ${request.timeoutMs} ms`)), request.timeoutMs);
    const req = (https ? httpsRequest : httpRequest)(
      url,
      { method: request.method, headers, agent: https ? agents.https : agents.http },
      (res) => {
        const limit = request.maxResponseBytes ?? Infinity;
        const tooLarge = (size: string) =>
          finish(named('ResponseTooLargeError', `the answer to ${request.method} ${url.pathname} is ${size} bytes, over the limit of ${limit}`));
        const declared = Number(res.headers['content-length']);
        if (declared > limit) return tooLarge(String(declared));
        const chunks: Buffer[] = [];
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > limit) tooLarge(`more than ${limit}`);
          else chunks.push(chunk);
        });
        res.on('end', () =>
          finish(undefined, { status: res.statusCode ?? 0, headers: res.headers, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) }),
        );
        res.on('error', (e) => finish(e));
        res.on('aborted', () => finish(Object.assign(named('Error', 'the connection closed before the answer was complete'), { code: 'ECONNRESET' })));
      },
    );
    req.on('error', (e) => finish(e));
    signal?.addEventListener('abort', onAbort, { once: true });
    req.end(body);
  });
}
