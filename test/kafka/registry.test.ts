// The handler registry keeps the contract of api-handler.ts: one handler per API key, named as
// Kafka names the API, served from version 0 within the versions of Kafka's definitions, and
// able to answer an error (UNSUPPORTED_VERSION, a failure) for any request of any version it
// serves: by its errorResponse, or by the response's top-level error code.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KafkaCall } from '../../lib/kafka/api-handler.js';
import { KAFKA_APIS } from '../../lib/kafka/apis/index.js';
import { decodeExactly, encodeToBuffer } from '../../lib/kafka/protocol/codec.js';
import { API_SCHEMAS } from '../../lib/kafka/protocol/messages.js';
import { errorCodesOf } from './error-fields.js';
import { structArb } from './message-arbitrary.js';

describe('KAFKA_APIS', () => {
  it('has one handler per key, named as Kafka names the API, from version 0 within the definitions', () => {
    expect(new Set(KAFKA_APIS.map((a) => a.apiKey)).size).toBe(KAFKA_APIS.length);
    for (const api of KAFKA_APIS) {
      const schemas = API_SCHEMAS.get(api.apiKey);
      expect(schemas, `${api.name}: no definition for key ${api.apiKey}`).toBeDefined();
      expect(api.name).toBe(schemas!.name);
      expect(api.minVersion, api.name).toBe(0);
      expect(api.maxVersion, api.name).toBeLessThanOrEqual(schemas!.request.validVersions[1]);
      expect(api.maxVersion, api.name).toBeGreaterThanOrEqual(api.minVersion);
    }
  });

  it('every handler can answer any request of every version it serves with an error', () => {
    const gateway = { nodeId: 0, advertisedHost: 'gw', advertisedPort: 9092, clusterId: 'c', apis: KAFKA_APIS } as unknown as KafkaCall['gateway'];
    for (const api of KAFKA_APIS) {
      const { request, response } = API_SCHEMAS.get(api.apiKey)!;
      const topLevel = response.fields.some((f) => f.name === 'errorCode');
      expect(topLevel || api.errorResponse !== undefined, `${api.name}: no top-level errorCode and no errorResponse`).toBe(true);
      if (!api.errorResponse) continue;
      for (let version = api.minVersion; version <= api.maxVersion; version++) {
        for (const value of fc.sample(structArb(request, version), { seed: 14 + version, numRuns: 5 })) {
          const decoded = decodeExactly(request, version, encodeToBuffer(request, version, value));
          const call = { apiVersion: version, correlationId: 1, clientId: null, gateway, connection: { id: 'c', remoteAddress: 'x', close() {} } } as unknown as KafkaCall;
          const answer = api.errorResponse(decoded, 35, call);
          const bytes = encodeToBuffer(response, version, answer as object);
          const codes = errorCodesOf(response, version, decodeExactly(response, version, bytes));
          expect(codes.every((c) => c === 35), `${api.name} v${version}: ${codes}`).toBe(true);
        }
      }
    }
  });
});
