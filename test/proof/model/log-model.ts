// Model-based property for the partition log under the LEADERLESS append protocol. fast-check
// generates sequences of operations on several writer processes (each its own SluiceContext: SDK
// clients, owner id) and two partitions; an interpreter runs each against the real append/read code
// (on the shared emulators) and against a tiny reference model — per partition, the array of
// committed values — and compares after every step:
//   produce (plain or idempotent)  acknowledged offset = model length; a refusal leaves the log as is
//   burst                          several appends one after another: STATE's tail (TAIL_MAX_ENTRIES
//                                  entries) fills and spills, so later operations meet spills
//   fetch                          records = the model's slice from the offset; highWatermark = length
//   crash                          the writer dies at its k-th AWS call of an append (before it is
//                                  sent or after it was applied), including a spill's PutItem and
//                                  UpdateItem; a new process replaces it
//   lost                           the reply of the append's k-th request is lost (the process lives):
//                                  an update whose outcome is unknown is resolved by searching the tail
//                                  and SEG items, or answered REQUEST_TIMED_OUT
//   race                           two or three writers append to one partition at once (optionally
//                                  across a spill: the tail is filled first)
//   paused                         writer A stops just before its STATE update, its spill put or its
//                                  spill remove; others append (and spill) meanwhile, perhaps leaving
//                                  a full tail nobody spilled (its filler died); then A goes on
// A concurrent step's acknowledged batches must each be at their acknowledged offsets, and the new
// part of the log a permutation of the batches that landed (acknowledged or ambiguous, each whole).
// After every step STATE and the manifest are checked (invariants.ts checkManifest); after each case
// the whole log (checkLogInvariants). The model also checks PROGRESS: the appends of writers that
// nobody faulted are acknowledged (the others of a paused step all at once: nobody waits for a
// paused writer), and `progress` counts first-time acknowledgements for the test to bound.
import fc from 'fast-check';
import { expect } from 'vitest';
import type { SluiceContext } from '../../../lib/context.js';
import type { PartitionAppendResult } from '../../../lib/log/append.js';
import { readRecords } from '../../../lib/log/read.js';
import { TAIL_MAX_ENTRIES } from '../../../lib/log/spill.js';
import { getPartitionState } from '../../../lib/metadata/partition-state.js';
import type { TopicRef } from '../../../lib/metadata/types.js';
import { crashError, observeSdk, timeoutError, type SdkCall, type SdkObserver } from '../../log/sdk-faults.js';
import { type Attempt, checkLogInvariants, checkManifest, Ledger } from '../invariants.js';
import { appendBatch, batchValues, createTestTopic, startProcess, stopProcess } from '../processes.js';

export const WRITERS = 3;
const PARTITIONS = 2;

/** The append's STATE update (partition-state.ts appendEntry). */
export const isAppendUpdate = (call: SdkCall) => call.command === 'UpdateItem' && String(call.input.UpdateExpression ?? '').includes('list_append');
/** A spill's put of SEG#<tailBase> (manifest.ts putSpillItem). */
export const isSpillPut = (call: SdkCall) => {
  // The input is seen marshalled or not, depending on where lib-dynamodb's marshalling runs.
  const sk = (call.input.Item as { sk?: string | { S?: string } } | undefined)?.sk;
  const key = typeof sk === 'string' ? sk : (sk?.S ?? '');
  return call.command === 'PutItem' && key.startsWith('SEG#') && String(call.input.ConditionExpression ?? '').includes('attribute_not_exists');
};
/** A spill's removal of the spilled entries from the tail (partition-state.ts removeSpilledEntries). */
export const isSpillRemove = (call: SdkCall) => call.command === 'UpdateItem' && /^REMOVE #tail\[/.test(String(call.input.UpdateExpression ?? ''));

const callKind = (call: SdkCall) =>
  isAppendUpdate(call) ? 'update' : isSpillPut(call) ? 'spillPut' : isSpillRemove(call) ? 'spillRemove' : `${call.client}:${call.command}`;

