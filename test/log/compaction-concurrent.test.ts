// Produce, fetch, compaction and retention all at once for a few seconds, as separate processes
// (own SDK clients and owner ids) on one bucket and table: every fetch must return exactly the
// records at the offsets it asked for (dense from the requested offset, each with the value
// acknowledged at that offset), or OFFSET_OUT_OF_RANGE only below the log start.
import { describe, expect, it } from 'vitest';
import { createContext, type SluiceContext } from '../../lib/context.js';
import { runMaintenance } from '../../lib/log/maintenance.js';
import { readRecords } from '../../lib/log/read.js';
import { isSluiceError } from '../../lib/api/errors.js';
import { createTopic } from '../../lib/metadata/topics.js';
import { createTestContext, emulatorClients } from '../support/storage.js';
import { appendValues, expectConsistentPartition } from './maintenance-support.js';

const RUN_MS = 3000;

function otherProcess(ctx: SluiceContext): SluiceContext {
  return createContext(emulatorClients(), { bucket: ctx.bucket, table: ctx.table, graceMs: ctx.graceMs, leaseMs: 2000, leaseWaitMs: 1000 });
}

describe('compaction and retention under load', () => {
  it('every concurrent fetch returns exactly the records at the requested offsets', async () => {
    const base = await createTestContext({ graceMs: 300 });
    const topic = 'busy';
    await createTopic(base, topic, 1, { 'segment.bytes': 1024, 'retention.bytes': 1500, 'index.interval.bytes': 256 });
    const producer = otherProcess(base);
    const maintainer = otherProcess(base);
    const readers = [otherProcess(base), otherProcess(base)];

    const acked = new Map<number, string>();
    let highestAcked = 0;
    let producing = true;
    const observations: { offset: number; value: string }[] = [];
    const stats = { fetches: 0, records: 0, outOfRange: 0, appends: 0, runs: 0, merges: 0, retained: 0 };
    const failures: string[] = [];

    const produce = async () => {
      const stop = Date.now() + RUN_MS;
      for (let seq = 0; Date.now() < stop; seq++) {
        const values = Array.from({ length: 1 + (seq % 3) }, (_, i) => `p${seq}-${i}-${'x'.repeat(seq % 40)}`);
        const baseOffset = await appendValues(producer, topic, values);
        values.forEach((v, i) => acked.set(baseOffset + i, v));
        highestAcked = baseOffset + values.length;
        stats.appends++;
      }
      producing = false;
    };

    const fetchLoop = async (reader: SluiceContext, seed: number) => {
      let rnd = seed;
      const random = () => ((rnd = (rnd * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
      let low = 0;
      while (producing) {
        if (highestAcked === 0) {
          await new Promise((r) => setTimeout(r, 5));
          continue;
        }
        const offset = low + Math.floor(random() * (highestAcked - low));
        const maxBytes = 64 + Math.floor(random() * 4000);
        try {
          const read = await readRecords(reader, topic, 0, { offset, maxBytes });
          stats.fetches++;
          low = read.logStartOffset;
          if (read.records.length === 0) failures.push(`empty read at ${offset} below ${read.highWatermark}`);
          read.records.forEach((r, i) => {
            if (r.offset !== offset + i) failures.push(`fetch at ${offset}: record ${i} has offset ${r.offset}`);
            observations.push({ offset: r.offset, value: r.value!.toString() });
          });
          if (read.nextOffset !== offset + read.records.length) failures.push(`fetch at ${offset}: nextOffset ${read.nextOffset}`);
          stats.records += read.records.length;
        } catch (e) {
          if (isSluiceError(e) && e.code === 'OFFSET_OUT_OF_RANGE') {
            const start = (e.details as { logStartOffset: number }).logStartOffset;
            if (offset >= start) failures.push(`OFFSET_OUT_OF_RANGE at ${offset} but log starts at ${start}`);
            low = start;
            stats.outOfRange++;
          } else {
            failures.push(`fetch at ${offset}: ${String(e)}`);
          }
        }
      }
    };

    const maintain = async () => {
      while (producing) {
        const report = await runMaintenance(maintainer, { timeLeftMs: () => 2000, reserveMs: 0 });
        failures.push(...report.errors);
        stats.runs++;
        stats.merges += report.compaction.merges;
        stats.retained += report.retention.segments;
        await new Promise((r) => setTimeout(r, 20));
      }
    };

    await Promise.all([produce(), maintain(), ...readers.map((r, i) => fetchLoop(r, i + 1))]);
    console.log(`under load: ${JSON.stringify(stats)}`);
    expect(failures).toEqual([]);
    for (const { offset, value } of observations) expect(value).toBe(acked.get(offset));
    expect(stats.merges).toBeGreaterThan(0);
    expect(stats.retained).toBeGreaterThan(0);
    expect(stats.fetches).toBeGreaterThan(20);
    await runMaintenance(maintainer, { timeLeftMs: () => 10_000, reserveMs: 0 });
    await expectConsistentPartition(base, topic, acked);
  });
});
