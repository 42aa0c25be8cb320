// Request and response headers. The request header's version follows the request's: v1
// (api key, version, correlation id, client id) for non-flexible versions, v2 (v1 plus tagged
// fields) for flexible ones; the client id is always an old-style int16-length string so any
// broker can read the header of any request. The response header is v0 (correlation id) or v1
// (plus tagged fields), except ApiVersions, whose response header is always v0: a client must
// read it before it knows which versions the broker speaks.
import type { ByteReader } from './byte-reader.js';
import { ByteWriter } from './byte-writer.js';
import { decodeMessage, encodeMessage, isFlexible, isValidVersion } from './codec.js';
import { ApiKey, API_SCHEMAS, RequestHeaderSchema, ResponseHeaderSchema, type RequestHeader } from './messages.js';

export type { RequestHeader };

/**
 * Reads the request header. For an API or version our definitions do not know, reads the v1
 * header (whose fields every version shares); any tagged fields then stay unread in the body.
 */
export function decodeRequestHeader(reader: ByteReader): RequestHeader {
  const peek = reader.buffer;
  const at = reader.position;
  if (reader.remaining < 4) return decodeMessage<RequestHeader>(RequestHeaderSchema, 1, reader); // throws: truncated
  const apiKey = peek.readInt16BE(at);
  const apiVersion = peek.readInt16BE(at + 2);
  return decodeMessage<RequestHeader>(RequestHeaderSchema, requestHeaderVersion(apiKey, apiVersion), reader);
}

export function requestHeaderVersion(apiKey: number, apiVersion: number): number {
  const api = API_SCHEMAS.get(apiKey);
  if (!api || !isValidVersion(api.request, apiVersion)) return 1;
  return isFlexible(api.request, apiVersion) ? 2 : 1;
}

export function responseHeaderVersion(apiKey: number, apiVersion: number): number {
  if (apiKey === ApiKey.ApiVersions) return 0;
  const api = API_SCHEMAS.get(apiKey);
  if (!api || !isValidVersion(api.response, apiVersion)) return 0;
  return isFlexible(api.response, apiVersion) ? 1 : 0;
}

/** Writes a response header for this API and version into a new writer. */
export function encodeResponseHeader(apiKey: number, apiVersion: number, correlationId: number): ByteWriter {
  return encodeMessage(ResponseHeaderSchema, responseHeaderVersion(apiKey, apiVersion), { correlationId }, new ByteWriter());
}

/** Writes a request header (clients' side: the tests and the fuzzer build requests with it). */
export function encodeRequestHeader(header: Omit<RequestHeader, 'clientId'> & { clientId?: string | null }): ByteWriter {
  const version = requestHeaderVersion(header.requestApiKey, header.requestApiVersion);
  return encodeMessage(RequestHeaderSchema, version, { clientId: null, ...header }, new ByteWriter());
}
