// Fault injection at every AWS call of the append path (cold lease acquisition, warm appends,
// idempotent appends), enumerated from a clean run's call sequence: for every call index k and
// every fault kind (faults.ts), a fresh topic runs the same script with call k failing. The
// "client" retries an idempotent batch with the same sequence (on a successor process when the
// server process died); plain batches are not retried (at-least-once is the client's choice).
// After each scenario the shared checker (invariants.ts) verifies design.md's invariants, and
// liveness: after one fault, every idempotent batch ends up acknowledged exactly once.
import { describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { TAIL_MAX_RANGES } from '../../lib/log/partition-tail.js';
import { createTestContext } from '../support/storage.js';
import { FAULT_KINDS, type FaultKind, injectAt, recordCalls } from './faults.js';
import { checkLogInvariants, Ledger } from './invariants.js';
import { appendBatch, batchValues, startProcess, successorOf } from './processes.js';

interface Step {
  readonly count: number;
  /** Sequence number for an idempotent batch (producer id is per scenario). */
  readonly sequence?: number;
}

// Cold plain append, warm plain, two idempotent (first and continuing sequence), plain ones until
// STATE's tail is full, then an idempotent append whose commit spills the tail, a last plain one.
const SCRIPT: Step[] = [
  { count: 2 },
  { count: 3 },
  { count: 2, sequence: 0 },
  { count: 1, sequence: 2 },
  ...Array.from({ length: TAIL_MAX_RANGES - 4 }, () => ({ count: 1 })),
  { count: 2, sequence: 3 },
  { count: 1 },
];
const PRODUCER = { producerId: 7001, producerEpoch: 0 };

async function runScript(shared: SluiceContext, first: SluiceContext, topic: string, ledger: Ledger, crashed: () => boolean) {
  let ctx = first;
  let skew = 0;
  let successorStarted = false;
  for (const step of SCRIPT) {
    const values = batchValues(topic, step.count);
    const attempt = ledger.begin(0, values);
    const producer = step.sequence === undefined ? undefined : { ...PRODUCER, baseSequence: step.sequence };
    for (let tries = 0; tries < 4; tries++) {
      if (crashed() && !successorStarted) {
        // The server process died: a new one (new owner id, clock past the dead lease) takes over.
        ({ ctx, skewMs: skew } = successorOf(shared, skew));
        successorStarted = true;
      }
      const result = await appendBatch(ctx, topic, 0, values, producer);
      if (ledger.settle(attempt, result)) break;
      if (!producer) break;
    }
    if (producer) expect(attempt.ackedAt, `${topic}: idempotent batch ${values[0]} acknowledged (${attempt.errors})`).toBeDefined();
  }
}

describe('fault injection at every AWS call of append', () => {
  it.each(FAULT_KINDS)('%s at every call index: invariants hold and idempotent batches land exactly once', async (kind: FaultKind) => {
    const shared = await createTestContext();
    const clean = startProcess(shared);
    const calls = recordCalls(clean);
    await runScript(shared, clean, `clean-${kind}`, new Ledger(), () => false);
    const total = calls.calls.length;
    // A lease, an object and a commit per append, and at least one spill.
    expect(total).toBeGreaterThanOrEqual(1 + SCRIPT.length * 2 + 1);
    expect(calls.calls.filter((c) => c.command === 'PutItem').length).toBeGreaterThanOrEqual(1);

    let fired = 0;
    for (let k = 1; k <= total; k++) {
      const topic = `f-${kind}-${k}`;
      const writer = startProcess(shared);
      const injection = injectAt(writer, k, kind);
      const ledger = new Ledger();
      await runScript(shared, writer, topic, ledger, () => injection.sdk.crashed);
      if (injection.hit) fired++;
      const label = `${topic} (${injection.hit ? `${injection.hit.client} ${injection.hit.command}` : 'no fault'})`;
      const check = await checkLogInvariants(shared, topic, 0, ledger, label);
      // Every plain batch after the fault still gets through: one fault costs at most one batch.
      expect(ledger.acked().length, label).toBeGreaterThanOrEqual(SCRIPT.length - 1);
      expect(check.landed.length).toBeLessThanOrEqual(1);
    }
    expect(fired).toBeGreaterThan(kind === 'condition' ? 2 : total - 2);
  });
});
