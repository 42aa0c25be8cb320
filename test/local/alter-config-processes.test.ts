// Topic config alters racing across separate server processes (as concurrent admin calls reach
// different Lambda containers): two `npm start` processes on one table each change their own keys
// of one topic, many requests at once, round after round. Each alter is a conditional write that
// re-applies its change when another process won the race, so no change is lost: every key ends
// at the value of its last round. A refused change in the middle of it changes nothing.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ServerProcesses } from '../support/server-processes.js';
import { createTestContext } from '../support/storage.js';

const ROUNDS = 4;
const KEYS: readonly (readonly string[])[] = [
  ['retention.ms', 'retention.bytes', 'segment.ms', 'delete.retention.ms'],
  ['segment.bytes', 'max.message.bytes', 'index.interval.bytes', 'min.compaction.lag.ms'],
];
const valueOf = (process: number, key: number, round: number) => 100_000 + process * 10_000 + key * 1_000 + round;

async function patch(url: string, config: Record<string, unknown>) {
  const res = await fetch(`${url}/v1/topics/shared`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ config }) });
  return { status: res.status, body: (await res.json()) as { config: Record<string, number>; error?: { code: string } } };
}

describe('config alters from two server processes at once', () => {
  let servers: ServerProcesses | undefined;

  beforeAll(async () => {
    const ctx = await createTestContext();
    servers = new ServerProcesses({ s3Endpoint: inject('s3Endpoint'), dynamodbEndpoint: inject('dynamodbEndpoint'), bucket: ctx.bucket, table: ctx.table });
    await servers.start(2);
  }, 90_000);

  afterAll(async () => {
    await servers?.close();
  }, 30_000);

  it('lose no change: every key ends at its last round, whichever process wrote it', async () => {
    const urls = servers!.running().map((p) => p.url);
    const created = await fetch(`${urls[0]}/v1/topics`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'shared', partitions: 1 }) });
    expect(created.status).toBe(201);
    for (let round = 1; round <= ROUNDS; round++) {
      const requests = KEYS.flatMap((keys, process) => keys.map((key, k) => patch(urls[process], { [key]: valueOf(process, k, round) })));
      // A bad change racing the good ones: refused whole, it must not undo or block any of them.
      requests.push(patch(urls[round % 2], { 'retention.ms': 1, 'segment.bytes': 'nonsense' }));
      const answers = await Promise.all(requests);
      expect(answers.slice(0, -1).map((a) => a.status)).toEqual(Array(answers.length - 1).fill(200));
      expect(answers.at(-1)).toMatchObject({ status: 400, body: { error: { code: 'INVALID_CONFIG' } } });
    }
    for (const url of urls) {
      const { config } = (await (await fetch(`${url}/v1/topics/shared`)).json()) as { config: Record<string, number> };
      KEYS.forEach((keys, process) => keys.forEach((key, k) => expect(config[key], key).toBe(valueOf(process, k, ROUNDS))));
    }
  }, 120_000);
});
