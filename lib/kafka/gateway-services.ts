// What every handler may use besides its request: the Sluice context, the gateway's identity
// as Metadata advertises it, its settings and the registry of APIs. One per gateway; handlers
// that need shared machinery (the produce batcher, the group coordinator's caches) add it here.
import type { SluiceContext } from '../context.js';
import type { SaslMechanism } from './auth/iam-authenticator.js';
import type { FetchWaiter } from './fetch-waiter.js';
import type { ProduceBatcher } from './produce-batcher.js';

export interface GatewaySettings {
  /** Kafka's socket.request.max.bytes: larger frames close the connection. @default 104857600 */
  readonly socketRequestMaxBytes: number;
  /** Kafka's connections.max.idle.ms: a connection with no request for this long is closed. @default 600000 */
  readonly connectionsMaxIdleMs: number;
}

/** An API and the versions the gateway serves of it (api-handler.ts's KafkaApi is one). */
export interface ServedApi {
  readonly apiKey: number;
  readonly name: string;
  readonly minVersion: number;
  readonly maxVersion: number;
}

export interface GatewayServices {
  readonly ctx: SluiceContext;
  /** The broker id Metadata names as leader of every partition. @default 0 */
  readonly nodeId: number;
  /** Host and port clients are told to connect to (Metadata's brokers). */
  readonly advertisedHost: string;
  readonly advertisedPort: number;
  /** The cluster id Metadata reports: derived from the table and bucket, the same for every gateway of one Sluice. */
  readonly clusterId: string;
  readonly settings: GatewaySettings;
  /** The APIs this gateway serves (ApiVersions lists them). */
  readonly apis: readonly ServedApi[];
  /**
   * When true, a connection may call only ApiVersions, SaslHandshake and SaslAuthenticate until
   * SASL sets its principal (connection.ts mayCall). @default false
   */
  readonly requireAuthentication: boolean;
  /** The SASL mechanisms SaslHandshake offers (auth/: OAUTHBEARER with IAM tokens). @default [] */
  readonly saslMechanisms: readonly SaslMechanism[];
  /** Produce batching across this gateway's connections (one intake object per window). */
  readonly produceBatcher: ProduceBatcher;
  /** Fetch long-polls: waits for records, woken by this gateway's appends and by polling STATE. */
  readonly fetchWaiter: FetchWaiter;
  /** Registers work for the gateway's close (flushing a batcher), run after the connections close. */
  onClose(hook: () => Promise<void> | void): void;
}
