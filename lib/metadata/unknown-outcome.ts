// Keeps the SDK from re-sending a write whose outcome it does not know. The SDK retries a request
// after a timeout, a dropped connection or a 5xx, and any of those may follow a write that
// DynamoDB applied: re-sending an append would then append twice. This middleware sits inside the
// retry loop (finalizeRequest, after the retry middleware) and lets only failures that cannot have
// been applied reach it as they are: a 4xx (a failed condition, throttling, validation), or a
// connection that was never made. Anything else becomes an UnknownOutcomeError, which no retry
// strategy retries. The caller resolves it (append.ts).
import type { UpdateCommand, UpdateCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { SluiceContext } from '../context.js';

export class UnknownOutcomeError extends Error {
  // Not `cause`: the SDK's retry strategy classifies an error by its `cause` chain too
  // (isTransientError), so a TimeoutError or 5xx kept as `cause` would get the update re-sent.
  constructor(readonly failure: unknown) {
    super(`outcome unknown: ${failure instanceof Error ? failure.message : String(failure)}`);
    this.name = 'UnknownOutcomeError';
  }
}

/** Connection failures before a byte of the request was sent. */
const NOT_CONNECTED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The request was refused (a 4xx) or never reached DynamoDB: it changed nothing. */
export function cannotHaveLanded(e: unknown): boolean {
  const err = (e ?? {}) as { $metadata?: { httpStatusCode?: number }; code?: string; message?: string };
  const status = err.$metadata?.httpStatusCode;
  if (status !== undefined && status >= 400 && status < 500) return true;
  if (err.code !== undefined && NOT_CONNECTED_CODES.has(err.code)) return true;
  // The SDK's node handler says so when its connectionTimeout fires.
  return typeof err.message === 'string' && err.message.includes('without establishing a connection');
}

/** Sends the update with at most one attempt that may have been applied; see the top of the file. */
export async function sendOnce(ctx: SluiceContext, command: UpdateCommand): Promise<UpdateCommandOutput> {
  command.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (e) {
        if (cannotHaveLanded(e)) throw e;
        throw new UnknownOutcomeError(e);
      }
    },
    { step: 'finalizeRequest', priority: 'low', name: 'sluiceNoBlindRetry', override: true },
  );
  return ctx.ddb.send(command);
}
