// An Operation is one entry of the HTTP contract (README.md): a method and path for the
// HTTP API, and an `op` name for direct Lambda invoke. Both routes feed `run` one input object:
// over HTTP it is the JSON body merged with the query string and the path parameters (path wins);
// over direct invoke it is the event itself minus `op`. Validation happens inside `run`.
import type * as z from 'zod';
import type { SluiceContext } from '../context.js';

export type HttpMethod = 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';

export interface OperationResult {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface Operation {
  /** Direct-invoke name, e.g. 'produce', 'fetch', 'createTopic', 'joinGroup'. */
  readonly name: string;
  readonly method: HttpMethod;
  /** Path template with `{param}` segments, e.g. '/v1/topics/{topic}/records'. */
  readonly path: string;
  /**
   * Takes a record-batches body (lib/records/batch-frames.ts): over HTTP a request with that
   * Content-Type reaches `run` as `{batches: <the body's bytes>, ...query, ...path}`. @default false
   */
  readonly acceptsBatchBody?: boolean;
  /**
   * Can answer with record batches: over HTTP a request whose Accept names the media type reaches
   * `run` with `format: 'batches'`, and a RecordBatchesReply body goes out as binary. @default false
   */
  readonly answersBatches?: boolean;
  /** One line for the OpenAPI document (openapi.ts). */
  readonly summary: string;
  /**
   * The input `run` parses (JSON body, query string and path parameters merged), as docs/openapi.json
   * shows it: the fields the path names are path parameters, the others the JSON body of a POST and
   * the query string otherwise. A record-batches body is not part of it (acceptsBatchBody).
   */
  readonly input: z.ZodType;
  /** The success status and, unless it answers no body (204), the JSON body's schema. */
  readonly response: { readonly status: number; readonly body?: z.ZodType };
  run(ctx: SluiceContext, input: Record<string, unknown>): Promise<OperationResult>;
}
