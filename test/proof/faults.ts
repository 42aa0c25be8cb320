// The fault catalogue for call-by-call injection, on top of the SDK observer of test/log/sdk-faults.ts.
// Each kind is what AWS can do to one call:
//   throttle        refused before reaching the service (DynamoDB ProvisionedThroughputExceeded, S3 SlowDown)
//   5xx             refused by the service without applying it (InternalServerError)
//   timeout-after   the request DID reach the service and was applied; the reply was lost (TimeoutError)
//   5xx-after       applied, but the caller sees a 503 (a proxy or the SDK gave up on the reply)
//   condition       a conditional write refused (ConditionalCheckFailedException), without applying it
//   crash-before    the process dies before sending this call: it and every later call fail
//   crash-after     the process dies right after this call was applied
// A scenario records a clean run's calls, then runs once per (call index k, fault kind).
import { crashError, observeSdk, throttlingError, timeoutError, type SdkCall, type SdkObserver } from '../log/sdk-faults.js';
import type { SluiceContext } from '../../lib/context.js';

export const FAULT_KINDS = ['throttle', '5xx', 'timeout-after', '5xx-after', 'condition', 'crash-before', 'crash-after'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

function serverError(status: number, name: string): Error {
  return Object.assign(new Error(`${name} (injected)`), { name, $fault: 'server', $metadata: { httpStatusCode: status } });
}

function conditionFailed(): Error {
  return Object.assign(new Error('The conditional request failed (injected)'), {
    name: 'ConditionalCheckFailedException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  });
}

/** Only conditional DynamoDB writes can fail their condition. */
export function faultApplies(kind: FaultKind, call: SdkCall): boolean {
  if (kind !== 'condition') return true;
  return call.client === 'ddb' && ['PutItem', 'UpdateItem', 'DeleteItem'].includes(call.command) && Boolean(call.input.ConditionExpression);
}

export interface Injection {
  readonly sdk: SdkObserver;
  /** The call the fault hit, once it has. */
  hit?: SdkCall;
  readonly crashes: boolean;
}

/** Observes `ctx` and fails its k-th call (1-based) with `kind`. */
export function injectAt(ctx: SluiceContext, k: number, kind: FaultKind): Injection {
  const sdk = observeSdk(ctx);
  const injection: Injection = { sdk, crashes: kind.startsWith('crash') };
  sdk.fault = (call, index) => {
    if (index !== k || !faultApplies(kind, call)) return undefined;
    injection.hit = call;
    const s3 = call.client === 's3';
    switch (kind) {
      case 'throttle':
        return { when: 'before', error: s3 ? Object.assign(serverError(503, 'SlowDown')) : throttlingError() };
      case '5xx':
        return { when: 'before', error: serverError(500, s3 ? 'InternalError' : 'InternalServerError') };
      case 'timeout-after':
        return { when: 'after', error: timeoutError() };
      case '5xx-after':
        return { when: 'after', error: serverError(503, 'ServiceUnavailable') };
      case 'condition':
        return { when: 'before', error: conditionFailed() };
      case 'crash-before':
        sdk.crashed = true;
        return { when: 'before', error: crashError() };
      case 'crash-after':
        sdk.crashed = true;
        return { when: 'after', error: crashError() };
    }
  };
  return injection;
}

/** Counts the calls a clean run makes. */
export function recordCalls(ctx: SluiceContext): SdkObserver {
  return observeSdk(ctx);
}
