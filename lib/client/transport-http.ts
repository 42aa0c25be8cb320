// HTTP transport for the JSON API (README.md), over node:http / node:https (http-request.ts). Requests to an AWS API Gateway endpoint
// (`*.execute-api.<region>.amazonaws.com`, IAM authorization) or a Lambda function URL
// (`*.lambda-url.<region>.on.aws`) are SigV4-signed with the AWS SDK's own signer and credential
// chain; local endpoints (`npm start`, tests) are sent unsigned unless `signRequests` says otherwise.
import { Sha256 } from '@aws-crypto/sha256-js';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { SluiceClientError, errorFromReply } from './errors.js';
import {
  HIGH_WATERMARK_HEADER,
  LOG_START_OFFSET_HEADER,
  NEXT_OFFSET_HEADER,
  RECORD_BATCHES_MEDIA_TYPE,
  namesRecordBatches,
} from '../records/batch-frames.js';
import { type HttpAgents, createAgents, exchange } from './http-request.js';
import { type BatchesReply, expandPath, queryStrings, type SluiceRequest, type Transport } from './transport.js';

export interface HttpTransportOptions {
  /** Base URL, e.g. 'http://127.0.0.1:8080' or 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod'. */
  readonly endpoint: string;
  /** Force signing on (any host) or off. @default true for API Gateway / Lambda URL hosts, else false */
  readonly signRequests?: boolean;
  /** Signing region. @default parsed from the host, else AWS_REGION, else 'us-east-1' */
  readonly region?: string;
  /** Signing service. @default 'execute-api' ('lambda' for function URLs) */
  readonly service?: string;
  /** @default the SDK's Node provider chain (env, SSO, ini, ECS/EC2 metadata, ...) */
  readonly credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** Per-request timeout. @default 30000 */
  readonly requestTimeoutMs?: number;
  /**
   * Largest answer the client reads; a larger one fails with RESPONSE_TOO_LARGE instead of being
   * buffered. Sluice's own answers are at most 6 MB (Lambda's response limit).
   * @default 8388608 (8 MiB)
   */
  readonly maxResponseBytes?: number;
  /**
   * Send over plain http:// to a host that is not loopback. Off, because the requests (and their
   * SigV4 signatures, whose credentials scope lasts minutes) would cross the network in the clear.
   * @default false
   */
  readonly allowInsecureHttp?: boolean;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

const API_GATEWAY_HOST = /^[a-z0-9]+\.execute-api\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/i;
const LAMBDA_URL_HOST = /^[a-z0-9]+\.lambda-url\.([a-z0-9-]+)\.on\.aws$/i;

/** Whether an endpoint is one that AWS IAM authorizes, and for which region and service. */
export function awsSigningTarget(endpoint: string): { region: string; service: string } | undefined {
  const host = new URL(endpoint).hostname;
  const gateway = API_GATEWAY_HOST.exec(host);
  if (gateway) return { region: gateway[1], service: 'execute-api' };
  const functionUrl = LAMBDA_URL_HOST.exec(host);
  if (functionUrl) return { region: functionUrl[1], service: 'lambda' };
  return undefined;
}

/** Whether a URL hostname is this machine's loopback interface: the only place plain HTTP stays local. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export class HttpTransport implements Transport {
  readonly endpoint: URL;
  private readonly signer?: SignatureV4;
  private readonly requestTimeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly agents: HttpAgents = createAgents();

  constructor(options: HttpTransportOptions) {
    this.endpoint = new URL(options.endpoint.replace(/\/+$/, ''));
    if (this.endpoint.protocol !== 'https:' && this.endpoint.protocol !== 'http:') {
      throw new SluiceClientError('INVALID_CONFIG', `endpoint ${options.endpoint}: only http:// and https:// are supported`);
    }
    if (this.endpoint.protocol === 'http:' && !isLoopbackHost(this.endpoint.hostname) && !options.allowInsecureHttp) {
      throw new SluiceClientError(
        'INVALID_CONFIG',
        `endpoint ${options.endpoint}: plain http:// is allowed only to a loopback host (localhost, 127.0.0.1, [::1]); use https://, or set allowInsecureHttp if this network is trusted`,
      );
    }
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const target = awsSigningTarget(options.endpoint);
    if (options.signRequests ?? target !== undefined) {
      this.signer = new SignatureV4({
        service: options.service ?? target?.service ?? 'execute-api',
        region: options.region ?? target?.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
        credentials: options.credentials ?? fromNodeProviderChain(),
        sha256: Sha256,
      });
    }
  }

  get signed(): boolean {
    return this.signer !== undefined;
  }

  async request<T>(request: SluiceRequest): Promise<T> {
    const path = this.endpoint.pathname.replace(/\/$/, '') + expandPath(request.path, request.params);
    const query = queryStrings(request.query);
    const body = request.batches ?? (request.body === undefined ? undefined : JSON.stringify(request.body));
    let headers: Record<string, string> = { accept: request.acceptBatches ? RECORD_BATCHES_MEDIA_TYPE : 'application/json', host: this.endpoint.host };
    if (body !== undefined) headers['content-type'] = request.batches ? RECORD_BATCHES_MEDIA_TYPE : 'application/json';
    if (this.signer) {
      const signed = await this.signer.sign({
        method: request.method,
        protocol: this.endpoint.protocol,
        hostname: this.endpoint.hostname,
        port: this.endpoint.port ? Number(this.endpoint.port) : undefined,
        path,
        query,
        headers,
        body,
      });
      headers = signed.headers as Record<string, string>;
    }
    delete headers.host; // node:http sets Host from the URL
    const url = new URL(this.endpoint.origin + path);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);

    const timeoutMs = request.timeoutMs ?? this.requestTimeoutMs;
    let response: Awaited<ReturnType<typeof exchange>>;
    try {
      response = await exchange(this.agents, { method: request.method, url, headers, body, signal: request.signal, timeoutMs, maxResponseBytes: this.maxResponseBytes });
    } catch (e) {
      if (request.signal?.aborted) throw new SluiceClientError('ABORTED', `${request.method} ${path} was cancelled`, { cause: e });
      // Not retriable: the same request would get the same answer.
      if (e instanceof Error && e.name === 'ResponseTooLargeError') throw new SluiceClientError('RESPONSE_TOO_LARGE', `${e.message} (maxResponseBytes)`, { cause: e });
      const timedOut = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
      throw new SluiceClientError(
        timedOut ? 'REQUEST_TIMED_OUT' : 'NETWORK_ERROR',
        timedOut ? `${request.method} ${path} timed out after ${timeoutMs} ms` : `${request.method} ${url.origin}${path}: ${describeCause(e)}`,
        { retriable: true, cause: e },
      );
    }
    const ok = response.status >= 200 && response.status < 300;
    const header = (name: string) => {
      const value = response.headers[name];
      return Array.isArray(value) ? value.join(',') : (value ?? null);
    };
    if (ok && namesRecordBatches(header('content-type') ?? undefined)) return batchesReply(response.body, header) as T;
    const text = response.body.toString('utf8');
    let parsed: unknown = undefined;
    if (text.length > 0) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (!ok) throw errorFromReply(response.status, parsed, retryAfterMs(header('retry-after')));
    return parsed as T;
  }
}

function batchesReply(batches: Buffer, header: (name: string) => string | null): BatchesReply {
  const number = (name: string) => {
    const value = Number(header(name));
    if (header(name) === null || !Number.isSafeInteger(value)) throw new SluiceClientError('UNKNOWN_SERVER_ERROR', `record-batches reply without a valid ${name} header`);
    return value;
  };
  return { batches, nextOffset: number(NEXT_OFFSET_HEADER), highWatermark: number(HIGH_WATERMARK_HEADER), logStartOffset: number(LOG_START_OFFSET_HEADER) };
}

function describeCause(e: unknown): string {
  const error = e as { code?: string; message?: string; cause?: { code?: string; message?: string } } | undefined;
  if (error?.code) return `${error.code}${error.message ? ` (${error.message})` : ''}`;
  const cause = error?.cause;
  if (cause?.code) return `${cause.code}${cause.message ? ` (${cause.message})` : ''}`;
  return e instanceof Error ? e.message : String(e);
}
