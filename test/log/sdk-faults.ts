// SDK middleware for protocol tests: observe every AWS request a context sends (S3 and DynamoDB),
// inject failures at an exact request, hold a request (a stalled process, a packet stuck in the
// network) and release it later.
//
// WHERE IT SITS: step 'deserialize', priority 'high', i.e. INSIDE the SDK's retry loop (the retry
// middleware is 'finalizeRequest'/'high') and inside lib/metadata/unknown-outcome.ts's
// 'finalizeRequest'/'low' guard, just outside the deserializer (it sees parsed outputs and parsed
// service errors). So:
//   - every HTTP attempt is one observed call: an SDK retry shows up as a second call with the
//     same input, which is how a test proves a request was NOT re-sent;
//   - an injected error travels through exactly the code a real one would: the unknown-outcome
//     guard, then the SDK's retry strategy (a throttled attempt is retried by the SDK, a timeout
//     of an ordinary request too, an append's commit never);
//   - 'after' faults run the request against the emulator and then throw: the server applied it,
//     the caller never hears (a lost reply).
// `call.input` is what goes on the wire: DynamoDB inputs are marshalled ({ S: ... }); use keyOf().
// A "crashed" context fails every later request, like a process that died; requests already on
// the wire (or held) still land.
import type { SluiceContext } from '../../lib/context.js';
import type { ManifestEntry } from '../../lib/metadata/types.js';

export interface SdkCall {
  readonly client: 's3' | 'ddb';
  readonly command: string;
  readonly input: Record<string, unknown>;
  /** Set once the server answered: 'applied' (a success) or 'refused' (an error reply, e.g. a failed condition). */
  outcome?: 'applied' | 'refused';
}

/**
 * `before`: fail without sending; `after`: send, let the server apply it, then fail (reply lost);
 * `detach`: fail at once while the request goes on its way (after any gate) and lands later.
 */
export type FaultDecision = { readonly when: 'before' | 'after' | 'detach'; readonly error: Error } | undefined;

export interface SdkObserver {
  /** Every request in the order it entered the wire, with its completion events. */
  readonly events: string[];
  readonly calls: SdkCall[];
  /** Decides, per request (1-based index), whether to fail it. */
  fault: (call: SdkCall, index: number) => FaultDecision;
  /** Runs before a request is sent (after fault decisions); may wait. */
  gate: (call: SdkCall) => Promise<void> | void;
  crashed: boolean;
  /** Requests sent in the background by `detach` faults, settled or not (their outcome or error). */
  readonly detached: Promise<unknown>[];
}

let installed = 0;

export function observeSdk(ctx: SluiceContext): SdkObserver {
  const observer: SdkObserver = { events: [], calls: [], fault: () => undefined, gate: () => undefined, crashed: false, detached: [] };
  const name = `sluiceTestObserver${installed++}`;
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
        const send = async () => {
          await observer.gate(call);
          observer.events.push(`start ${call.command}`);
          try {
            const result = await next(args);
            call.outcome = 'applied';
            return result;
          } catch (e) {
            call.outcome = 'refused';
            throw e;
          } finally {
            observer.events.push(`end ${call.command}`);
          }
        };
        if (decision?.when === 'detach') {
          observer.detached.push(send().catch((e: unknown) => e));
          throw decision.error;
        }
        if (decision?.when !== 'after') return send();
        // The reply is lost whatever it said (a success or a refusal).
        await send().catch(() => undefined);
        throw decision.error;
      };
    (stack.add as (m: unknown, o: unknown) => void)(middleware, { step: 'deserialize', priority: 'high', name });
  };
  install('s3', ctx.s3.middlewareStack as never);
  install('ddb', ctx.ddb.middlewareStack as never);
  return observer;
}

/** A held request: `reached` resolves when it is about to be sent; it waits until `release()`. */
export interface Hold {
  readonly reached: Promise<SdkCall>;
  release(): void;
  /** Whether the hold has caught its request. */
  readonly caught: boolean;
}

/**
 * Holds the next request matching `match` (once) until released, chaining any gate already set.
 * With `detach`, the caller gets that error at once while the request waits and lands on release
 * (a request stuck in the network after its sender gave up); the SDK then behaves as it does on
 * that error (e.g. retries a timed-out PutItem, which goes through at once).
 */
