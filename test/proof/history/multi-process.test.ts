// The history checker with several server processes on ONE storage endpoint — what AWS does with
// concurrent Lambda invocations: three `lib/local/main.ts` processes share the test run's emulators
// (one bucket, one table); every request goes to any of them, so appends to one partition from
// different processes interleave (the leaderless protocol: DynamoDB sequences them, nobody waits for
// anybody). One process at a time is SIGKILLed and restarted, in turn. The recorded history is
// checked against the final log (checker.ts), and the first produce to each restarted process is
// acknowledged at once (under 2 s): there is no append lease to wait out.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { type MainProcess, startMain } from '../../local/main-process.js';
import { scale } from '../model/soak.js';
import { checkHistory } from './checker.js';
import { JSON_HEADERS, TOPIC, firstProduceAfterStart, readFinalLog, startWorkload, type Target } from './workload.js';

const PARTITIONS = 2;
const SERVERS = 3;
const name = `sluice-multi-${randomBytes(4).toString('hex')}`;
const servers: (MainProcess | undefined)[] = [];

afterAll(async () => {
  for (const s of servers) s?.child.kill('SIGKILL');
  await Promise.all(servers.map((s) => s?.exited));
});

const start = () =>
  startMain({
    AWS_ENDPOINT_URL_S3: inject('s3Endpoint'),
    AWS_ENDPOINT_URL_DYNAMODB: inject('dynamodbEndpoint'),
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REGION: 'us-east-1',
    SLUICE_BUCKET: name,
    SLUICE_TABLE: name,
    SLUICE_LEASE_MS: '1500',
  });

describe(`history checker over ${SERVERS} processes on one store, each kill -9ed in turn`, () => {
  it('acknowledged ⇒ present, acknowledgement order, no duplicates, no uncommitted or backward reads; produces resume at once', async () => {
    servers.push(await start());
    servers.push(...(await Promise.all(Array.from({ length: SERVERS - 1 }, () => start()))));
    const created = await fetch(`${servers[0]!.url}/v1/topics`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ name: TOPIC, partitions: PARTITIONS }) });
    expect(created.status).toBe(201);

    // Any live process; a killed one is skipped until it is back (its URL changes on restart).
    const pick = (): Target => {
      const live = servers.map((s, index) => ({ s, index })).filter((x) => x.s);
      const { s, index } = live[Math.floor(Math.random() * live.length)];
      return { url: s!.url, index };
    };
    const workload = startWorkload(pick, PARTITIONS, { plain: 4, idempotent: 2, fetchers: 2 });
    const resumeMs: number[] = [];
    const kills = scale(3, 9);
    for (let k = 0; k < kills; k++) {
      await sleep(scale(2500, 15_000));
      const victim = k % SERVERS;
      const dying = servers[victim]!;
      servers[victim] = undefined;
      dying.child.kill('SIGKILL');
      await dying.exited;
      const restarted = await start();
      const first = await firstProduceAfterStart(workload.history, { url: restarted.url, index: victim }, 100 + k, k % PARTITIONS);
      servers[victim] = restarted;
      expect(first.op.outcome, `first produce after restart ${k}: ${first.op.error}`).toBe('ok');
      resumeMs.push(Math.round(first.ms));
    }
    await sleep(scale(2500, 15_000));
    await workload.stop();

    const finalLogs = new Map<number, string[]>();
    for (let p = 0; p < PARTITIONS; p++) finalLogs.set(p, await readFinalLog(servers[0]!.url, p));
    const report = checkHistory(workload.history.ops, finalLogs);
    const okBy = Array.from({ length: SERVERS }, (_, i) => workload.history.ops.filter((o) => o.kind === 'produce' && o.outcome === 'ok' && o.server === i).length);
    console.log(JSON.stringify({ kills, resumeMs, okBy, ops: workload.history.ops.length, ...report.counts, finalLog: [...finalLogs.values()].map((l) => l.length) }));
    expect(report.errors).toEqual([]);
    for (const ms of resumeMs) expect(ms, 'first produce after a restart').toBeLessThan(2000);
    // Every process acknowledged appends (to the same partitions).
    for (const n of okBy) expect(n).toBeGreaterThan(10);
    expect(report.counts.produceOk).toBeGreaterThan(50);
    expect(report.counts.fetchOk).toBeGreaterThan(20);
    // Refusals are only those of a process being killed (connection refused or reset) or an unknown outcome.
    const refused = workload.history.ops.filter((o) => o.kind === 'produce' && o.outcome === 'fail' && !String(o.error).startsWith('ECONN'));
    expect(refused.map((o) => o.error)).toEqual([]);
  }, scale(90_000, 600_000));
});
