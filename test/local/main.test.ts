// lib/local/main.ts (`npm start`) as a process: embedded emulators under SLUICE_DATA_DIR, the API
// served, the curl examples printed, a lone S3 endpoint refused before anything starts, and a clean
// exit on SIGTERM.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { request, startMain } from './main-process.js';

describe('npm start (lib/local/main.ts)', () => {
  it('serves the API on the emulators, prints how to use it, exits 0 on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sluice-main-'));
    const main = await startMain({ SLUICE_DATA_DIR: dataDir });
    try {
      expect(main.output()).toContain(`embedded emulators, data in ${dataDir}`);
      expect(main.output()).toMatch(/curl -s -X POST http:\/\/127\.0\.0\.1:\d+\/v1\/topics/);
      expect((await request(main.url, 'POST', '/v1/topics', { name: 'orders', partitions: 3 })).status).toBe(201);
      expect((await request(main.url, 'POST', '/v1/topics/orders/records', { records: [{ key: 'k1', value: 'hello' }] })).status).toBe(200);
      const printed = /partitions\/(\d+)\/records\?offset=0/.exec(main.output());
      const fetched = await request(main.url, 'GET', `/v1/topics/orders/partitions/${printed![1]}/records?offset=0`);
      expect(fetched.body.records.map((r: { value: string }) => r.value)).toEqual(['hello']); // the printed partition is where k1 went
    } finally {
      main.child.kill('SIGTERM');
    }
    expect(await main.exited).toBe(0);
  });

  it('one storage endpoint without the other is refused before anything starts', async () => {
    await expect(startMain({ AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:1' })).rejects.toThrow(/exited \(1\) before listening/);
  });
});
