// What the local server refuses before routing, because it has no IAM in front of it: a web page
// the developer visits can reach 127.0.0.1. Three checks, each closing one way in:
// - Host must name the loopback interface with the server's port. A DNS-rebinding page
//   (evil.example re-pointed at 127.0.0.1) is same-origin to the browser and may read answers,
//   but its requests still carry `Host: evil.example`.
// - Origin, when a browser sends one, must be a loopback origin: a cross-site page's fetch or
//   form post carries its own origin.
// - A request body must be JSON or record batches by its Content-Type. HTML forms and "simple"
//   cross-origin fetches can only send text/plain, form-urlencoded or multipart bodies without a
//   CORS preflight, so refusing those is what makes a CSRF POST fail even without an Origin.
// API Gateway needs none of this: every route there is SigV4-authorized.
import { SluiceError } from '../errors.js';
import { RECORD_BATCHES_MEDIA_TYPE } from '../records/batch-frames.js';

export interface GuardedRequest {
  readonly method: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Whether the request has a body (a Content-Length above 0, or chunked transfer). */
  readonly hasBody: boolean;
}

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);
const BODY_MEDIA_TYPES = new Set(['application/json', RECORD_BATCHES_MEDIA_TYPE]);
const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/** `host` or `host:port` (host may be a bracketed IPv6 literal) split, lower-cased. */
function splitHost(authority: string): { hostname: string; port: string | undefined } {
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(authority.trim().toLowerCase());
  return match ? { hostname: match[1], port: match[2] } : { hostname: '', port: undefined };
}

function isLoopbackAuthority(authority: string, port: number): boolean {
  const { hostname, port: given } = splitHost(authority);
  // No port in Host means 80 for http; it names this server only if it listens there.
  return LOOPBACK_HOSTNAMES.has(hostname) && Number(given ?? 80) === port;
}

function isLoopbackOrigin(origin: string, port: number): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // 'null' (sandboxed frames, file://) and garbage are not loopback
  }
  return url.protocol === 'http:' && isLoopbackAuthority(url.host, port);
}

/** The media type of a Content-Type value, without parameters, lower-cased. */
function mediaType(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

/** Why the local server must refuse this request, or undefined when it may serve it. */
export function refusal(request: GuardedRequest, port: number): SluiceError | undefined {
  const host = single(request.headers.host);
  if (host === undefined || !isLoopbackAuthority(host, port)) {
    return new SluiceError(
      'CLUSTER_AUTHORIZATION_FAILED',
      `the local server answers only requests for localhost, 127.0.0.1 or [::1] on port ${port}; Host was ${JSON.stringify(host ?? null)}`,
    );
  }
  const origin = single(request.headers.origin);
  if (origin !== undefined && !isLoopbackOrigin(origin, port)) {
    return new SluiceError('CLUSTER_AUTHORIZATION_FAILED', `cross-site requests are refused; Origin was ${JSON.stringify(origin)}`);
  }
  const contentType = single(request.headers['content-type']);
  if (METHODS_WITH_BODY.has(request.method.toUpperCase()) && (request.hasBody || contentType !== undefined)) {
    if (contentType === undefined || !BODY_MEDIA_TYPES.has(mediaType(contentType))) {
      return new SluiceError(
        'UNSUPPORTED_MEDIA_TYPE',
        `a request body must be sent as application/json or ${RECORD_BATCHES_MEDIA_TYPE}; Content-Type was ${JSON.stringify(contentType ?? null)}`,
      );
    }
  }
  return undefined;
}
