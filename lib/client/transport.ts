// The seam between the client and the wire: one request of the HTTP contract (README.md), described
// so that either transport can carry it. HTTP uses method + path + query + JSON body; direct
// Lambda invoke sends `{op, ...pathParams, ...query, ...body}` — the same merged input the
// server's Operation.run receives over HTTP (lib/api/operation.ts), so both routes behave alike.
// Record batches (lib/records/batch-frames.ts) travel as binary bodies over HTTP and base64 by invoke.

export type HttpMethod = 'GET' | 'POST' | 'DELETE' | 'PATCH';

export interface SluiceRequest {
  /** Direct-invoke operation name, e.g. 'produce', 'fetch', 'joinGroup'. */
  readonly op: string;
  readonly method: HttpMethod;
  /** Path template, e.g. '/v1/topics/{topic}/records'. */
  readonly path: string;
  /** Values for the `{param}` segments of `path`. */
  readonly params?: Readonly<Record<string, string | number>>;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  readonly body?: unknown;
  /** A record-batches body (lib/records/batch-frames.ts) instead of a JSON `body`. */
  readonly batches?: Buffer;
  /** Ask for the answer as record batches: the transport resolves with a BatchesReply. */
  readonly acceptBatches?: boolean;
  /** Overrides the transport's request timeout (long-poll fetches need more than maxWaitMs). */
  readonly timeoutMs?: number;
  /** Cancels the request (a consumer stopping a long poll when its partition is revoked). */
  readonly signal?: AbortSignal;
}

/** A fetch answered with record batches: the stored batches, concatenated, and the fetch's numbers. */
export interface BatchesReply {
  readonly batches: Buffer;
  readonly nextOffset: number;
  readonly highWatermark: number;
  readonly logStartOffset: number;
}

export interface Transport {
  /** Resolves with the reply body (undefined for 204); rejects with a SluiceClientError. */
  request<T>(request: SluiceRequest): Promise<T>;
}

/** `/v1/topics/{topic}` + `{topic: 'a b'}` → `/v1/topics/a%20b`. */
export function expandPath(path: string, params: Readonly<Record<string, string | number>> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter '${name}' for ${path}`);
    return encodeURIComponent(String(value));
  });
}

/** Query values as strings, dropping undefined ones: the form both transports send. */
export function queryStrings(query: SluiceRequest['query'] = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) if (v !== undefined) out[k] = String(v);
  return out;
}
