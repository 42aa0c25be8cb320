// Graceful shutdown of the local server: close() stops taking requests but lets the ones already
// running finish, so Ctrl-C never cuts an append off from its client mid-response.
import { describe, expect, it } from 'vitest';
import { startServer, type LocalServer } from '../../lib/local/server.js';
import { createTestContext } from '../support/storage.js';

describe('local server shutdown', () => {
  it('answers a produce that is in flight when close() is called', async () => {
    const base = await createTestContext();
    let server: LocalServer | undefined;
    let closing: Promise<void> | undefined;
    let closeDuringProduce = false;
    // The produce handler reads the clock once it is running: the moment to ask for shutdown.
    const context = {
      ...base,
      now: () => {
        if (closeDuringProduce && !closing) closing = server!.close();
        return base.now();
      },
    };
    server = await startServer({ context });
    const created = await fetch(`${server.url}/v1/topics`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'drain', partitions: 1 }) });
    expect(created.status).toBe(201);

    closeDuringProduce = true;
    const produced = await fetch(`${server.url}/v1/topics/drain/records`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ records: [{ value: 'last words' }] }),
    });
    expect(closing).toBeDefined();
    expect(produced.status).toBe(200);
    expect((await produced.json()).records).toEqual([{ partition: 0, offset: 0 }]);
    await closing;
    await expect(fetch(`${server.url}/v1/topics`)).rejects.toThrow();
  });
});
