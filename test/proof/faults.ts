// The fault catalogue for call-by-call injection, on top of the SDK observer of test/log/sdk-faults.ts
// (which sits inside the SDK's retry loop: every fault below meets the SDK's own retry strategy and
// the unknown-outcome guard exactly as the real failure would). Each kind is what AWS can do to one
// HTTP attempt:
//   throttle        refused before reaching the service (DynamoDB ProvisionedThroughputExceeded, S3 SlowDown):
//                   the SDK retries it
//   5xx             refused by the service without applying it (InternalServerError): the SDK retries
//                   an ordinary request; an append's commit is never re-sent (its outcome looks unknown)
//   timeout-after   the request DID reach the service and was applied (or refused); the reply was lost (TimeoutError)
//   network-after   the same, the connection dropped (ECONNRESET)
//   5xx-after       applied, but the caller sees a 503 (a proxy or load balancer lost the reply)
//   condition       a conditional write refused (ConditionalCheckFailedException), without applying it
//   crash-before    the process dies before sending this request: it and every later request fail
//   crash-after     the process dies right after this request was applied
// A scenario records a clean run's calls, then runs once per (call index k, fault kind).
//
// appendFaultMatrix() is the append scenario both append-faults.test.ts (refusals and lost
// replies) and test/log/crash-injection.test.ts (crashes) run for their kinds.
import { expect } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { appendToPartitions } from '../../lib/log/append.js';
import { spillItem, TAIL_MAX_ENTRIES, TAIL_ROOM_ENTRIES } from '../../lib/log/spill.js';
import { putSpillItem } from '../../lib/metadata/manifest.js';
import { getPartitionState } from '../../lib/metadata/partition-state.js';
import { createTopic } from '../../lib/metadata/topics.js';
import type { TopicRef } from '../../lib/metadata/types.js';
import {
  crashError,
  entryOf,
  isCommit,
  isSpillPut,
  isStateRead,
  networkError,
  observeSdk,
  serverError,
  throttlingError,
  timeoutError,
  type SdkCall,
  type SdkObserver,
} from '../log/sdk-faults.js';
import { type Attempt, checkLogInvariants, Ledger } from './invariants.js';
import { appendBatch, batchValues, startProcess, toRecords } from './processes.js';

export const FAULT_KINDS = ['throttle', '5xx', 'timeout-after', '5xx-after', 'condition', 'crash-before', 'crash-after'] as const;
/** 'network-after' is the append matrix's extra lost-reply kind (kept out of FAULT_KINDS, which other suites enumerate). */
export type FaultKind = (typeof FAULT_KINDS)[number] | 'network-after';

/** Kinds after which the request was applied by the server though the caller was not told so. */
export const REPLY_LOST_KINDS: readonly FaultKind[] = ['timeout-after', 'network-after', '5xx-after'];

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
  /** The call the fault hit, once it has, and its index. */
  hit?: SdkCall;
  hitIndex?: number;
  readonly crashes: boolean;
}

/** The error (and when) for one fault kind on one call. */
export function faultFor(kind: FaultKind, call: SdkCall): { when: 'before' | 'after'; error: Error } {
  const s3 = call.client === 's3';
  switch (kind) {
    case 'throttle':
      return { when: 'before', error: s3 ? serverError(503, 'SlowDown') : throttlingError() };
    case '5xx':
      return { when: 'before', error: serverError(500, s3 ? 'InternalError' : 'InternalServerError') };
    case 'timeout-after':
      return { when: 'after', error: timeoutError() };
    case 'network-after':
      return { when: 'after', error: networkError() };
    case '5xx-after':
      return { when: 'after', error: serverError(503, 'ServiceUnavailable') };
    case 'condition':
      return { when: 'before', error: conditionFailed() };
    case 'crash-before':
      return { when: 'before', error: crashError() };
    case 'crash-after':
      return { when: 'after', error: crashError() };
  }
}

/** Observes `ctx` and fails its k-th call (1-based) with `kind`. */
export function injectAt(ctx: SluiceContext, k: number, kind: FaultKind): Injection {
  const sdk = observeSdk(ctx);
  const injection: Injection = { sdk, crashes: kind.startsWith('crash') };
  sdk.fault = (call, index) => {
    if (index !== k || !faultApplies(kind, call)) return undefined;
    injection.hit = call;
    injection.hitIndex = index;
    if (injection.crashes) sdk.crashed = true;
    return faultFor(kind, call);
  };
  return injection;
}