type Pause = 'update' | 'spillPut' | 'spillRemove';
const PAUSES: Record<Pause, (call: SdkCall) => boolean> = { update: isAppendUpdate, spillPut: isSpillPut, spillRemove: isSpillRemove };

export type LogOp =
  | { readonly t: 'produce'; readonly w: number; readonly p: number; readonly n: number; readonly idem: boolean }
  | { readonly t: 'burst'; readonly w: number; readonly p: number; readonly count: number }
  | { readonly t: 'fetch'; readonly w: number; readonly p: number; readonly at: number; readonly maxBytes: number }
  | { readonly t: 'crash'; readonly w: number; readonly p: number; readonly k: number; readonly after: boolean; readonly fill: boolean; readonly idem: boolean }
  | { readonly t: 'lost'; readonly w: number; readonly p: number; readonly k: number; readonly fill: boolean; readonly idem: boolean }
  | { readonly t: 'race'; readonly p: number; readonly fill: boolean; readonly writers: readonly { readonly w: number; readonly idem: boolean }[] }
  | {
      readonly t: 'paused';
      readonly a: number;
      readonly b: number;
      readonly p: number;
      readonly at: Pause;
      readonly others: number;
      readonly idem: boolean;
      /** Before A goes on, the third writer fills the tail and dies before spilling it: A meets a full tail nobody spilled. */
      readonly thenFull: boolean;
    };

const w = fc.integer({ min: 0, max: WRITERS - 1 });
const p = fc.integer({ min: 0, max: PARTITIONS - 1 });
const n = fc.integer({ min: 1, max: 4 });
const distinctWriters = (min: number) =>
  fc.uniqueArray(fc.record({ w, idem: fc.boolean() }), { minLength: min, maxLength: WRITERS, selector: (x) => x.w });

export const logOpArb: fc.Arbitrary<LogOp> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ t: fc.constant('produce' as const), w, p, n, idem: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('burst' as const), w, p, count: fc.integer({ min: 2, max: TAIL_MAX_ENTRIES + 2 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('fetch' as const), w, p, at: fc.integer({ min: 0, max: 100 }), maxBytes: fc.integer({ min: 1, max: 600 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant('crash' as const), w, p, k: fc.oneof(fc.integer({ min: 1, max: 6 }), fc.constantFrom(3, 4)), after: fc.boolean(), fill: fc.boolean(), idem: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('lost' as const), w, p, k: fc.integer({ min: 1, max: 5 }), fill: fc.boolean(), idem: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('race' as const), p, fill: fc.boolean(), writers: distinctWriters(2) }) },
  {
    weight: 2,
    arbitrary: fc
      .record({
        t: fc.constant('paused' as const),
        a: w,
        b: w,
        p,
        at: fc.constantFrom<Pause>('update', 'spillPut', 'spillRemove'),
        others: fc.integer({ min: 1, max: TAIL_MAX_ENTRIES + 4 }),
        idem: fc.boolean(),
        thenFull: fc.boolean(),
      })
      .filter((o) => o.a !== o.b),
  },
);

/** Counts over all cases run with one harness: what the test asserts about progress and coverage. */
export interface ModelStats {
  cases: number;
  /** Appends no fault was injected into (no crash, no lost reply), and how many were acknowledged at once. */
  unfaulted: number;
  ackedFirstTime: number;
  /** Refusals of unfaulted appends, by code. */
  refusals: Record<string, number>;
  /** Where crashes, lost replies and pauses hit (call kind: update, spillPut, spillRemove, ...). */
  crashes: Record<string, number>;
  lost: Record<string, number>;
  paused: Record<string, number>;
  /** Spills that happened (SEG items created). */
  spills: number;
  /** Ambiguous batches that landed / did not. */
  ambiguousLanded: number;
  ambiguousNotLanded: number;
}

