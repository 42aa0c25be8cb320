// The one Lambda handler shape every Sluice function uses: an API Gateway HTTP API (payload v2)
// event is served through handleHttp; any event with an `op` is a direct invoke served through
// handleInvoke and answered with `{status, body}`. The SluiceContext (SDK clients, settings and
// the lease owner id) is built lazily once per process, so a cold start is a new lease owner.
// Every invocation is wrapped by observeInvocation: one structured log line per operation, the
// cold-start and server-error metrics, the EMF flush.
import { httpStatusOf } from './errors.js';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { createClients, createContext, type SluiceContext } from '../context.js';
import { SluiceError } from '../errors.js';
import type { Operation } from './operation.js';
import { observeInvocation } from '../observability/invocation.js';
import { logger } from '../observability/logger.js';
import { type RequestScope, runInRequestScope } from '../observability/request-scope.js';
import { handleHttp, handleInvoke, resolveRoute, type InvokeResponse } from './router.js';

export interface LambdaHandlerOptions {
  /** Supplies the context (the local server injects its own); @default built from the environment */
  readonly context?: () => SluiceContext;
}

export type DirectInvokeEvent = { readonly op: string } & Readonly<Record<string, unknown>>;

export type SluiceLambdaHandler = {
  (event: APIGatewayProxyEventV2, context?: Context): Promise<APIGatewayProxyStructuredResultV2>;
  (event: DirectInvokeEvent, context?: Context): Promise<InvokeResponse>;
  (event: unknown, context?: Context): Promise<APIGatewayProxyResultV2 | InvokeResponse>;
};

function isHttpEvent(event: unknown): event is APIGatewayProxyEventV2 {
  const e = event as Partial<APIGatewayProxyEventV2> | null;
  return typeof e === 'object' && e !== null && typeof e.rawPath === 'string' && typeof e.requestContext?.http?.method === 'string';
}

function isInvokeEvent(event: unknown): event is DirectInvokeEvent {
  return typeof event === 'object' && event !== null && typeof (event as { op?: unknown }).op === 'string';
}

// The process's context, made on first use (the one piece of module state here: this is where
// contexts are created; options.context injects another).
let processContext: SluiceContext | undefined;

/** The environment-configured context, created on first use and kept for the life of the process. */
function contextFromEnvironment(): SluiceContext {
  return (processContext ??= createContext(createClients()));
}

export function createLambdaHandler(operations: readonly Operation[], options: LambdaHandlerOptions = {}): SluiceLambdaHandler {
  const getContext = options.context ?? contextFromEnvironment;
  const serve = async (ctx: SluiceContext, event: unknown): Promise<APIGatewayProxyStructuredResultV2 | InvokeResponse> => {
    if (isHttpEvent(event)) {
      const query: Record<string, string> = {};
      // First value wins for a repeated parameter; raw string, so values are decoded exactly once.
      for (const [k, v] of new URLSearchParams(event.rawQueryString ?? '')) if (!Object.hasOwn(query, k)) query[k] = v;
      // Bytes, not text, for a base64 body: the router reads them as record batches or as UTF-8 JSON.
      const body = event.body == null ? undefined : event.isBase64Encoded ? Buffer.from(event.body, 'base64') : event.body;
      const response = await handleHttp(
        ctx,
        { method: event.requestContext.http.method, path: event.rawPath, query, headers: event.headers, body },
        operations,
      );
      return { statusCode: response.status, headers: response.headers, body: response.body, isBase64Encoded: response.isBase64Encoded ?? false };
    }
    if (isInvokeEvent(event)) return handleInvoke(ctx, event, operations);
    const error = new SluiceError(
      'INVALID_REQUEST',
      'unrecognised event: expected an API Gateway HTTP API (v2) event or a direct-invoke event {"op": ...}',
    );
    return { status: httpStatusOf(error), body: error.toBody() };
  };
  const operationName = (event: unknown): string => {
    if (isInvokeEvent(event)) return event.op;
    if (isHttpEvent(event)) {
      try {
        return resolveRoute(operations, event.requestContext.http.method, event.rawPath).operation.name;
      } catch {
        return 'unrouted';
      }
    }
    return 'unrecognised';
  };
  /** Request id, operation and topic for every log line of the invocation (error causes above all). */
  const scopeOf = (event: unknown, operation: string, lambdaContext: Context | undefined): RequestScope => {
    if (isHttpEvent(event)) {
      let topic: string | undefined;
      try {
        topic = resolveRoute(operations, event.requestContext.http.method, event.rawPath).params.topic;
      } catch {
        // Unrouted: no topic to name.
      }
      return { requestId: event.requestContext.requestId, operation, topic };
    }
    const topic = isInvokeEvent(event) && typeof event.topic === 'string' ? event.topic : undefined;
    return { requestId: lambdaContext?.awsRequestId, operation, topic };
  };
  const handler = (event: unknown, lambdaContext?: Context) => {
    const operation = operationName(event);
    const ctx = getContext();
    // The context's metrics are the ones lib/ recorded into, so they are the ones flushed.
    return runInRequestScope(scopeOf(event, operation, lambdaContext), () =>
      observeInvocation(operation, lambdaContext, () => serve(ctx, event), { logger, metrics: ctx.metrics }),
    );
  };
  return handler as SluiceLambdaHandler;
}
