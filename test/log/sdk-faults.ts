// SDK middleware for protocol tests: observe every AWS call a context makes (S3 and DynamoDB) and
// inject failures at an exact call, either before the request is sent or after its reply arrived
// (the server applied it, the caller never hears). A "crashed" context fails every later call,
// like a process that died mid-append; requests already on the wire still land.
import type { SluiceContext } from '../../lib/context.js';

export interface SdkCall {
  readonly client: 's3' | 'ddb';
  readonly command: string;
  readonly input: Record<string, unknown>;
}

export type FaultDecision = { readonly when: 'before' | 'after'; readonly error: Error } | undefined;

export interface SdkObserver {
  /** Every call in the order it entered the SDK, with its completion events. */
  readonly events: string[];
  readonly calls: SdkCall[];
  /** Decides, per call (1-based index), whether to fail it. */
  fault: (call: SdkCall, index: number) => FaultDecision;
  /** Runs before a call is sent (after fault decisions); may wait. */
  gate: (call: SdkCall) => Promise<void> | void;
  crashed: boolean;
}

export function observeSdk(ctx: SluiceContext): SdkObserver {
  const observer: SdkObserver = { events: [], calls: [], fault: () => undefined, gate: () => undefined, crashed: false };
  const install = (client: 's3' | 'ddb', stack: { add: (...args: never[]) => void }) => {
    const middleware =
      (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) =>
      async (args: { input: Record<string, unknown> }) => {
        const call: SdkCall = { client, command: (context.commandName ?? 'unknown').replace(/Command$/, ''), input: args.input };
        if (observer.crashed) throw crashError('process is dead');
        observer.calls.push(call);
        const index = observer.calls.length;
        const decision = observer.fault(call, index);
        if (decision?.when === 'before') throw decision.error;
        await observer.gate(call);
        observer.events.push(`start ${call.command}`);
        const result = await next(args);
        observer.events.push(`end ${call.command}`);
        if (decision?.when === 'after') throw decision.error;
        return result;
      };
    (stack.add as (m: unknown, o: unknown) => void)(middleware, { step: 'initialize', name: 'sluiceTestObserver' });
  };
  install('s3', ctx.s3.middlewareStack as never);
  install('ddb', ctx.ddb.middlewareStack as never);
  return observer;
}

export function crashError(message = 'crash'): Error {
  return Object.assign(new Error(message), { name: 'SimulatedCrash' });
}

export function timeoutError(): Error {
  return Object.assign(new Error('socket timed out waiting for the reply'), { name: 'TimeoutError' });
}

export function throttlingError(name = 'ProvisionedThroughputExceededException'): Error {
  return Object.assign(new Error(`${name} (injected)`), { name, $fault: 'client', $metadata: { httpStatusCode: 400 } });
}

/** The commit of the append protocol: the STATE update conditioned on the base offset. */
export const isCommit = (call: SdkCall) =>
  call.command === 'UpdateItem' && String(call.input.ConditionExpression ?? '').includes(':base');
/** Lease acquisition: the STATE update that takes a new epoch. */
export const isLeaseAcquire = (call: SdkCall) =>
  call.command === 'UpdateItem' && String(call.input.UpdateExpression ?? '').includes('if_not_exists(#epoch');
