// Issue 12, "What it must show" item 3: `kill -9` of one server process while clients produce
// through it and another, then a fresh process on the same storage endpoint. Appends need no lease,
// so the new process appends at once (no wait for the dead process's leases to lapse), and every
// acknowledged record, before and after the kill, is in the log exactly once at its offset.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ProduceLedger, describeRun, violations } from '../support/produce-workload.js';
import { ServerProcesses, type ServerProcess } from '../support/server-processes.js';
import { createTestContext } from '../support/storage.js';

const PARTITIONS = 16;
const CLIENTS = 4;
/** Requests acknowledged before the kill, so the dead process held (or wrote) every partition. */
const BEFORE_KILL = 30;
/** A first produce through the new process must be answered within this. */
const AT_ONCE_MS = 2000;

describe('kill -9 of a server process mid-produce, then a fresh one', () => {
  let servers: ServerProcesses | undefined;

  beforeAll(async () => {
    const ctx = await createTestContext();
    // A lease far longer than a process start: were produce still waiting for the dead process's
    // leases, the new process could not append for up to 30 s, whatever the machine's speed.
    servers = new ServerProcesses(
      { s3Endpoint: inject('s3Endpoint'), dynamodbEndpoint: inject('dynamodbEndpoint'), bucket: ctx.bucket, table: ctx.table },
      { SLUICE_LEASE_MS: '30000' },
    );
    await servers.start(2);
  }, 90_000);

  afterAll(async () => {
    await servers?.close();
  }, 30_000);

  it('lets the new process append at once and keeps every acknowledged record at its offset', async () => {
    const [victim, survivor] = servers!.running();
    const topic = 'payments';
    expect((await fetch(`${victim.url}/v1/topics`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: topic, partitions: PARTITIONS }) })).status).toBe(201);

    const ledger = new ProduceLedger(topic);
    const live = () => servers!.running().map((p) => p.url);
    let acknowledged = 0;
    let enoughAcknowledged!: () => void;
    const killTime = new Promise<void>((resolve) => (enoughAcknowledged = resolve));
    let stopBefore = false;
    // Clients keep both processes busy; the kill lands while requests to the victim are in flight.
    const before = ledger.run({
      targets: live,
      clients: CLIENTS,
      stop: () => stopBefore,
      onRequest: (o) => {
        if (o.acknowledged && ++acknowledged === BEFORE_KILL) enoughAcknowledged();
      },
    });
    let fresh: ServerProcess;
    try {
      // (A run that ends first, e.g. on an error, must not leave this waiting forever.)
      await Promise.race([killTime, before.then((r) => Promise.reject(new Error(`clients stopped before the kill: ${describeRun(r)}`)))]);
      await servers!.kill(victim);
      expect(await victim.exited).toBe('SIGKILL');
      // The clients go on through the survivor while the fresh process starts (and join it once it is up).
      [fresh] = await servers!.start(1);
    } finally {
      stopBefore = true;
    }
    const first = await ledger.produce(CLIENTS, () => [fresh.url], { next: 0 }, 1);
    const beforeRun = await before;
    console.log(`before and around the kill: ${describeRun(beforeRun)}`);
    console.log(`first request through the new process: ${first.acknowledged ? 'acknowledged' : 'refused'} in ${first.ms.toFixed(0)} ms`);

    // Then the survivor and the new process together.
    const after = await ledger.run({ targets: () => [survivor.url, fresh.url], clients: CLIENTS, requestsPerClient: 10 });
    console.log(`after: ${describeRun(after)}`);
    const check = await ledger.check(fresh.url, PARTITIONS);
    console.log(`log: ${check.records} records, ${check.acknowledged} acknowledged, ${check.unknownPresent} of unknown outcome present`);

    expect(beforeRun.fatal).toEqual([]);
    expect(after.fatal).toEqual([]);
    expect(violations(check)).toEqual([]);
    expect(beforeRun.failed + after.failed).toBe(0);
    expect(first, 'the first produce through the new process').toMatchObject({ firstTry: true, acknowledged: true });
    expect(first.ms).toBeLessThan(AT_ONCE_MS);
  }, 180_000);
});
