// The Kafka wire-protocol gateway: a TCP (or TLS) server that speaks Kafka's binary protocol over
// the same log, metadata and group layers the Lambda handlers use. It is stateless: any number of
// gateways can serve any partition, and each names itself the leader of every partition.
// The listening socket and TLS are listener.ts's; framing, ordering and connection limits
// gateway-connection.ts's; decoding, dispatch and error answers request-dispatcher.ts's; the APIs
// themselves are apis/.
import { createHash } from 'node:crypto';
import type { SluiceContext } from '../context.js';
import { logger } from '../observability/logger.js';
import type { AnyKafkaApi } from './api-handler.js';
import { KAFKA_APIS } from './apis/index.js';
import { FetchWaiter } from './fetch-waiter.js';
import { GatewayConnection } from './gateway-connection.js';
import { GatewayMetrics, type GatewayStats } from './gateway-metrics.js';
import { HandshakeFailureLog } from './handshake-failure-log.js';
import { type KafkaGatewayTls, listen } from './listener.js';
import type { GatewayServices, GatewaySettings } from './gateway-services.js';
import { ProduceBatcher } from './produce-batcher.js';
import { RequestDispatcher } from './request-dispatcher.js';
import type { SaslMechanism } from './auth/iam-authenticator.js';

export interface KafkaGatewayOptions {
  /** Interface to listen on. @default '127.0.0.1' */
  readonly host?: string;
  /** Port to listen on; 0 picks a free one (KafkaGateway.port). @default 9092 */
  readonly port?: number;
  /** Host clients are told to connect to (Metadata). @default host, or 'localhost' when host is a wildcard */
  readonly advertisedHost?: string;
  /** Port clients are told to connect to. @default the listening port */
  readonly advertisedPort?: number;
  /** The broker id Metadata reports for this gateway. @default 0 */
  readonly nodeId?: number;
  /** Kafka's socket.request.max.bytes: a larger frame closes the connection. @default 104857600 */
  readonly socketRequestMaxBytes?: number;
  /** Kafka's connections.max.idle.ms. @default 600000 */
  readonly connectionsMaxIdleMs?: number;
  /** The cluster id Metadata reports. @default derived from the table, bucket and prefix */
  readonly clusterId?: string;
  /** The SASL mechanisms offered (auth/: OAUTHBEARER with IAM tokens). @default [] */
  readonly saslMechanisms?: readonly SaslMechanism[];
  /** Only ApiVersions and SASL until a connection authenticates. @default true when saslMechanisms are given */
  readonly requireAuthentication?: boolean;
  /** The APIs served. @default KAFKA_APIS */
  readonly apis?: readonly AnyKafkaApi[];
  /** Produce batching: how long a window collects produce requests of all connections. @default 25 */
  readonly produceLingerMs?: number;
  /** Produce batching: bytes at which a window is written at once. @default 8 MiB */
  readonly produceBatchBytes?: number;
  /** How often per-API metrics are published as EMF. @default 60000 */
  readonly metricsIntervalMs?: number;
  /**
   * Terminate TLS (TLS 1.2 or later) with this certificate and key instead of serving plain TCP:
   * Kafka's SSL (or SASL_SSL) listener. @default plain TCP
   */
  readonly tls?: KafkaGatewayTls;
}

export interface KafkaGateway {
  /** The port it listens on. */
  readonly port: number;
  /** Whether it terminates TLS. */
  readonly tls: boolean;
  readonly services: GatewayServices;
  /** Requests, errors and latency per API, and connections, since the start. */
  stats(): GatewayStats;
  /**
   * Stops listening, closes every connection and runs the services' close hooks. With a grace
   * period, connections first stop reading, answer the requests already in flight and end; those
   * still open when it is over are dropped.
   */
  close(options?: { readonly gracePeriodMs?: number }): Promise<void>;
}

export const DEFAULT_SOCKET_REQUEST_MAX_BYTES = 104_857_600;
export const DEFAULT_CONNECTIONS_MAX_IDLE_MS = 600_000;

/** Kafka's cluster id form (22 characters of base64url) of one Sluice's table, bucket and prefix. */
export function clusterIdOf(ctx: SluiceContext): string {
  return createHash('sha256').update(`${ctx.table}\n${ctx.bucket}\n${ctx.prefix}`).digest().subarray(0, 16).toString('base64url');
}

