// kill -9 of the whole local server (handlers + embedded emulators) in the middle of concurrent
// produces, then a restart on the same data directory: every acknowledged record is at its
// acknowledged offset, and producing resumes at once (appends take no lease, so nothing of the
// dead process stands in the way).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { request, startMain, type MainProcess } from './main-process.js';

describe('npm start after kill -9', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-crash-'));
  const env = { SLUICE_DATA_DIR: dataDir };
  const started: MainProcess[] = [];
  afterAll(async () => {
    for (const p of started) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(started.map((p) => p.exited));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every acknowledged record at its acknowledged offset', async () => {
    const first = await startMain(env);
    started.push(first);
    expect((await request(first.url, 'POST', '/v1/topics', { name: 'crash', partitions: 3 })).status).toBe(201);

    const acknowledged = new Map<string, { partition: number; offset: number }>();
    let killed = false;
    const producer = async (id: number) => {
      for (let n = 0; !killed; n++) {
        const values = Array.from({ length: 5 }, (_, i) => `p${id}-r${n}-${i}`);
        try {
          const res = await request(first.url, 'POST', '/v1/topics/crash/records', {
            records: values.map((value, i) => ({ key: `k${(n + i) % 7}`, value })),
          });
          if (res.status === 200) res.body.records.forEach((r: { partition: number; offset: number }, i: number) => acknowledged.set(values[i], r));
        } catch {
          return; // connection refused or reset: the server is gone
        }
      }
    };
    const producers = [0, 1, 2, 3].map(producer);
    while (acknowledged.size < 100) await sleep(20);
    first.child.kill('SIGKILL');
    killed = true;
    expect(await first.exited).toBe('SIGKILL');
    await Promise.all(producers);

    const second = await startMain(env);
    started.push(second);
    // The first produce after the restart succeeds on every partition, on its first try.
    const startedAt = Date.now();
    const res = await request(second.url, 'POST', '/v1/topics/crash/records', {
      records: [0, 1, 2].map((p) => ({ partition: p, value: `after-${p}` })),
    });
    expect(res.status).toBe(200);
    expect(res.body.offsets.filter((o: { error?: unknown }) => o.error)).toEqual([]);
    expect(Date.now() - startedAt).toBeLessThan(2000);
    const resumed: { partition: number; offset: number }[] = res.body.records;

    const stored = new Map<number, { offset: number; value: string }[]>();
    for (let p = 0; p < 3; p++) {
      const records: { offset: number; value: string }[] = [];
      for (let offset = 0; ; ) {
        const res = await request(second.url, 'GET', `/v1/topics/crash/partitions/${p}/records?offset=${offset}`);
        expect(res.status).toBe(200);
        records.push(...res.body.records);
        if (res.body.nextOffset >= res.body.highWatermark) break;
        offset = res.body.nextOffset;
      }
      // Dense from 0; the post-restart record is the last one.
      expect(records.map((r) => r.offset)).toEqual(records.map((_, i) => i));
      expect(records.at(-1)).toMatchObject({ offset: resumed![p].offset, value: `after-${p}` });
      stored.set(p, records);
    }
    for (const [value, { partition, offset }] of acknowledged) {
      expect(stored.get(partition)![offset]?.value, `${value} at ${partition}/${offset}`).toBe(value);
    }
  }, 120_000);
});
