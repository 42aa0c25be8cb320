// lib/client/transport-lambda.ts with aws-sdk-client-mock on the Lambda client: the event it
// invokes (merged input, strings as HTTP would carry them, op last), function routing, the reply
// envelopes it unwraps, and invoke failures as client errors.
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { LambdaTransport } from '../../lib/client/transport-lambda.js';

const payload = (v: unknown) => ({ Payload: new TextEncoder().encode(JSON.stringify(v)) as never, StatusCode: 200 });
function setup(functionName: string | ((op: string) => string) = 'fn') {
  const client = new LambdaClient({ region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
  const mock = mockClient(client);
  const event = (i = 0) => JSON.parse(new TextDecoder().decode(mock.commandCalls(InvokeCommand)[i].args[0].input.Payload as Uint8Array));
  return { t: new LambdaTransport({ functionName, client }), mock, event };
}

describe('LambdaTransport', () => {
  it('the event: body, then query and path parameters as strings, op; batches base64 and format for batch answers', async () => {
    const { t, mock, event } = setup();
    mock.on(InvokeCommand).resolves(payload({ status: 200, body: { batches: 'AQID', nextOffset: 3, highWatermark: 3, logStartOffset: 0 } }));
    expect(await t.request({ op: 'fetch', method: 'GET', path: '/v1/topics/{topic}/partitions/{partition}/records', params: { topic: 't', partition: 0 }, query: { offset: 5, x: undefined }, acceptBatches: true })).toEqual({
      batches: Buffer.from([1, 2, 3]),
      nextOffset: 3,
      highWatermark: 3,
      logStartOffset: 0,
    });
    expect(event()).toEqual({ offset: '5', format: 'batches', topic: 't', partition: '0', op: 'fetch' });
    expect(mock.commandCalls(InvokeCommand)[0].args[0].input.FunctionName).toBe('fn');
    await t.request({ op: 'produce', method: 'POST', path: '/v1/topics/{topic}/records', params: { topic: 't' }, body: { op: 'evil', topic: 'other' }, batches: Buffer.from([1, 2]) });
    expect(event(1)).toEqual({ topic: 't', batches: 'AQI=', op: 'produce' });
  });
  it('routes each op to its function', async () => {
    const { t, mock } = setup((op) => (op === 'produce' ? 'producer-fn' : 'other-fn'));
    mock.on(InvokeCommand).resolves(payload({ status: 200, body: {} }));
    await t.request({ op: 'produce', method: 'POST', path: '/x' });
    await t.request({ op: 'joinGroup', method: 'POST', path: '/x' });
    expect(mock.commandCalls(InvokeCommand).map((c) => c.args[0].input.FunctionName)).toEqual(['producer-fn', 'other-fn']);
  });
  it('envelopes: {status, body}, API Gateway {statusCode, body: string}, a bare body; errors become client errors', async () => {
    const { t, mock } = setup();
    mock
      .on(InvokeCommand)
      .resolvesOnce(payload({ statusCode: 200, body: '{"a":1}', headers: {} }))
      .resolvesOnce(payload({ plain: true }))
      .resolvesOnce(payload({ status: 204 }))
      .resolvesOnce(payload({ status: 409, body: { error: { code: 'ILLEGAL_GENERATION', message: 'old', retriable: false, generation: 4 } } }));
    expect(await t.request({ op: 'a', method: 'GET', path: '/x' })).toEqual({ a: 1 });
    expect(await t.request({ op: 'a', method: 'GET', path: '/x' })).toEqual({ plain: true });
    expect(await t.request({ op: 'a', method: 'GET', path: '/x' })).toBeUndefined();
    await expect(t.request({ op: 'a', method: 'GET', path: '/x' })).rejects.toMatchObject({ code: 'ILLEGAL_GENERATION', status: 409, details: { generation: 4 } });
  });
  it('a function error (the handler threw) is a retriable UNKNOWN_SERVER_ERROR with its message', async () => {
    const { t, mock } = setup();
    mock.on(InvokeCommand).resolves({ ...payload({ errorMessage: 'Runtime exited' }), FunctionError: 'Unhandled' });
    await expect(t.request({ op: 'a', method: 'GET', path: '/x' })).rejects.toMatchObject({ code: 'UNKNOWN_SERVER_ERROR', retriable: true, message: 'invoke a: Runtime exited' });
  });
  it('invoke failures: throttling retriable THROTTLING, others NETWORK_ERROR', async () => {
    const { t, mock } = setup();
    mock.on(InvokeCommand).rejectsOnce(Object.assign(new Error('rate'), { name: 'TooManyRequestsException' })).rejectsOnce(Object.assign(new Error('denied'), { name: 'AccessDeniedException' }));
    await expect(t.request({ op: 'a', method: 'GET', path: '/x' })).rejects.toMatchObject({ code: 'THROTTLING', retriable: true });
    await expect(t.request({ op: 'a', method: 'GET', path: '/x' })).rejects.toMatchObject({ code: 'NETWORK_ERROR', retriable: false });
  });
});
