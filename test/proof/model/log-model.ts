// Model-based property for the partition log. fast-check generates sequences of operations on
// several writer processes; an interpreter runs each against the real append/read code (on the
// shared emulators) and against a tiny reference model — per partition, the array of committed
// values — and compares after every step:
//   produce / idempotent produce   acknowledged offset = model length; a refusal leaves the log as is
//                                  (STATE's tail spills every few appends: SEGMENT_BYTES)
//                                  unless it was ambiguous, and then the batch is whole at the tail
//   fetch                          records = the model's slice from the offset; highWatermark = length
//   steal                          the writer's clock jumps past every lease (lease expiry, skew)
//   crash                          the writer dies at its k-th AWS call of an append; a new process
//                                  (new owner id) replaces it
//   race                           two writers append at once
//   paused                         writer A stops just before its commit; B steals the lease and also
//                                  stops before its commit; both are released in a chosen order
//                                  (the stale-leader interleaving the epoch condition exists for)
// After each case the shared checker (invariants.ts) verifies the stored log against the ledger.
import fc from 'fast-check';
import { expect } from 'vitest';
import type { SluiceContext } from '../../../lib/context.js';
import { createClients, createContext } from '../../../lib/context.js';
import type { PartitionAppendResult } from '../../../lib/log/append.js';
import { readRecords } from '../../../lib/log/read.js';
import { getPartitionState } from '../../../lib/metadata/partition-state.js';
import { isCommit, observeSdk, crashError, type SdkObserver } from '../../log/sdk-faults.js';
import { type Attempt, checkLogInvariants, Ledger } from '../invariants.js';
import { appendBatch, batchValues } from '../processes.js';

export const WRITERS = 3;
const PARTITIONS = 2;
const LEASE_MS = 2000;
/**
 * The topic's segment.bytes, as the produce API passes it: small, so that STATE's tail spills into
 * a SEG item every few appends and the operations below meet spills (and crash or pause around them).
 */
const SEGMENT_BYTES = 256;

export type LogOp =
  | { readonly t: 'produce'; readonly w: number; readonly p: number; readonly n: number }
  | { readonly t: 'idem'; readonly w: number; readonly producer: number; readonly p: number; readonly n: number }
  | { readonly t: 'fetch'; readonly w: number; readonly p: number; readonly at: number; readonly maxBytes: number }
  | { readonly t: 'steal'; readonly w: number }
  | { readonly t: 'crash'; readonly w: number; readonly p: number; readonly k: number; readonly after: boolean }
  | { readonly t: 'race'; readonly a: number; readonly b: number; readonly p: number }
  | { readonly t: 'paused'; readonly a: number; readonly b: number; readonly p: number; readonly bFirst: boolean };

const w = fc.integer({ min: 0, max: WRITERS - 1 });
const p = fc.integer({ min: 0, max: PARTITIONS - 1 });
const n = fc.integer({ min: 1, max: 4 });

export const logOpArb: fc.Arbitrary<LogOp> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ t: fc.constant('produce' as const), w, p, n }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('idem' as const), w, producer: fc.integer({ min: 0, max: 1 }), p, n }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('fetch' as const), w, p, at: fc.integer({ min: 0, max: 100 }), maxBytes: fc.integer({ min: 1, max: 600 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('steal' as const), w }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('crash' as const), w, p, k: fc.integer({ min: 1, max: 5 }), after: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('race' as const), a: w, b: w, p }).filter((o) => o.a !== o.b) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('paused' as const), a: w, b: w, p, bFirst: fc.boolean() }).filter((o) => o.a !== o.b) },
);

interface Writer {
  readonly sdk: SdkObserver;
  readonly clients: ReturnType<typeof createClients>;
  ctx: SluiceContext;
  skew: number;
}

interface Producer {
  nextSequence: number;
  /** The batch to re-send: the last one was not acknowledged. */
  pending?: { attempt: Attempt; sequence: number };
}

/** SDK clients (with observers) shared by every case: clients are costly, processes are not. */
export class LogHarness {
  readonly writers: Writer[];

