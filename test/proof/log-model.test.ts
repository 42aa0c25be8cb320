// Model-based property test of the partition log under the leaderless append protocol
// (model/log-model.ts): random interleavings of plain and idempotent produce, bursts that fill and
// spill STATE's tail, fetch, writer crashes at any AWS call (the spill's included), lost replies,
// racing writers and paused writers over three writer processes and two partitions, compared with a
// reference model after every step. Beyond safety it asserts progress: appends nobody faulted are
// acknowledged the first time they are sent, and the faults really hit the spill's requests.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SluiceContext } from '../../lib/context.js';
import { createTestContext } from '../support/storage.js';
import { LogHarness, logProperty, SPILL_EXAMPLES } from './model/log-model.js';
import { scale } from './model/soak.js';

let harness: LogHarness;

beforeAll(async () => {
  const shared: SluiceContext = await createTestContext();
  harness = new LogHarness(shared);
});

afterAll(() => harness?.close());

describe('the log against its reference model', () => {
  it(`short sequences (${scale(40, 4000)} cases)`, async () => {
    await fc.assert(logProperty(harness, 5), { numRuns: scale(40, 4000), examples: SPILL_EXAMPLES });
  }, scale(120_000, 3_600_000));

  it(`longer sequences (${scale(12, 1000)} cases)`, async () => {
    await fc.assert(logProperty(harness, 16), { numRuns: scale(12, 1000) });
  }, scale(120_000, 3_600_000));

  it('made progress and met the spill: unfaulted appends acknowledged at once; crashes, lost replies and pauses hit the spill', () => {
    const s = harness.stats;
    console.log(JSON.stringify(s));
    expect(s.unfaulted).toBeGreaterThan(100);
    // Leaderless: no append waits for or is refused because of another writer.
    expect(s.ackedFirstTime / s.unfaulted, `refusals: ${JSON.stringify(s.refusals)}`).toBeGreaterThan(0.99);
    expect(s.spills).toBeGreaterThan(10);
    for (const kind of ['update', 'spillPut', 'spillRemove']) {
      expect(s.paused[kind] ?? 0, `paused before ${kind}`).toBeGreaterThan(0);
      expect((s.crashes[`before ${kind}`] ?? 0) + (s.crashes[`after ${kind}`] ?? 0), `crash at ${kind}`).toBeGreaterThan(0);
    }
    expect(s.lost.update ?? 0, 'lost reply of the STATE update').toBeGreaterThan(0);
    expect(s.ambiguousLanded, 'ambiguous batches that landed').toBeGreaterThan(0);
  });
});
