// Direct Lambda-invoke transport: for callers inside AWS that hold lambda:InvokeFunction rather
// than an API Gateway route. The event is `{op, ...pathParams, ...query, ...body}` (README.md), the
// same merged input an HTTP request produces; path parameters and query values are sent as the
// strings HTTP would carry so the server validates both routes identically. Record batches go as
// base64: `batches` in a produce event, `format: "batches"` asking a fetch for them.
import { InvokeCommand, LambdaClient, type LambdaClientConfig } from '@aws-sdk/client-lambda';
import { SluiceClientError, errorFromReply } from './errors.js';
import { type BatchesReply, queryStrings, type SluiceRequest, type Transport } from './transport.js';

export interface LambdaTransportOptions {
  /** One function for every op, or a mapping from op name to function name/ARN. */
  readonly functionName: string | ((op: string) => string);
  /** An existing client (shares its credentials, region and connection pool). */
  readonly client?: LambdaClient;
  /** Used when `client` is not given. */
  readonly clientConfig?: LambdaClientConfig;
}

const ENVELOPE_KEYS = new Set(['status', 'statusCode', 'body', 'headers', 'isBase64Encoded']);

/** Handlers may answer with the body itself, `{status, body}` or API-Gateway-style `{statusCode, body}`. */
function unwrap(payload: unknown): { status: number; body: unknown } {
  if (payload && typeof payload === 'object') {
    const p = payload as Record<string, unknown>;
    const status = typeof p.statusCode === 'number' ? p.statusCode : typeof p.status === 'number' ? p.status : undefined;
    const envelope = Object.keys(p).every((k) => ENVELOPE_KEYS.has(k));
    if (status !== undefined && envelope) {
      let body = p.body;
      if (typeof body === 'string' && body.length > 0) {
        try {
          body = JSON.parse(body);
        } catch {
          // a non-JSON body stays text
        }
      }
      return { status, body: body === '' ? undefined : body };
    }
    if ('error' in p && p.error && typeof p.error === 'object') return { status: 500, body: p };
  }
  return { status: 200, body: payload };
}

function abortSignal(request: SluiceRequest): AbortSignal | undefined {
  const signals = [request.signal, request.timeoutMs ? AbortSignal.timeout(request.timeoutMs) : undefined].filter((s): s is AbortSignal => s !== undefined);
  return signals.length > 1 ? AbortSignal.any(signals) : signals[0];
}

export class LambdaTransport implements Transport {
  private readonly client: LambdaClient;
  private readonly functionName: (op: string) => string;

  constructor(options: LambdaTransportOptions) {
    this.client = options.client ?? new LambdaClient(options.clientConfig ?? {});
    const fn = options.functionName;
    this.functionName = typeof fn === 'string' ? () => fn : fn;
  }

  async request<T>(request: SluiceRequest): Promise<T> {
    const params = Object.fromEntries(Object.entries(request.params ?? {}).map(([k, v]) => [k, String(v)]));
    const event = {
      ...(request.body as Record<string, unknown> | undefined),
      ...(request.batches && { batches: request.batches.toString('base64') }),
      ...queryStrings(request.query),
      ...(request.acceptBatches && { format: 'batches' }),
      ...params,
      op: request.op,
    };
    let result;
    try {
      result = await this.client.send(
        new InvokeCommand({ FunctionName: this.functionName(request.op), Payload: new TextEncoder().encode(JSON.stringify(event)) }),
        { abortSignal: abortSignal(request) },
      );
    } catch (e) {
      const name = (e as { name?: string }).name ?? 'Error';
      const retriable = name === 'TooManyRequestsException' || name === 'ServiceException' || (e as { $retryable?: unknown }).$retryable !== undefined;
      throw new SluiceClientError(name === 'TooManyRequestsException' ? 'THROTTLING' : 'NETWORK_ERROR', `invoke ${request.op}: ${(e as Error).message}`, {
        retriable: retriable || name === 'TimeoutError' || name === 'AbortError',
        cause: e,
      });
    }
    const text = result.Payload ? new TextDecoder().decode(result.Payload) : '';
    const payload: unknown = text ? JSON.parse(text) : undefined;
    if (result.FunctionError) {
      const message = (payload as { errorMessage?: string } | undefined)?.errorMessage ?? result.FunctionError;
      throw new SluiceClientError('UNKNOWN_SERVER_ERROR', `invoke ${request.op}: ${message}`, { retriable: true });
    }
    const { status, body } = unwrap(payload);
    if (status >= 400) throw errorFromReply(status, body);
    if (request.acceptBatches) {
      const reply = body as Omit<BatchesReply, 'batches'> & { batches: string };
      return { ...reply, batches: Buffer.from(reply.batches, 'base64') } as T;
    }
    return body as T;
  }
}
