// lib/client/sluice.ts: the entry object picks its transport and hands out producers, consumers and admins on it.
import { describe, expect, it } from 'vitest';
import { Admin } from '../../lib/client/admin.js';
import { Consumer } from '../../lib/client/consumer.js';
import { Producer } from '../../lib/client/producer.js';
import { DEFAULT_ENDPOINT, Sluice } from '../../lib/client/sluice.js';
import { HttpTransport } from '../../lib/client/transport-http.js';
import { LambdaTransport } from '../../lib/client/transport-lambda.js';
import type { Transport } from '../../lib/client/transport.js';

describe('Sluice', () => {
  it('transport: given > lambda > endpoint > SLUICE_ENDPOINT > the local default', () => {
    const custom: Transport = { request: async () => undefined as never };
    expect(new Sluice({ transport: custom, endpoint: 'http://127.0.0.1:1' }).api.transport).toBe(custom);
    expect(new Sluice({ lambda: { functionName: 'f', clientConfig: { region: 'us-east-1' } } }).api.transport).toBeInstanceOf(LambdaTransport);
    const http = new Sluice({ endpoint: 'http://127.0.0.1:9999/' }).api.transport as HttpTransport;
    expect(http.endpoint.href).toBe('http://127.0.0.1:9999/');
    const saved = process.env.SLUICE_ENDPOINT;
    try {
      process.env.SLUICE_ENDPOINT = 'http://127.0.0.1:7777';
      expect((new Sluice().api.transport as HttpTransport).endpoint.port).toBe('7777');
      delete process.env.SLUICE_ENDPOINT;
      expect((new Sluice().api.transport as HttpTransport).endpoint.href).toBe(new URL(DEFAULT_ENDPOINT).href);
    } finally {
      if (saved === undefined) delete process.env.SLUICE_ENDPOINT;
      else process.env.SLUICE_ENDPOINT = saved;
    }
  });
  it('producer, consumer and admin share its api', () => {
    const s = new Sluice({ transport: { request: async () => undefined as never } });
    expect(s.producer()).toBeInstanceOf(Producer);
    expect(s.consumer({ groupId: 'g' } as never)).toBeInstanceOf(Consumer);
    expect(s.admin()).toBeInstanceOf(Admin);
  });
});
