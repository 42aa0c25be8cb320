// Fault injection at every AWS request of the leaderless append path, enumerated from a clean
// run's request sequence: for every request index k and every fault kind, a fresh topic runs the
// same script (faults.ts appendFaultMatrix) with request k failing. This file runs the definite
// refusals (throttling, a 5xx before the server applied anything, a refused condition);
// test/log/lost-replies.test.ts runs the replies lost after the server applied the request
// (timeout, dropped connection, 503) and test/log/crash-injection.test.ts the crashes.
//
// The script makes the writer issue every request an append can make:
//   - plain and idempotent appends: the intake PutObject, the commit UpdateItem;
//   - the append that fills STATE's tail spills it: the SEG PutItem, the REMOVE UpdateItem;
//   - an append meeting a full tail whose spill a dead spiller began (its SEG item, listing a
//     shorter prefix of the tail, already exists): the refused commit, the consistent STATE
//     GetItem, the refused spill PutItem, the SEG GetItem, the REMOVE of the adopted entries, the
//     commit again.
// The "client" retries an idempotent batch with the same sequence (on a successor process when
// the process died); plain batches are not retried (at-least-once is the client's choice).
// After each scenario the shared checker (invariants.ts) verifies RELIABILITY.md's guarantees
// (acknowledged = present exactly once at its offset; unacknowledged visible only when the outcome
// was ambiguous; the manifest tiles the log; dense offsets), every idempotent batch ends up
// acknowledged exactly once, and another process's append then succeeds at the high watermark.
// When the fault lost the reply of a commit DynamoDB applied, the commit was not re-sent (by the
// SDK or by append.ts) and the append was acknowledged by the search (its entry is in the tail).
import { describe, it } from 'vitest';
import { createTestContext } from '../support/storage.js';
import { type FaultKind, appendFaultMatrix } from './faults.js';

describe('fault injection at every AWS request of an append: definite refusals', () => {
  it.each(['throttle', '5xx', 'condition'] as const)(
    '%s at every request: invariants hold, idempotent batches land once, the next append succeeds',
    async (kind: FaultKind) => appendFaultMatrix(await createTestContext(), kind),
  );
});