export const emptyStats = (): ModelStats => ({
  cases: 0,
  unfaulted: 0,
  ackedFirstTime: 0,
  refusals: {},
  crashes: {},
  lost: {},
  paused: {},
  spills: 0,
  ambiguousLanded: 0,
  ambiguousNotLanded: 0,
});

const bump = (counts: Record<string, number>, key: string) => (counts[key] = (counts[key] ?? 0) + 1);

interface Writer {
  ctx: SluiceContext;
  sdk: SdkObserver;
  /** Loses the reply of the request attempt for which it returns true (the request was applied). */
  loseReply: (call: SdkCall) => boolean;
}

interface Producer {
  nextSequence: number;
  /** The batch to re-send: the last one was not acknowledged. */
  pending?: { attempt: Attempt; sequence: number };
}

/**
 * The writer processes, kept across cases (a process serves many topics); a crashed one is
 * replaced by a new process start. Each has its own SDK clients with an observer (sdk-faults.ts)
 * and a lost-reply hook.
 */
export class LogHarness {
  readonly writers: Writer[];
  readonly stats: ModelStats = emptyStats();

  constructor(readonly shared: SluiceContext) {
    this.writers = Array.from({ length: WRITERS }, () => this.start());
  }

  /** A new process: new SDK clients, new owner id. */
  start(): Writer {
    const ctx = startProcess(this.shared);
    const writer: Writer = { ctx, sdk: observeSdk(ctx), loseReply: () => false };
    // Inside the SDK's retry loop (deserialize step, below finalizeRequest): the request reached
    // DynamoDB or S3 and was applied, then its reply is lost, as after a socket timeout. What the
    // SDK and Sluice do next (retry it, or resolve the unknown outcome) is theirs to get right.
    const lose = (stack: { add: (...args: never[]) => void }, client: 's3' | 'ddb') =>
      (stack.add as (m: unknown, o: unknown) => void)(
        (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: { input: Record<string, unknown> }) => {
          const result = await next(args);
          const call: SdkCall = { client, command: (context.commandName ?? 'unknown').replace(/Command$/, ''), input: args.input };
          if (writer.loseReply(call)) throw timeoutError();
          return result;
        },
        { step: 'deserialize', name: 'sluiceTestLostReply', override: true },
      );
    lose(ctx.s3.middlewareStack as never, 's3');
    lose(ctx.ddb.middlewareStack as never, 'ddb');
    return writer;
  }

  replace(index: number): void {
    stopProcess(this.writers[index].ctx);
    this.writers[index] = this.start();
  }

  close(): void {
    for (const writer of this.writers) stopProcess(writer.ctx);
  }
}

let caseCounter = 0;