/** Counts the calls a clean run makes. */
export function recordCalls(ctx: SluiceContext): SdkObserver {
  return observeSdk(ctx);
}

/** Runs `work` over `inputs`, `limit` at a time (scenarios on separate topics and processes). */
export async function inParallel<T>(inputs: readonly T[], limit: number, work: (input: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, inputs.length) }, async () => {
      while (next < inputs.length) await work(inputs[next++]);
    }),
  );
}

interface Step {
  readonly count: number;
  /** Sequence number for an idempotent batch (producer id is per scenario). */
  readonly sequence?: number;
  /** Before this step, another process fills the tail and leaves a dead spiller's SEG item. */
  readonly deadSpillerFirst?: boolean;
}

// Other processes' appends fill the tail up to 4 short of full first (prefill), so that the
// writer's 4th append fills it and spills it itself.
const PREFILL = TAIL_MAX_ENTRIES - 4;
const SCRIPT: Step[] = [
  { count: 2 },
  { count: 2, sequence: 0 },
  { count: 1, sequence: 2 },
  { count: 1 }, // fills the tail: this append spills it (SEG PutItem, REMOVE UpdateItem)
  { count: 2, sequence: 3, deadSpillerFirst: true },
  { count: 1 },
];
const PRODUCER = { producerId: 7001, producerEpoch: 0 };

/**
 * Another process fills the tail to its last slot (its own spills failing, as if it died each time
 * right after its commit) and then begins a spill of the tail's first entries and dies:
 * SEG#<tailBase> exists, listing a shorter prefix than the tail. The writer's next append is then
 * refused for room, reads STATE and adopts that item.
 */
async function leaveFullTailAndDeadSpiller(shared: SluiceContext, topic: TopicRef, ledger: Ledger): Promise<void> {
  const helper = startProcess(shared);
  const sdk = observeSdk(helper);
  sdk.fault = (call) => (isSpillPut(call) ? { when: 'before', error: Object.assign(new Error('died'), { name: 'SimulatedCrash' }) } : undefined);
  for (;;) {
    const state = await getPartitionState(helper, topic, 0);
    if (state.tail.length >= TAIL_ROOM_ENTRIES) {
      sdk.fault = () => undefined;
      await putSpillItem(helper, topic, 0, spillItem(helper, state.tailBase, state.tail.slice(0, 3)));
      return;
    }
    const values = batchValues(topic.name, 1);
    const attempt = ledger.begin(0, values);
    expect(ledger.settle(attempt, await appendBatch(helper, topic, 0, values)), 'helper append').toBe(true);
  }
}

/** Other processes' plain appends, before the writer's script. */
async function prefill(shared: SluiceContext, topic: TopicRef, ledger: Ledger): Promise<void> {
  const other = startProcess(shared);
  for (let i = 0; i < PREFILL; i++) {
    const values = batchValues(topic.name, 1);
    expect(ledger.settle(ledger.begin(0, values), await appendBatch(other, topic, 0, values))).toBe(true);
  }
}

interface Outcome {
  readonly ledger: Ledger;
  /** The ledger attempt each SDK call of the faulted process served (by call index - 1). */
  readonly attemptOfCall: Map<number, Attempt>;
}

async function runScript(shared: SluiceContext, first: SluiceContext, topic: TopicRef, calls: () => number, crashed: () => boolean): Promise<Outcome> {
  const ledger = new Ledger();
  const attemptOfCall = new Map<number, Attempt>();
  let ctx = first;
  await prefill(shared, topic, ledger);
  for (const step of SCRIPT) {
    if (step.deadSpillerFirst) await leaveFullTailAndDeadSpiller(shared, topic, ledger);
    const values = batchValues(topic.name, step.count);
    const attempt = ledger.begin(0, values);
    const producer = step.sequence === undefined ? undefined : { ...PRODUCER, baseSequence: step.sequence };
    for (let tries = 0; tries < 4; tries++) {
      // The process died: the client goes to another one (a new process, new SDK clients).
      if (crashed() && ctx === first) ctx = startProcess(shared);
      const before = calls();
      const result = await appendBatch(ctx, topic, 0, values, producer);
      if (ctx === first) for (let i = before; i < calls(); i++) attemptOfCall.set(i, attempt);
      if (ledger.settle(attempt, result)) break;
      if (!producer) break;
    }
    if (producer) expect(attempt.ackedAt, `${topic.name}: idempotent batch ${values[0]} acknowledged (${attempt.errors})`).toBeDefined();
  }
  return { ledger, attemptOfCall };
}

