// The history checker over a run with repeated `kill -9` restarts of the local service: concurrent
// HTTP clients (plain and idempotent producers, fetchers: workload.ts) run against
// `lib/local/main.ts` (what `npm start` runs: the server and its embedded emulators in one process)
// while the process is SIGKILLed three times and restarted on the same data directory. Every
// request and reply is recorded (history.ts) and checked (checker.ts) against the final log read
// after the run: acknowledged ⇒ present at its offset, no duplicates, acknowledgement order, no
// uncommitted or backward reads. Appends take no lease, so the first produce after each restart is
// acknowledged at once (under 2 s), not after the dead process's lease expired.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { type MainProcess, startMain } from '../../local/main-process.js';
import { scale } from '../model/soak.js';
import { checkHistory } from './checker.js';
import { JSON_HEADERS, TOPIC, firstProduceAfterStart, readFinalLog, startWorkload } from './workload.js';

const PARTITIONS = 2;
const dataDir = mkdtempSync(join(tmpdir(), 'sluice-history-'));
let server: MainProcess | undefined;

afterAll(async () => {
  server?.child.kill('SIGKILL');
  await server?.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

const start = () => startMain({ SLUICE_DATA_DIR: dataDir, SLUICE_LEASE_MS: '1500' });

describe('history checker across kill -9 restarts', () => {
  it('acknowledged ⇒ present, acknowledgement order, no duplicates, no uncommitted or backward reads; produces resume at once', async () => {
    server = await start();
    const created = await fetch(`${server.url}/v1/topics`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ name: TOPIC, partitions: PARTITIONS }) });
    expect(created.status).toBe(201);

    const workload = startWorkload(() => ({ url: server!.url, index: 0 }), PARTITIONS);
    const resumeMs: number[] = [];
    const kills = scale(3, 6);
    for (let k = 0; k < kills; k++) {
      await sleep(scale(3000, 20_000));
      server.child.kill('SIGKILL');
      await server.exited;
      server = await start();
      const first = await firstProduceAfterStart(workload.history, { url: server.url, index: 0 }, 100 + k, k % PARTITIONS);
      expect(first.op.outcome, `first produce after restart ${k}: ${first.op.error}`).toBe('ok');
      resumeMs.push(Math.round(first.ms));
    }
    await sleep(scale(3000, 20_000));
    await workload.stop();

    const finalLogs = new Map<number, string[]>();
    for (let p = 0; p < PARTITIONS; p++) finalLogs.set(p, await readFinalLog(server.url, p));
    const report = checkHistory(workload.history.ops, finalLogs);
    console.log(JSON.stringify({ kills, resumeMs, ops: workload.history.ops.length, ...report.counts, finalLog: [...finalLogs.values()].map((l) => l.length) }));
    expect(report.errors).toEqual([]);
    for (const ms of resumeMs) expect(ms, 'first produce after a restart').toBeLessThan(2000);
    expect(report.counts.produceOk).toBeGreaterThan(50);
    expect(report.counts.fetchOk).toBeGreaterThan(20);
    // The kills really interrupted requests.
    expect(report.counts.produceInfo + report.counts.produceFail).toBeGreaterThan(0);
  }, scale(90_000, 600_000));
});
