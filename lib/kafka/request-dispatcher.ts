// Turns one request frame into its response frame: reads the header, finds the API's handler,
// decodes the body, runs the handler and encodes its answer. Every failure has a defined answer:
//   - an unreadable header: the connection is closed (nothing can be answered without a
//     correlation id);
//   - an ApiVersions version we do not serve: the v0 fallback (apis/api-versions.ts);
//   - an API key without a handler: a v0 response header and the bare int16 UNSUPPORTED_VERSION,
//     since no response schema applies; such APIs are not in ApiVersions, so real clients never
//     send them;
//   - a version outside the handler's range: UNSUPPORTED_VERSION in the response's error fields;
//   - a body that does not decode: INVALID_REQUEST; a handler's SluiceError: its Kafka code;
//     anything else: UNKNOWN_SERVER_ERROR (and an error log).
// Error answers are the handler's errorResponse, else the response with its top-level
// `errorCode` fields set; a response with neither cannot carry an error, so the connection is
// closed, as Kafka closes a connection whose request it cannot parse.
import { logger } from '../observability/logger.js';
import type { AnyKafkaApi, KafkaCall } from './api-handler.js';
import type { KafkaConnection } from './connection.js';
import { mayCall } from './connection.js';
import type { GatewayServices } from './gateway-services.js';
import type { GatewayMetrics } from './gateway-metrics.js';
import { apiVersionsFallback } from './apis/api-versions.js';
import { ByteReader } from './protocol/byte-reader.js';
import { ByteWriter } from './protocol/byte-writer.js';
import { decodeExactly, encodeMessage, isValidVersion } from './protocol/codec.js';
import { INVALID_REQUEST, kafkaErrorCode, kafkaErrorName, NONE, UNKNOWN_SERVER_ERROR, UNSUPPORTED_VERSION } from './protocol/error-codes.js';
import { decodeRequestHeader, encodeResponseHeader, type RequestHeader } from './protocol/headers.js';
import { ApiKey, API_SCHEMAS, ApiVersionsResponseSchema } from './protocol/messages.js';
import type { MessageSchema } from './protocol/schema.js';

/** What the connection does with a request: write `frame` (if any), then close if `close`. */
export interface DispatchResult {
  readonly frame?: Buffer;
  readonly close?: boolean;
  readonly reason?: string;
}

export class RequestDispatcher {
  private readonly apis: ReadonlyMap<number, AnyKafkaApi>;

  constructor(
    private readonly services: GatewayServices,
    apis: readonly AnyKafkaApi[],
    private readonly metrics: GatewayMetrics,
  ) {
    this.apis = new Map(apis.map((api) => [api.apiKey, api]));
    metrics.watch(services.produceBatcher);
  }

  async dispatch(payload: Buffer, connection: KafkaConnection): Promise<DispatchResult> {
    const started = performance.now();
    const reader = new ByteReader(payload);
    let header: RequestHeader;
    try {
      header = decodeRequestHeader(reader);
    } catch (e) {
      return { close: true, reason: `unreadable request header: ${(e as Error).message}` };
    }
    const result = await this.answer(header, reader, connection);
    const name = this.apis.get(header.requestApiKey)?.name ?? API_SCHEMAS.get(header.requestApiKey)?.name ?? `ApiKey${header.requestApiKey}`;
    this.metrics.request(name, performance.now() - started, result.errorCode !== NONE);
    if (result.errorCode !== NONE) {
      const log = result.errorCode === UNKNOWN_SERVER_ERROR ? logger.error.bind(logger) : logger.info.bind(logger);
      log('kafka request failed', {
        api: name,
        apiVersion: header.requestApiVersion,
        correlationId: header.correlationId,
        clientId: header.clientId,
        connection: connection.id,
        errorCode: result.errorCode,
        error: kafkaErrorName(result.errorCode),
        reason: result.reason,
      });
    }
    return result;
  }