/**
 * The append scenario for one fault kind: a clean run records the writer's requests, then one
 * scenario per request index k (a fresh topic, a fresh writer whose k-th request fails). See
 * append-faults.test.ts for what it proves.
 */
export async function appendFaultMatrix(shared: SluiceContext, kind: FaultKind): Promise<void> {
  {
    const cleanTopic = await createTopic(shared, `clean-${kind}`, 1);
    const clean = startProcess(shared);
    const recorder = recordCalls(clean);
    await runScript(shared, clean, cleanTopic, () => recorder.calls.length, () => false);
    const commands = recorder.calls.map((c) => `${c.client}:${c.command}`);
    const total = commands.length;
    // Every request an append can make is in the script, at least once.
    for (const kindOfCall of ['s3:PutObject', 'ddb:UpdateItem', 'ddb:PutItem', 'ddb:GetItem']) expect(commands).toContain(kindOfCall);
    expect(recorder.calls.some((c) => c.command === 'GetItem' && String(JSON.stringify(c.input.Key)).includes('SEG#')), 'the SEG GetItem of an adopted spill').toBe(true);
    expect(recorder.calls.filter((c) => c.command === 'UpdateItem' && String(c.input.UpdateExpression).startsWith('REMOVE #tail['))).toHaveLength(2);

    let fired = 0;
    let lostCommitReplies = 0;
    await inParallel(
      Array.from({ length: total }, (_, i) => i + 1),
      6,
      async (k) => {
        const topic = await createTopic(shared, `f-${kind}-${k}`, 1);
        const writer = startProcess(shared);
        const injection = injectAt(writer, k, kind);
        const { ledger, attemptOfCall } = await runScript(shared, writer, topic, () => injection.sdk.calls.length, () => injection.sdk.crashed);
        const hit: SdkCall | undefined = injection.hit;
        if (hit) fired++;
        const label = `${topic.name} (${hit ? `${hit.client} ${hit.command} ${hit.outcome ?? 'not sent'}` : 'no fault'})`;
        const check = await checkLogInvariants(shared, topic, 0, ledger, label);
        // One fault costs at most one plain batch; at most one unacknowledged batch landed.
        expect(ledger.acked().length, label).toBeGreaterThanOrEqual(ledger.attempts.length - 1);
        expect(check.landed.length, label).toBeLessThanOrEqual(1);

        if (hit && isCommit(hit) && REPLY_LOST_KINDS.includes(kind)) {
          // The commit's reply was lost: never re-sent, neither by the SDK nor by append.ts.
          const later = injection.sdk.calls.slice(injection.hitIndex!).filter((c) => isCommit(c) && entryOf(c) === entryOf(hit));
          expect(later, `${label}: the commit with a lost reply is re-sent`).toEqual([]);
          if (hit.outcome === 'applied') {
            // ...and the append is acknowledged on its first try, found by the search in the tail.
            lostCommitReplies++;
            const attempt = attemptOfCall.get(injection.hitIndex! - 1)!;
            expect(attempt.errors, `${label}: acknowledged through the search`).toEqual([]);
            expect(attempt.ackedAt, label).toBeDefined();
            const stateReads = injection.sdk.calls.slice(injection.hitIndex!).filter(isStateRead);
            expect(stateReads.length, `${label}: one consistent STATE read decides`).toBeGreaterThanOrEqual(1);
          }
        }

        // Liveness: another process appends next, at the high watermark.
        const next = startProcess(shared);
        const values = batchValues(topic.name, 1);
        const [result] = await appendToPartitions(next, topic, [{ partition: 0, records: toRecords(values) }]);
        expect(result, label).toEqual({ partition: 0, baseOffset: check.highWatermark, count: 1 });
      },
    );
    expect(fired, 'the fault fired in (nearly) every scenario').toBeGreaterThan(kind === 'condition' ? 4 : total - 2);
    if (REPLY_LOST_KINDS.includes(kind)) expect(lostCommitReplies, 'lost replies of applied commits were exercised').toBeGreaterThanOrEqual(SCRIPT.length);
  }
}