/** Runs one generated case; throws (via expect) on the first divergence from the model. */
export async function runLogCase(harness: LogHarness, ops: readonly LogOp[]): Promise<void> {
  const { writers, shared, stats } = harness;
  for (const writer of writers) {
    writer.sdk.fault = () => undefined;
    writer.sdk.gate = () => undefined;
    writer.loseReply = () => false;
  }
  stats.cases++;
  const topic: TopicRef = await createTestTopic(shared, `model-${process.pid}-${++caseCounter}`, PARTITIONS);
  const ledger = new Ledger();
  const model: string[][] = Array.from({ length: PARTITIONS }, () => []);
  const producers = new Map<string, Producer>();
  let plainUnfaulted = 0;
  let acks = 0;

  /**
   * One append by `writer`. Undefined when the writer crashed during it (no reply ever reaches the
   * client: the batch is ambiguous whatever the code returned).
   */
  const append = async (
    writer: Writer,
    partition: number,
    attempt: Attempt,
    faulted: boolean,
    producer?: { producerId: number; sequence: number },
  ): Promise<PartitionAppendResult | undefined> => {
    let result: PartitionAppendResult;
    try {
      result = await appendBatch(writer.ctx, topic, partition, attempt.values, producer && { producerId: producer.producerId, producerEpoch: 0, baseSequence: producer.sequence });
    } catch (e) {
      result = { partition, error: e as never };
    }
    if (writer.sdk.crashed) {
      ledger.crashed(attempt);
      return undefined;
    }
    const acked = ledger.settle(attempt, result);
    if (acked) acks++;
    if (!faulted) {
      stats.unfaulted++;
      if (!producer) plainUnfaulted++;
      if (acked) stats.ackedFirstTime++;
      else bump(stats.refusals, 'error' in result ? result.error.code : '?');
    }
    return result;
  };

  const plain = (writer: Writer, partition: number, tag: string, count: number, faulted = false) =>
    append(writer, partition, ledger.begin(partition, batchValues(tag, count)), faulted);

  /** An idempotent producer's next batch: its unacknowledged batch again, unchanged, or a new one. */
  const idempotent = async (writer: Writer, partition: number, producerIndex: number, count: number, label: string, faulted = false) => {
    const key = `${producerIndex}/${partition}`;
    const state = producers.get(key) ?? { nextSequence: 0 };
    producers.set(key, state);
    const pending = state.pending ?? { attempt: ledger.begin(partition, batchValues(`i${producerIndex}`, count)), sequence: state.nextSequence };
    state.pending = pending;
    const result = await append(writer, partition, pending.attempt, faulted, { producerId: 1 + producerIndex, sequence: pending.sequence });
    if (result && !('error' in result)) {
      state.pending = undefined;
      state.nextSequence = pending.sequence + pending.attempt.values.length;
    } else if (result) {
      expect(result.error.code, `${label}: idempotent producer ${producerIndex} refused`).not.toMatch(
        /OUT_OF_ORDER_SEQUENCE_NUMBER|INVALID_PRODUCER_EPOCH|UNKNOWN_PRODUCER_ID|DUPLICATE_SEQUENCE_NUMBER/,
      );
    }
    return result;
  };

  /** Plain single-record appends by `writer` until the partition's tail holds `entries` entries (or is full). */
  const fillTail = async (writer: Writer, partition: number, entries: number) => {
    for (let i = 0; i < TAIL_MAX_ENTRIES + 2; i++) {
      const { tail } = await getPartitionState(shared, topic, partition);
      if (tail.length >= entries) return;
      await plain(writer, partition, 'f', 1);
    }
  };

  /** Compares the stored log end with the model and adopts the batches that landed. */
  const resolve = async (partition: number, label: string) => {
    const log = model[partition];
    const state = await checkManifest(shared, topic, partition, label);
    expect(state.logEndOffset, `${label}: log end never moves back (model ${log.length})`).toBeGreaterThanOrEqual(log.length);
    let offset = log.length;
    while (offset < state.logEndOffset) {
      const read = await readRecords(shared, topic, partition, { offset, maxBytes: 1 << 20 });
      expect(read.records.length, `${label}: a read at ${offset} below the high watermark returns records`).toBeGreaterThan(0);
      read.records.forEach((r, i) => expect(r.offset, `${label}: dense offsets`).toBe(offset + i));
      for (const r of read.records) log.push(r.value!.toString());
      offset = read.nextFetchOffset;
    }
    const known = new Set<string>();
    // Every new record belongs to an attempt acknowledged at that offset or an ambiguous one, whole.
    for (const a of ledger.attempts.filter((x) => x.partition === partition)) {
      a.values.forEach((v) => known.add(v));
      const at = log.indexOf(a.values[0]);
      if (a.baseOffset !== undefined) expect(at, `${label}: ${a.values[0]} acknowledged at ${a.baseOffset}`).toBe(a.baseOffset);
      else if (at >= 0) expect(a.ambiguous, `${label}: definite refusal ${a.values[0]} (${a.errors}) visible`).toBe(true);
      if (at >= 0) expect(log.slice(at, at + a.values.length), `${label}: ${a.values[0]} whole`).toEqual(a.values);
    }
    for (const [i, v] of log.entries()) expect(known.has(v), `${label}: ${v} at ${i} was never appended`).toBe(true);
  };

  /** Stops `writer` just before its first request `pause` matches, until released. */
  const hold = (writer: Writer, pause: Pause) => {
    let reached!: (call: SdkCall) => void;
    let release!: () => void;
    const atGate = new Promise<SdkCall>((r) => (reached = r));
    const released = new Promise<void>((r) => (release = r));
    writer.sdk.gate = async (call) => {
      if (!PAUSES[pause](call)) return;
      writer.sdk.gate = () => undefined;
      reached(call);
      await released;
    };
    return { atGate, release };
  };

  for (const [step, op] of ops.entries()) {
    const label = `${topic.name} step ${step} ${JSON.stringify(op)}`;
    switch (op.t) {
      case 'produce':
        if (op.idem) await idempotent(writers[op.w], op.p, op.w, op.n, label);
        else await plain(writers[op.w], op.p, `w${op.w}`, op.n);
        break;
      case 'burst':
        for (let i = 0; i < op.count; i++) await plain(writers[op.w], op.p, `b${op.w}`, 1 + (i % 2));
        break;
      case 'fetch': {
        const log = model[op.p];
        const offset = Math.floor((op.at / 100) * log.length);
        const read = await readRecords(writers[op.w].ctx, topic, op.p, { offset, maxBytes: op.maxBytes });
        expect(read.highWatermark, label).toBe(log.length);
        expect(read.records.map((r) => r.value!.toString()), label).toEqual(log.slice(offset, read.nextFetchOffset));
        read.records.forEach((r, i) => expect(r.offset, label).toBe(offset + i));
        if (offset < log.length) expect(read.records.length, `${label}: at least one record`).toBeGreaterThan(0);
        break;
      }
      case 'crash': {
        if (op.fill) await fillTail(writers[(op.w + 1) % WRITERS], op.p, TAIL_MAX_ENTRIES - 1);
        const writer = writers[op.w];
        writer.sdk.calls.length = 0;
        writer.sdk.fault = (call, index) => {
          if (index !== op.k) return undefined;
          writer.sdk.crashed = true;
          bump(stats.crashes, `${op.after ? 'after' : 'before'} ${callKind(call)}`);
          return { when: op.after ? 'after' : 'before', error: crashError() };
        };
        if (op.idem) await idempotent(writer, op.p, op.w, 2, label, true);
        else await plain(writer, op.p, `c${op.w}`, 2, true);
        writer.sdk.fault = () => undefined;
        // The process is gone (or, if the append made fewer than k calls, lives on); a new one starts.
        if (writer.sdk.crashed) harness.replace(op.w);
        break;
      }
      case 'lost': {
        if (op.fill) await fillTail(writers[(op.w + 1) % WRITERS], op.p, TAIL_MAX_ENTRIES - 1);
        const writer = writers[op.w];
        let attempts = 0;
        writer.loseReply = (call) => {
          if (++attempts !== op.k) return false;
          bump(stats.lost, callKind(call));
          return true;
        };
        if (op.idem) await idempotent(writer, op.p, op.w, 2, label, true);
        else await plain(writer, op.p, `l${op.w}`, 2, true);
        writer.loseReply = () => false;
        break;
      }
      case 'race': {
        const others = writers.filter((_, i) => !op.writers.some((x) => x.w === i));
        if (op.fill) await fillTail(others[0] ?? writers[0], op.p, TAIL_MAX_ENTRIES - 1);
        await Promise.all(
          op.writers.map((x) => (x.idem ? idempotent(writers[x.w], op.p, x.w, 2, label) : plain(writers[x.w], op.p, `r${x.w}`, 2))),
        );
        break;
      }
      case 'paused': {
        const [a, b] = [writers[op.a], writers[op.b]];
        // To pause A in a spill, A's append must spill: it fills the tail (7 entries before it) or
        // finds it full.
        if (op.at !== 'update') await fillTail(b, op.p, TAIL_MAX_ENTRIES - 1);
        const gate = hold(a, op.at);
        const aDone = op.idem ? idempotent(a, op.p, op.a, 2, label) : plain(a, op.p, `pa${op.a}`, 2);
        const reached = await Promise.race([gate.atGate.then((call) => callKind(call)), aDone.then(() => undefined)]);
        if (reached) bump(stats.paused, reached);
        // Nobody waits for a paused writer: every append of the others is acknowledged meanwhile.
        for (let i = 0; i < op.others; i++) {
          const result = await plain(b, op.p, `pb${op.b}`, 1 + (i % 3));
          expect(result && 'error' in result ? result.error.code : 'acknowledged', `${label}: append ${i} beside the paused writer`).toBe('acknowledged');
        }
        if (op.thenFull) {
          const c = writers.findIndex((_, i) => i !== op.a && i !== op.b);
          await fillTail(b, op.p, TAIL_MAX_ENTRIES - 1);
          const writer = writers[c];
          writer.sdk.fault = (call) => {
            if (!isSpillPut(call)) return undefined;
            writer.sdk.crashed = true;
            bump(stats.crashes, 'before spillPut');
            return { when: 'before', error: crashError() };
          };
          await plain(writer, op.p, `pc${c}`, 1, true);
          writer.sdk.fault = () => undefined;
          if (writer.sdk.crashed) harness.replace(c);
        }
        gate.release();
        await aDone;
        a.sdk.gate = () => undefined;
        break;
      }
    }
    for (let partition = 0; partition < PARTITIONS; partition++) await resolve(partition, label);
  }
  for (let partition = 0; partition < PARTITIONS; partition++) {
    const check = await checkLogInvariants(shared, topic, partition, ledger);
    expect(check.records.map((r) => r.value), topic.name).toEqual(model[partition]);
    const state = await getPartitionState(shared, topic, partition);
    stats.spills += state.tailBase > 0 ? 1 : 0;
  }
  for (const a of ledger.attempts) {
    if (a.ackedAt !== undefined || !a.ambiguous) continue;
    if (model[a.partition].includes(a.values[0])) stats.ambiguousLanded++;
    else stats.ambiguousNotLanded++;
  }
  // Progress: a case with an append nobody faulted acknowledged something.
  if (plainUnfaulted > 0) expect(acks, `${topic.name}: ${plainUnfaulted} unfaulted plain appends, none acknowledged`).toBeGreaterThan(0);
}

