// The contract between the gateway (server.ts) and each Kafka API it serves. A handler gets the
// decoded request (every field of its definition present, see protocol/codec.ts) and returns the
// response; fields it leaves out are written as their defaults, fields the version lacks are
// ignored. Handlers are registered in apis/index.ts; ApiVersions advertises exactly those.
import type { KafkaConnection } from './connection.js';
import type { GatewayServices, ServedApi } from './gateway-services.js';

export interface KafkaApi<Req, Res> extends ServedApi {
  /** Kafka's API key (protocol/messages.ts `ApiKey`). */
  readonly apiKey: number;
  /** Kafka's name of the API: 'Produce'. */
  readonly name: string;
  /**
   * The versions advertised and served; min is 0 for every API (librdkafka tests single versions
   * to turn features on, see README "Kafka clients"). Others are answered UNSUPPORTED_VERSION.
   */
  readonly minVersion: number;
  readonly maxVersion: number;
  /**
   * Answers one request. `undefined` sends no response (Produce with acks=0). A thrown SluiceError
   * is answered with its Kafka code in every error field of the response (server.ts errorResponse);
   * anything else is logged and answered UNKNOWN_SERVER_ERROR, so handlers map expected failures
   * to Kafka's codes themselves.
   */
  handle(request: Req, call: KafkaCall): Promise<Res | undefined>;
  /**
   * The response that reports `errorCode` for everything the request asked about (each topic,
   * partition, group), as Kafka's AbstractRequest.getErrorResponse builds it. Used when the
   * handler throws and when the version is one this handler does not serve. Without it the
   * server sets the response's top-level `errorCode` fields, and closes the connection when the
   * response has none (Kafka's answer to a request it cannot answer).
   */
  errorResponse?(request: Req, errorCode: number, call: KafkaCall): Res;
}

/** One request's context. */
export interface KafkaCall {
  readonly apiVersion: number;
  readonly correlationId: number;
  readonly clientId: string | null;
  readonly gateway: GatewayServices;
  readonly connection: KafkaConnection;
}

/** A handler whose request and response types are erased, as the registry holds them. */
export type AnyKafkaApi = KafkaApi<any, any>;
