// lib/context.ts: settings from the environment (defaults, validation), the context a process
// builds (fresh owner id per start, injected clock), and the SDK clients' endpoint handling.
import { describe, expect, it } from 'vitest';
import { createClients, createContext, settingsFromEnv } from '../lib/context.js';

describe('settingsFromEnv', () => {
  it('defaults', () => {
    expect(settingsFromEnv({})).toEqual({ bucket: 'sluice-data', table: 'sluice-metadata', prefix: '', leaseMs: 30_000, graceMs: 300_000, maxWaitMsLimit: 20_000 });
  });
  it('reads every variable; trailing slashes of the prefix are dropped; empty means default', () => {
    expect(
      settingsFromEnv({ SLUICE_BUCKET: 'b', SLUICE_TABLE: 't', SLUICE_PREFIX: 'p/q//', SLUICE_LEASE_MS: '5', SLUICE_GRACE_MS: '6', SLUICE_MAX_WAIT_MS: '' }),
    ).toEqual({ bucket: 'b', table: 't', prefix: 'p/q', leaseMs: 5, graceMs: 6, maxWaitMsLimit: 20_000 });
  });
  it('a negative, fractional or non-numeric duration is refused by name', () => {
    for (const bad of ['-1', '1.5', 'abc']) expect(() => settingsFromEnv({ SLUICE_LEASE_MS: bad })).toThrow(/SLUICE_LEASE_MS must be a non-negative integer/);
  });
});

describe('createContext', () => {
  it('settings override the environment; a fresh owner id per context; Date.now as the clock', () => {
    const clients = { s3: {} as never, ddb: {} as never };
    const a = createContext(clients, { table: 'mine' }, { SLUICE_TABLE: 'env', SLUICE_BUCKET: 'eb' });
    const b = createContext(clients, {}, {});
    expect(a.table).toBe('mine');
    expect(a.bucket).toBe('eb');
    expect(a.ownerId).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.ownerId).not.toBe(b.ownerId);
    expect(Math.abs(a.now() - Date.now())).toBeLessThan(1000);
    expect(a.s3).toBe(clients.s3);
  });
});

describe('createClients', () => {
  it('an S3 endpoint means path-style addressing; no endpoint, virtual-hosted', async () => {
    const saved = { a: process.env.AWS_ENDPOINT_URL, b: process.env.AWS_ENDPOINT_URL_S3 };
    delete process.env.AWS_ENDPOINT_URL;
    delete process.env.AWS_ENDPOINT_URL_S3;
    try {
      const local = createClients({ s3Endpoint: 'http://127.0.0.1:1', dynamodbEndpoint: 'http://127.0.0.1:2', region: 'eu-west-1' });
      expect(local.s3.config.forcePathStyle).toBe(true);
      expect(await local.s3.config.region()).toBe('eu-west-1');
      expect(await local.ddb.config.maxAttempts()).toBe(3);
      const aws = createClients({ region: 'eu-west-1' });
      expect(aws.s3.config.forcePathStyle).toBe(false);
    } finally {
      if (saved.a !== undefined) process.env.AWS_ENDPOINT_URL = saved.a;
      if (saved.b !== undefined) process.env.AWS_ENDPOINT_URL_S3 = saved.b;
    }
  });
});
