// Issue 12, "What it must show" item 1: several server processes on one storage endpoint (each its
// own writer, as warm Lambda containers are) and clients spreading keyed produce requests over
// them. Any process must append to any partition: at least 99% of requests succeed on the first
// try, and every acknowledged record is in the log exactly once, at its acknowledged offset.
// The servers run with `npm start`'s defaults (leases, waits): what a new user gets.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ProduceLedger, describeRun, violations, type RunStats } from '../support/produce-workload.js';
import { ServerProcesses } from '../support/server-processes.js';
import { createTestContext } from '../support/storage.js';

const PROCESSES = 3;
const PARTITIONS = 16;
const CLIENTS = 6;
const REQUESTS_PER_CLIENT = 40;
const RECORDS_PER_REQUEST = 32;

describe(`${PROCESSES} server processes on one storage endpoint`, () => {
  let servers: ServerProcesses | undefined;

  beforeAll(async () => {
    const ctx = await createTestContext();
    servers = new ServerProcesses({ s3Endpoint: inject('s3Endpoint'), dynamodbEndpoint: inject('dynamodbEndpoint'), bucket: ctx.bucket, table: ctx.table });
    await servers.start(PROCESSES);
  }, 90_000);

  afterAll(async () => {
    await servers?.close();
  }, 30_000);

  it('acknowledge keyed requests from concurrent clients on the first try, each record once at its offset', async () => {
    const urls = servers!.running().map((p) => p.url);
    expect(urls).toHaveLength(PROCESSES);
    const topic = 'orders';
    // Created once, through one process: the others learn of it from the table, as containers do.
    const created = await fetch(`${urls[0]}/v1/topics`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: topic, partitions: PARTITIONS }) });
    expect(created.status).toBe(201);

    const ledger = new ProduceLedger(topic, RECORDS_PER_REQUEST);
    const run: RunStats = await ledger.run({ targets: () => urls, clients: CLIENTS, requestsPerClient: REQUESTS_PER_CLIENT });
    console.log(describeRun(run));
    const check = await ledger.check(urls[1], PARTITIONS);
    console.log(`log: ${check.records} records in ${PARTITIONS} partitions, ${check.acknowledged} acknowledged, ${check.unknownPresent} of unknown outcome present`);

    // The log's guarantees first: they hold today and must keep holding.
    expect(run.fatal).toEqual([]);
    expect(violations(check)).toEqual([]);
    expect(check.acknowledged).toBe(run.acknowledgedRecords);
    expect(run.requests).toBe(CLIENTS * REQUESTS_PER_CLIENT);
    expect(run.failed).toBe(0);
    // Then multi-writer progress: leaderless appends need no retry because of another writer.
    expect(run.firstTry / run.requests, describeRun(run)).toBeGreaterThanOrEqual(0.99);
  }, 180_000);
});