export async function startKafkaGateway(ctx: SluiceContext, options: KafkaGatewayOptions = {}): Promise<KafkaGateway> {
  const host = options.host ?? '127.0.0.1';
  const settings: GatewaySettings = {
    socketRequestMaxBytes: options.socketRequestMaxBytes ?? DEFAULT_SOCKET_REQUEST_MAX_BYTES,
    connectionsMaxIdleMs: options.connectionsMaxIdleMs ?? DEFAULT_CONNECTIONS_MAX_IDLE_MS,
  };
  const metrics = new GatewayMetrics(ctx.metrics);
  const handshakeFailures = new HandshakeFailureLog((message, fields) => logger.warn(message, fields));
  const connections = new Set<GatewayConnection>();
  let closing: Promise<void> | undefined;
  let dispatcher: RequestDispatcher | undefined;
  const listener = await listen(
    { host, port: options.port ?? 9092, tls: options.tls },
    {
      onConnection: (socket) => {
        // A TLS handshake that completes while the gateway closes gets no connection.
        if (closing || !dispatcher) {
          socket.destroy();
          return;
        }
        connections.add(new GatewayConnection(socket, dispatcher, metrics, settings, (c) => connections.delete(c)));
      },
      onHandshakeError: (error, peer) => {
        metrics.tlsHandshakeError();
        handshakeFailures.failed({ peer, code: error.code, reason: handshakeFailure(error) });
      },
    },
  );
  const server = listener.server;
  const port = listener.port;
  const wildcard = host === '0.0.0.0' || host === '::';

  const apis = options.apis ?? KAFKA_APIS;
  const closeHooks: (() => Promise<void> | void)[] = [];
  const produceBatcher = new ProduceBatcher(ctx, { lingerMs: options.produceLingerMs, batchBytes: options.produceBatchBytes });
  const fetchWaiter = new FetchWaiter(ctx);
  produceBatcher.onAppended((topic, partition, logEndOffset) => fetchWaiter.appended(topic, partition, logEndOffset));
  closeHooks.push(() => fetchWaiter.close(), () => produceBatcher.close());
  const services: GatewayServices = {
    ctx,
    nodeId: options.nodeId ?? 0,
    advertisedHost: options.advertisedHost ?? (wildcard ? 'localhost' : host),
    advertisedPort: options.advertisedPort ?? port,
    clusterId: options.clusterId ?? clusterIdOf(ctx),
    settings,
    apis,
    requireAuthentication: options.requireAuthentication ?? (options.saslMechanisms ?? []).length > 0,
    saslMechanisms: options.saslMechanisms ?? [],
    produceBatcher,
    fetchWaiter,
    onClose: (hook) => {
      closeHooks.push(hook);
    },
  };
  dispatcher = new RequestDispatcher(services, apis, metrics);
  server.on('error', (e) => logger.error('kafka gateway server error', { error: e }));
  const publish = () => {
    handshakeFailures.endInterval();
    try {
      metrics.publish();
    } catch (e) {
      logger.warn('kafka gateway metrics not published', { error: e as Error });
    }
  };
  const publisher = setInterval(publish, options.metricsIntervalMs ?? 60_000);
  publisher.unref();
  logger.info('kafka gateway listening', { host, port, tls: listener.tls, advertisedHost: services.advertisedHost, advertisedPort: services.advertisedPort });

  return {
    port,
    tls: listener.tls,
    services,
    stats: () => metrics.stats(),
    close: ({ gracePeriodMs = 0 } = {}) =>
      (closing ??= (async () => {
        clearInterval(publisher);
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        if (gracePeriodMs > 0 && connections.size > 0) {
          for (const c of connections) c.close();
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([stopped, new Promise<void>((resolve) => (timer = setTimeout(resolve, gracePeriodMs)))]);
          clearTimeout(timer);
        }
        for (const c of connections) c.destroy();
        listener.destroyAll(); // clients still in their TLS handshake
        await stopped;
        for (const hook of closeHooks) await hook();
        publish();
      })()),
  };
}

/** What a failed TLS handshake most likely was, for the operator reading the log. */
function handshakeFailure(error: Error & { code?: string }): string {
  if (error.code === 'ECONNRESET') return 'the client closed the connection during the handshake (did it refuse the certificate?)';
  // OpenSSL's "<hex>:error:<code>:SSL routines:<function>:<reason>:<file>:<line>:"
  const reason = /:error:[0-9A-F]+:[^:]*:[^:]*:([^:\n]+)/.exec(error.message)?.[1] ?? error.message.split('\n')[0]!;
  if (error.code === 'ERR_SSL_WRONG_VERSION_NUMBER' || error.code === 'ERR_SSL_HTTP_REQUEST') return `${reason} (not a TLS client: plain TCP?)`;
  return reason;
}