  private async answer(header: RequestHeader, reader: ByteReader, connection: KafkaConnection): Promise<DispatchResult & { errorCode: number }> {
    const { requestApiKey: apiKey, requestApiVersion: version, correlationId } = header;
    const api = this.apis.get(apiKey);
    const schemas = API_SCHEMAS.get(apiKey);
    const respond = (body: object | undefined, errorCode: number, reason?: string) => {
      if (!schemas || body === undefined) return { close: true, errorCode, reason: reason ?? 'no error field to answer with' };
      return { frame: responseFrame(apiKey, version, correlationId, schemas.response, body), errorCode, reason };
    };

    if (apiKey === ApiKey.ApiVersions && (!api || version < api.minVersion || version > api.maxVersion)) {
      const frame = frameOf(encodeResponseHeader(apiKey, 0, correlationId), ApiVersionsResponseSchema, 0, apiVersionsFallback());
      return { frame, errorCode: UNSUPPORTED_VERSION, reason: `ApiVersions v${version}` };
    }
    if (!api || !schemas) {
      const w = encodeResponseHeader(apiKey, 0, correlationId);
      w.int16(UNSUPPORTED_VERSION);
      return { frame: sized(w.toBuffer()), errorCode: UNSUPPORTED_VERSION, reason: `no handler for api key ${apiKey}` };
    }
    if (!mayCall(connection, apiKey, this.services.requireAuthentication, this.services.ctx.now())) {
      const when = connection.principal === undefined ? 'before authentication' : 'after the SASL session expired';
      return { close: true, errorCode: KAFKA_ILLEGAL_SASL_STATE, reason: `${api.name} ${when}` };
    }
    const call: KafkaCall = { apiVersion: version, correlationId, clientId: header.clientId, gateway: this.services, connection };
    const body = reader.buffer.subarray(reader.position);

    if (version < api.minVersion || version > api.maxVersion || !isValidVersion(schemas.request, version)) {
      if (!isValidVersion(schemas.response, version)) {
        const w = encodeResponseHeader(apiKey, 0, correlationId);
        w.int16(UNSUPPORTED_VERSION);
        return { frame: sized(w.toBuffer()), errorCode: UNSUPPORTED_VERSION, reason: `${api.name} has no version ${version}` };
      }
      return respond(this.errorBody(api, schemas.response, body, UNSUPPORTED_VERSION, call), UNSUPPORTED_VERSION, `${api.name} v${version} not served`);
    }

    let request: unknown;
    try {
      request = decodeExactly(schemas.request, version, body);
    } catch (e) {
      return respond(topLevelError(schemas.response, INVALID_REQUEST), INVALID_REQUEST, `malformed ${api.name} v${version}: ${(e as Error).message}`);
    }

    let response: unknown;
    try {
      response = await api.handle(request, call);
    } catch (e) {
      const code = kafkaErrorCode(e);
      const errorBody = api.errorResponse ? safely(() => api.errorResponse!(request, code, call)) : topLevelError(schemas.response, code);
      if (code === UNKNOWN_SERVER_ERROR) logger.error('kafka handler failed', { api: api.name, error: e as Error });
      return respond(errorBody, code, (e as Error)?.message);
    }
    if (response === undefined) return { errorCode: NONE };
    try {
      return { frame: responseFrame(apiKey, version, correlationId, schemas.response, response as object), errorCode: topLevelCode(response) };
    } catch (e) {
      logger.error('kafka response could not be encoded', { api: api.name, apiVersion: version, error: e as Error });
      return respond(topLevelError(schemas.response, UNKNOWN_SERVER_ERROR), UNKNOWN_SERVER_ERROR, 'response encoding failed');
    }
  }

  /** The error answer for a request of a version the handler does not serve, decoded if the definition can. */
  private errorBody(api: AnyKafkaApi, response: MessageSchema, body: Buffer, code: number, call: KafkaCall): object | undefined {
    if (api.errorResponse) {
      const schemas = API_SCHEMAS.get(api.apiKey)!;
      const request = safely(() => decodeExactly(schemas.request, call.apiVersion, body));
      if (request !== undefined) {
        const answer = safely(() => api.errorResponse!(request, code, call));
        if (answer !== undefined) return answer;
      }
    }
    return topLevelError(response, code);
  }
}

/** Kafka's ILLEGAL_SASL_STATE: a request other than SASL's before authentication. */
const KAFKA_ILLEGAL_SASL_STATE = 34;

function safely<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

/** The response with every top-level `errorCode` field set to `code`, or undefined when it has none. */
export function topLevelError(schema: MessageSchema, code: number): object | undefined {
  if (!schema.fields.some((f) => f.name === 'errorCode')) return undefined;
  return { errorCode: code };
}

function topLevelCode(response: unknown): number {
  const code = (response as { errorCode?: unknown } | null)?.errorCode;
  return typeof code === 'number' ? code : NONE;
}

function responseFrame(apiKey: number, version: number, correlationId: number, schema: MessageSchema, body: object): Buffer {
  return frameOf(encodeResponseHeader(apiKey, version, correlationId), schema, version, body);
}

function frameOf(header: ByteWriter, schema: MessageSchema, version: number, body: object): Buffer {
  return sized(encodeMessage(schema, version, body, header).toBuffer());
}

/** The payload with its 4-byte size in front. */
function sized(payload: Buffer): Buffer {
  const size = Buffer.allocUnsafe(4);
  size.writeInt32BE(payload.length, 0);
  return Buffer.concat([size, payload]);
}