  constructor(
    readonly shared: SluiceContext,
    makeClients: () => ReturnType<typeof createClients>,
  ) {
    this.writers = Array.from({ length: WRITERS }, () => {
      const clients = makeClients();
      const writer = { clients, skew: 0 } as Writer;
      writer.ctx = this.process(writer);
      (writer as { sdk: SdkObserver }).sdk = observeSdk(writer.ctx);
      return writer;
    });
  }

  /** A new process start on the writer's clients: new owner id, its own clock. */
  process(writer: Writer): SluiceContext {
    const ctx = createContext(writer.clients, {
      bucket: this.shared.bucket,
      table: this.shared.table,
      leaseMs: LEASE_MS,
      leaseWaitMs: 50,
      graceMs: 1000,
    });
    return { ...ctx, now: () => Date.now() + writer.skew };
  }

  reset(): void {
    for (const writer of this.writers) {
      writer.skew = 0;
      writer.sdk.crashed = false;
      writer.sdk.fault = () => undefined;
      writer.sdk.gate = () => undefined;
      writer.sdk.calls.length = 0;
      writer.sdk.events.length = 0;
      writer.ctx = this.process(writer);
    }
  }
}

let caseCounter = 0;

/** Runs one generated case; throws (via expect) on the first divergence from the model. */
export async function runLogCase(harness: LogHarness, ops: readonly LogOp[]): Promise<void> {
  harness.reset();
  const topic = `model-${process.pid}-${++caseCounter}`;
  const ledger = new Ledger();
  const model: string[][] = Array.from({ length: PARTITIONS }, () => []);
  const producers = new Map<string, Producer>();
  const { writers, shared } = harness;
  let maxSkew = 0;

  const steal = (writer: Writer) => {
    maxSkew += LEASE_MS + 1000;
    writer.skew = maxSkew;
  };

  const produce = async (writer: Writer, partition: number, attempt: Attempt, producer?: { producerId: number; sequence: number }) => {
    let result: PartitionAppendResult;
    try {
      result = await appendBatch(
        writer.ctx,
        topic,
        partition,
        attempt.values,
        producer && { producerId: producer.producerId, producerEpoch: 0, baseSequence: producer.sequence },
        { segmentBytes: SEGMENT_BYTES },
      );
    } catch (e) {
      result = { partition, error: e as never };
    }
    ledger.settle(attempt, result);
    return result;
  };

  /** Compares the stored log end with the model and adopts ambiguous batches that landed. */
  const resolve = async (partition: number, label: string) => {
    const log = model[partition];
    const state = await getPartitionState(shared, topic, partition);
    expect(state.nextOffset, `${label}: log end never moves back (model ${log.length})`).toBeGreaterThanOrEqual(log.length);
    let offset = log.length;
    while (offset < state.nextOffset) {
      const read = await readRecords(shared, topic, partition, { offset, maxBytes: 1 << 20 });
      for (const r of read.records) log.push(r.value!.toString());
      offset = read.nextOffset;
    }
    // Every new record belongs to an attempt acknowledged at that offset or an ambiguous one.
    for (const a of ledger.attempts.filter((x) => x.partition === partition)) {
      const at = log.indexOf(a.values[0]);
      if (a.baseOffset !== undefined) expect(at, `${label}: ${a.values[0]} acknowledged at ${a.baseOffset}`).toBe(a.baseOffset);
      else if (at >= 0) expect(a.ambiguous, `${label}: definite refusal ${a.values[0]} (${a.errors}) visible`).toBe(true);
      if (at >= 0) expect(log.slice(at, at + a.values.length), `${label}: ${a.values[0]} whole`).toEqual(a.values);
    }
  };

  for (const [step, op] of ops.entries()) {
    const label = `${topic} step ${step} ${JSON.stringify(op)}`;
    switch (op.t) {
      case 'produce': {
        await produce(writers[op.w], op.p, ledger.begin(op.p, batchValues(`w${op.w}`, op.n)));
        break;
      }
      case 'idem': {
        const key = `${op.producer}/${op.p}`;
        const state = producers.get(key) ?? { nextSequence: 0 };
        producers.set(key, state);
        // A client retries its unacknowledged batch unchanged before sending anything new.
        const pending = state.pending ?? { attempt: ledger.begin(op.p, batchValues(`i${op.producer}`, op.n)), sequence: state.nextSequence };
        const result = await produce(writers[op.w], op.p, pending.attempt, { producerId: 1 + op.producer, sequence: pending.sequence });
        if ('error' in result) {
          expect(result.error.code, label).not.toMatch(/OUT_OF_ORDER_SEQUENCE_NUMBER|INVALID_PRODUCER_EPOCH/);
          state.pending = pending;
        } else {
          state.pending = undefined;
          state.nextSequence = pending.sequence + pending.attempt.values.length;
        }
        break;
      }
      case 'fetch': {
        const log = model[op.p];
        const offset = Math.floor((op.at / 100) * log.length);
        const read = await readRecords(writers[op.w].ctx, topic, op.p, { offset, maxBytes: op.maxBytes });
        expect(read.highWatermark, label).toBe(log.length);
        expect(read.records.map((r) => r.value!.toString()), label).toEqual(log.slice(offset, read.nextOffset));
        read.records.forEach((r, i) => expect(r.offset, label).toBe(offset + i));
        if (offset < log.length) expect(read.records.length, `${label}: at least one record`).toBeGreaterThan(0);
        break;
      }
      case 'steal':
        steal(writers[op.w]);
        break;
      case 'crash': {
        const writer = writers[op.w];
        writer.sdk.fault = (_call, index) => {
          if (index !== op.k) return undefined;
          writer.sdk.crashed = true;
          return { when: op.after ? 'after' : 'before', error: crashError() };
        };
        writer.sdk.calls.length = 0;
        await produce(writer, op.p, ledger.begin(op.p, batchValues(`c${op.w}`, 2)));
        // The process is gone; a new one starts on the same clock.
        writer.sdk.fault = () => undefined;
        writer.sdk.crashed = false;
        writer.ctx = harness.process(writer);
        break;
      }
      case 'race': {
        await Promise.all([op.a, op.b].map((i) => produce(writers[i], op.p, ledger.begin(op.p, batchValues(`r${i}`, 2)))));
        break;
      }
      case 'paused': {
        const [a, b] = [writers[op.a], writers[op.b]];
        const hold = (writer: Writer) => {
          let reached!: () => void;
          let release!: () => void;
          const atGate = new Promise<void>((r) => (reached = r));
          const released = new Promise<void>((r) => (release = r));
          writer.sdk.gate = async (call) => {
            if (!isCommit(call)) return;
            writer.sdk.gate = () => undefined;
            reached();
            await released;
          };
          return { atGate, release };
        };
        const ha = hold(a);
        const aDone = produce(a, op.p, ledger.begin(op.p, batchValues(`pa${op.a}`, 2)));
        await Promise.race([ha.atGate, aDone]);
        steal(b);
        const hb = hold(b);
        const bDone = produce(b, op.p, ledger.begin(op.p, batchValues(`pb${op.b}`, 2)));
        await Promise.race([hb.atGate, bDone]);
        if (op.bFirst) {
          hb.release();
          await bDone;
          ha.release();
        } else {
          ha.release();
          await aDone;
          hb.release();
        }
        await Promise.all([aDone, bDone]);
        a.sdk.gate = () => undefined;
        b.sdk.gate = () => undefined;
        break;
      }
    }
    for (let partition = 0; partition < PARTITIONS; partition++) await resolve(partition, label);
  }
  for (let partition = 0; partition < PARTITIONS; partition++) {
    const check = await checkLogInvariants(shared, topic, partition, ledger);
    expect(check.records.map((r) => r.value), topic).toEqual(model[partition]);
  }
}

export function logProperty(harness: LogHarness, maxOps: number) {
  return fc.asyncProperty(fc.array(logOpArb, { minLength: 1, maxLength: maxOps }), (ops) => runLogCase(harness, ops));
}
