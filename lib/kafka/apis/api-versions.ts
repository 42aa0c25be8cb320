// ApiVersions (key 18), versions 0-3 (3 is flexible; librdkafka sends it first). Lists exactly
// the APIs this gateway has handlers for, each with the versions its handler serves. An
// ApiVersions version outside 0-3 never reaches this handler: server.ts answers it with the v0
// fallback (apiVersionsFallback below), which makes clients retry with a version listed there.
import type { KafkaApi } from '../api-handler.js';
import { NONE, UNSUPPORTED_VERSION } from '../protocol/error-codes.js';
import { ApiKey, type ApiVersionsRequest, type ApiVersionsResponse } from '../protocol/messages.js';
import type { GatewayServices } from '../gateway-services.js';

export const API_VERSIONS_MIN = 0;
export const API_VERSIONS_MAX = 3;

export const apiVersionsApi: KafkaApi<ApiVersionsRequest, ApiVersionsResponse> = {
  apiKey: ApiKey.ApiVersions,
  name: 'ApiVersions',
  minVersion: API_VERSIONS_MIN,
  maxVersion: API_VERSIONS_MAX,
  async handle(_request, call) {
    return { errorCode: NONE, apiKeys: advertisedApis(call.gateway), throttleTimeMs: 0 };
  },
};

/** Every API with a handler, by key. */
export function advertisedApis(gateway: GatewayServices): ApiVersionsResponse.ApiVersion[] {
  return gateway.apis
    .map((api) => ({ apiKey: api.apiKey, minVersion: api.minVersion, maxVersion: api.maxVersion }))
    .sort((a, b) => a.apiKey - b.apiKey);
}

/**
 * The answer to an ApiVersions version we do not serve, sent with a v0 header and a v0 body:
 * UNSUPPORTED_VERSION and the ApiVersions versions we do serve. librdkafka (which sends v3 first)
 * and the Java client (v4) then retry with the highest version listed.
 */
export function apiVersionsFallback(): ApiVersionsResponse {
  return {
    errorCode: UNSUPPORTED_VERSION,
    apiKeys: [{ apiKey: ApiKey.ApiVersions, minVersion: API_VERSIONS_MIN, maxVersion: API_VERSIONS_MAX }],
  };
}
