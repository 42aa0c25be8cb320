// lib/client/wire.ts: every SluiceApi call names an operation the server has, with its method and
// path, and carries its inputs where the server reads them.
import { describe, expect, it } from 'vitest';
import { allOperations } from '../../lib/api/operations.js';
import type { SluiceRequest, Transport } from '../../lib/client/transport.js';
import { SluiceApi } from '../../lib/client/wire.js';

function recording() {
  const sent: SluiceRequest[] = [];
  const transport: Transport = { request: async <T>(r: SluiceRequest) => (sent.push(r), undefined as T) };
  return { api: new SluiceApi(transport), sent };
}

describe('SluiceApi', () => {
  it('each call matches a server operation by op, method and path', async () => {
    const { api, sent } = recording();
    const signal = new AbortController().signal;
    await api.createTopic('t', 2, { 'retention.ms': '1' });
    await api.listTopics();
    await api.describeTopic('t');
    await api.describeTopicConfigs('t');
    await api.alterTopicConfig('t', { 'retention.ms': '1', 'segment.ms': null }, { validateOnly: true });
    await api.createPartitions('t', 3);
    await api.deleteTopic('t');
    await api.produce('t', { records: [{ value: 'v' }] });
    await api.produceBatches('t', Buffer.from([1]));
    await api.initProducer();
    await api.fetch('t', 0, { offset: 5, maxWaitMs: 1000, signal });
    await api.fetchBatches('t', 0, { offset: 5 });
    await api.listOffsets('t', 0, 'latest');
    await api.joinGroup('g', { topics: ['t'] });
    await api.heartbeat('g', 'm', 3);
    await api.leaveGroup('g', 'm');
    await api.commitOffsets('g', { offsets: [] });
    await api.fetchOffsets('g');
    await api.listGroups();
    await api.describeGroup('g');
    await api.deleteGroup('g');
    await api.resetOffsets('g', { topic: 't', to: 'earliest' });
    await api.createSubscription({ name: 's', topic: 't', target: { type: 'https', url: 'https://example.com/' } });
    await api.listSubscriptions();
    await api.describeSubscription('s');
    await api.deleteSubscription('s');
    const server = new Map(allOperations.map((o) => [o.name, o]));
    for (const r of sent) {
      const op = server.get(r.op);
      expect(op, r.op).toBeDefined();
      expect([r.method, r.path], r.op).toEqual([op!.method, op!.path]);
    }
    // and the client has a call for every server operation but the OpenAPI document
    expect(new Set(sent.map((r) => r.op))).toEqual(new Set([...server.keys()].filter((name) => name !== 'getOpenApi')));
  });

  it('inputs: path params, query, body; a long poll gets a longer timeout; batches requested and sent as such', async () => {
    const { api, sent } = recording();
    const signal = new AbortController().signal;
    await api.fetch('t', 2, { offset: 5, maxBytes: 100, maxWaitMs: 1000, encoding: 'base64', signal });
    expect(sent[0]).toMatchObject({ params: { topic: 't', partition: 2 }, query: { offset: 5, maxBytes: 100, maxWaitMs: 1000, encoding: 'base64' }, timeoutMs: 31_000, signal });
    await api.fetch('t', 2, { offset: 5 });
    expect(sent[1].timeoutMs).toBeUndefined();
    await api.fetchBatches('t', 2, { offset: 5 });
    expect(sent[2].acceptBatches).toBe(true);
    await api.produceBatches('t', Buffer.from([9]));
    expect(sent[3]).toMatchObject({ batches: Buffer.from([9]), params: { topic: 't' } });
    expect(sent[3].body).toBeUndefined();
    await api.heartbeat('g', 'm', 3);
    expect(sent[4]).toMatchObject({ params: { group: 'g', memberId: 'm' }, body: { generation: 3 } });
    await api.listOffsets('t', 0, 1234);
    expect(sent[5].query).toEqual({ at: 1234 });
  });
});