export function holdNext(sdk: SdkObserver, match: (call: SdkCall) => boolean, detach?: Error): Hold {
  let armed = true;
  let caught = false;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let reach!: (call: SdkCall) => void;
  const reached = new Promise<SdkCall>((resolve) => (reach = resolve));
  const previousGate = sdk.gate;
  const previousFault = sdk.fault;
  let heldCall: SdkCall | undefined;
  sdk.fault = (call, index) => {
    if (armed && match(call)) {
      armed = false;
      heldCall = call;
      if (detach) return { when: 'detach', error: detach };
      return undefined;
    }
    return previousFault(call, index);
  };
  sdk.gate = async (call) => {
    if (call === heldCall) {
      caught = true;
      reach(call);
      await released;
      return;
    }
    await previousGate(call);
  };
  return {
    reached,
    release,
    get caught() {
      return caught;
    },
  };
}

/** A DynamoDB call's key (pk, sk), marshalled or not. */
export function keyOf(call: SdkCall): { pk: string; sk: string } {
  const source = (call.input.Key ?? call.input.Item ?? {}) as Record<string, unknown>;
  const str = (v: unknown) => (v && typeof v === 'object' && 'S' in v ? String((v as { S: string }).S) : String(v));
  return { pk: str(source.pk), sk: str(source.sk) };
}

/** The partition a DynamoDB call's key belongs to (PART#<topic>#<id>#<partition>). */
export function partitionOf(call: SdkCall): number | undefined {
  const match = /^PART#.*#(\d+)$/.exec(keyOf(call).pk);
  return match ? Number(match[1]) : undefined;
}

export function crashError(message = 'crash'): Error {
  return Object.assign(new Error(message), { name: 'SimulatedCrash' });
}

/** The socket timed out waiting for the reply (the SDK's own TimeoutError: transient, retried). */
export function timeoutError(): Error {
  return Object.assign(new Error('socket timed out waiting for the reply'), { name: 'TimeoutError' });
}

/** The connection dropped mid-request (ECONNRESET: transient, retried). */
export function networkError(): Error {
  return Object.assign(new Error('socket hang up (injected)'), { name: 'Error', code: 'ECONNRESET' });
}

export function throttlingError(name = 'ProvisionedThroughputExceededException'): Error {
  return Object.assign(new Error(`${name} (injected)`), { name, $fault: 'client', $metadata: { httpStatusCode: 400 } });
}

export function serverError(status = 500, name = 'InternalServerError'): Error {
  return Object.assign(new Error(`${name} (injected)`), { name, $fault: 'server', $metadata: { httpStatusCode: status } });
}

/** The manifest entry a commit appends (marshalled or not). */
export function entryOf(call: SdkCall): ManifestEntry | undefined {
  const v = (call.input.ExpressionAttributeValues as Record<string, unknown> | undefined)?.[':entry'];
  return (v && typeof v === 'object' && 'S' in v ? String((v as { S: string }).S) : v) as ManifestEntry | undefined;
}

/** The intake object PUT of an append (step 1). */
export const isIntakePut = (call: SdkCall) => call.client === 's3' && call.command === 'PutObject' && String(call.input.Key).includes('_intake/');
/** The commit of the append protocol (step 2): the STATE update appending to the tail. */
export const isCommit = (call: SdkCall) => call.command === 'UpdateItem' && String(call.input.UpdateExpression ?? '').includes('list_append');
/** A spill's first half: the SEG item put, create-only. */
export const isSpillPut = (call: SdkCall) => call.command === 'PutItem' && keyOf(call).sk.startsWith('SEG#') && call.input.ConditionExpression === 'attribute_not_exists(pk)';
/** A spill's read of the SEG item it could not create. */
export const isSpillGet = (call: SdkCall) => call.command === 'GetItem' && keyOf(call).sk.startsWith('SEG#');
/** A spill's second half: the STATE update removing the spilled entries. */
export const isSpillRemove = (call: SdkCall) => call.command === 'UpdateItem' && String(call.input.UpdateExpression ?? '').startsWith('REMOVE #tail[');
/** A consistent STATE read (after a refused or unknown commit). */
export const isStateRead = (call: SdkCall) => call.command === 'GetItem' && keyOf(call).sk === 'STATE';
/** Lease acquisition (maintenance): the STATE update that takes a new epoch. */
export const isLeaseAcquire = (call: SdkCall) => call.command === 'UpdateItem' && String(call.input.UpdateExpression ?? '').includes('#epoch = #epoch + :one');