export function logProperty(harness: LogHarness, maxOps: number) {
  return fc.asyncProperty(fc.array(logOpArb, { minLength: 1, maxLength: maxOps }), (ops) => runLogCase(harness, ops));
}

/**
 * Cases run before the generated ones (fast-check `examples`), so every run meets each spill
 * interleaving at least once whatever the seed: with the tail filled to 7 entries, an append's
 * requests are PutObject (1), the STATE update (2), the spill put (3) and the spill remove (4).
 */
export const SPILL_EXAMPLES: [LogOp[]][] = [
  ...(['update', 'spillPut', 'spillRemove'] as const).map((at): [LogOp[]] => [
    [
      { t: 'paused', a: 0, b: 1, p: 0, at, others: TAIL_MAX_ENTRIES + 2, idem: false, thenFull: at === 'spillRemove' },
      { t: 'fetch', w: 2, p: 0, at: 0, maxBytes: 600 },
    ],
  ]),
  ...[2, 3, 4].flatMap((k) =>
    [false, true].map((after): [LogOp[]] => [
      [
        { t: 'crash', w: 0, p: 1, k, after, fill: true, idem: k === 3 },
        { t: 'race', p: 1, fill: false, writers: [{ w: 1, idem: false }, { w: 2, idem: false }, { w: 0, idem: true }] },
      ],
    ]),
  ),
  [[{ t: 'lost', w: 1, p: 0, k: 2, fill: true, idem: false }, { t: 'burst', w: 2, p: 0, count: TAIL_MAX_ENTRIES }]],
];
