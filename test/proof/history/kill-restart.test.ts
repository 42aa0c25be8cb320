// The history checker over a run with repeated `kill -9` restarts of the local service: concurrent
// HTTP clients (plain and idempotent producers, fetchers) run against `lib/local/main.ts` (what
// `npm start` runs) while the process is SIGKILLed three times and restarted on the same data
// directory. Every request and reply is recorded (history.ts) and checked (checker.ts) against
// the final log read after the run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { type MainProcess, startMain } from '../../local/main-process.js';
import { scale } from '../model/soak.js';
import { checkHistory } from './checker.js';
import { History } from './history.js';

const PARTITIONS = 2;
const dataDir = mkdtempSync(join(tmpdir(), 'sluice-history-'));
let server: MainProcess | undefined;

afterAll(async () => {
  server?.child.kill('SIGKILL');
  await server?.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

const start = () => startMain({ SLUICE_DATA_DIR: dataDir, SLUICE_LEASE_MS: '1500', SLUICE_LEASE_WAIT_MS: '500' });

async function readFinalLog(url: string, partition: number): Promise<string[]> {
  const log: string[] = [];
  for (;;) {
    const res = await fetch(`${url}/v1/topics/hist/partitions/${partition}/records?offset=${log.length}&maxBytes=1000000`);
    const body = (await res.json()) as { records: { offset: number; value: string }[]; nextOffset: number; highWatermark: number };
    expect(res.status).toBe(200);
    body.records.forEach((r, i) => expect(r.offset).toBe(log.length + i));
    log.push(...body.records.map((r) => r.value));
    if (body.nextOffset >= body.highWatermark) return log;
  }
}

describe('history checker across kill -9 restarts', () => {
  it('acknowledged ⇒ present, acknowledgement order, no duplicates, no uncommitted reads', async () => {
    server = await start();
    let url = server.url;
    const created = await fetch(`${url}/v1/topics`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'hist', partitions: PARTITIONS }) });
    expect(created.status).toBe(201);

    const history = new History();
    let running = true;
    const hwm = [0, 0];

    const plainProducer = async (client: number) => {
      for (let n = 0; running; n++) {
        const partition = n % PARTITIONS;
        const values = Array.from({ length: 1 + (n % 3) }, (_, i) => `c${client}:${n}:${i}`);
        const op = await history.call({ kind: 'produce', client, partition, values, idempotent: false }, () =>
          fetch(`${url}/v1/topics/hist/records`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ records: values.map((value) => ({ value, partition })) }) }),
        );
        if (op.outcome !== 'ok') await sleep(100);
      }
    };

    const idempotentProducer = async (client: number) => {
      let producer: { producerId: number; producerEpoch: number } | undefined;
      while (!producer && running) {
        const res = await fetch(`${url}/v1/producers`, { method: 'POST' }).catch(() => undefined);
        if (res?.status === 200 || res?.status === 201) producer = (await res.json()) as typeof producer;
        else await sleep(100);
      }
      const sequence = [0, 0];
      for (let n = 0; running && producer; n++) {
        const partition = n % PARTITIONS;
        const values = Array.from({ length: 2 }, (_, i) => `i${client}:${n}:${i}`);
        // Re-send the same batch with the same sequence until it is acknowledged or refused for good.
        for (let tries = 0; ; tries++) {
          const body = { records: values.map((value) => ({ value, partition })), ...producer, sequences: [{ partition, baseSequence: sequence[partition] }] };
          const op = await history.call({ kind: 'produce', client, partition, values, idempotent: true }, () =>
            fetch(`${url}/v1/topics/hist/records`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
          );
          if (op.outcome === 'ok') break;
          if (op.outcome === 'fail' && !String(op.error).startsWith('ECONN')) throw new Error(`idempotent batch refused: ${op.error}`);
          await sleep(100);
          if (!running && tries > 50) return;
        }
        sequence[partition] += values.length;
      }
    };

    const fetcher = async (client: number) => {
      for (let n = 0; running; n++) {
        const partition = n % PARTITIONS;
        const offset = Math.floor(Math.random() * (hwm[partition] + 1));
        const op = await history.call({ kind: 'fetch', client, partition, offset }, () =>
          fetch(`${url}/v1/topics/hist/partitions/${partition}/records?offset=${offset}&maxBytes=4000`),
        );
        if (op.kind === 'fetch' && op.outcome === 'ok') hwm[partition] = Math.max(hwm[partition], op.highWatermark!);
        else await sleep(100);
      }
    };

    const clients = [
      ...[0, 1, 2].map((c) => plainProducer(c)),
      ...[3, 4].map((c) => idempotentProducer(c)),
      ...[5, 6].map((c) => fetcher(c)),
    ];

    const kills = scale(3, 6);
    for (let k = 0; k < kills; k++) {
      await sleep(scale(4000, 20_000));
      server.child.kill('SIGKILL');
      await server.exited;
      server = await start();
      url = server.url;
    }
    await sleep(scale(4000, 20_000));
    running = false;
    await Promise.all(clients);

    const finalLogs = new Map<number, string[]>();
    for (let p = 0; p < PARTITIONS; p++) finalLogs.set(p, await readFinalLog(url, p));
    const report = checkHistory(history.ops, finalLogs);
    console.log(JSON.stringify({ kills, ops: history.ops.length, ...report.counts, finalLog: [...finalLogs.values()].map((l) => l.length) }));
    expect(report.errors).toEqual([]);
    expect(report.counts.produceOk).toBeGreaterThan(50);
    expect(report.counts.fetchOk).toBeGreaterThan(20);
    // The kills really interrupted requests.
    expect(report.counts.produceInfo + report.counts.produceFail).toBeGreaterThan(0);
  }, scale(120_000, 600_000));
});
