// The container's configuration (lib/kafka/main.ts), from the environment infra/sluice-kafka-gateway.ts
// sets. Storage settings are the SLUICE_* variables every Sluice process reads (context.ts); these
// are the gateway's own:
//
//   KAFKA_HOST                            interface to listen on                      @default 0.0.0.0
//   KAFKA_PORT                            port to listen on                           @default 9092
//   KAFKA_ADVERTISED_HOST                 host clients are told to connect to (the load balancer's DNS name); required
//   KAFKA_ADVERTISED_PORT                 port clients are told to connect to         @default the listening port
//   SLUICE_KAFKA_AUTH                     'iam' (SASL/OAUTHBEARER, IAM tokens) or 'none'  @default iam
//   SLUICE_KAFKA_GATEWAY_ID               the id IAM tokens are bound to              @default KAFKA_ADVERTISED_HOST
//   SLUICE_KAFKA_ALLOWED_PRINCIPALS       comma-separated account ids and ARNs        @default every principal
//   SLUICE_KAFKA_STS_ENDPOINT             the one STS endpoint trusted (tests, private endpoints)  @default any regional STS endpoint
//   SLUICE_KAFKA_LINGER_MS                produce batching window across connections  @default the gateway's
//   SLUICE_KAFKA_CONNECTIONS_MAX_IDLE_MS  Kafka's connections.max.idle.ms             @default the gateway's
//   SLUICE_KAFKA_SOCKET_REQUEST_MAX_BYTES Kafka's socket.request.max.bytes            @default the gateway's
//   SLUICE_KAFKA_SHUTDOWN_GRACE_MS        how long SIGTERM waits for in-flight requests  @default 20000
import { parsePrincipalAllowList } from './auth/principal-allow-list.js';

export interface GatewayEnvironment {
  readonly host: string;
  readonly port: number;
  readonly advertisedHost: string;
  /** Undefined: the port the gateway listens on. */
  readonly advertisedPort?: number;
  readonly authentication: 'iam' | 'none';
  readonly gatewayId: string;
  readonly allowedPrincipals: readonly string[];
  readonly stsEndpoint?: string;
  readonly lingerMs?: number;
  readonly connectionsMaxIdleMs?: number;
  readonly socketRequestMaxBytes?: number;
  readonly shutdownGraceMs: number;
}

export function gatewayEnvironment(env: NodeJS.ProcessEnv = process.env): GatewayEnvironment {
  const integer = (name: string, min: number, max: number): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer ${min}-${max}, got '${raw}'`);
    return n;
  };
  const port = integer('KAFKA_PORT', 0, 65535) ?? 9092;
  const advertisedHost = env.KAFKA_ADVERTISED_HOST?.trim();
  if (!advertisedHost) throw new Error('KAFKA_ADVERTISED_HOST is required: the host name clients connect to (the load balancer\'s DNS name)');
  const authentication = env.SLUICE_KAFKA_AUTH || 'iam';
  if (authentication !== 'iam' && authentication !== 'none') throw new Error(`SLUICE_KAFKA_AUTH must be 'iam' or 'none', got '${authentication}'`);
  const allowedPrincipals = parsePrincipalAllowList((env.SLUICE_KAFKA_ALLOWED_PRINCIPALS ?? '').split(','));
  if (authentication === 'none' && allowedPrincipals.length > 0) throw new Error("SLUICE_KAFKA_ALLOWED_PRINCIPALS needs SLUICE_KAFKA_AUTH=iam");
  return {
    host: env.KAFKA_HOST || '0.0.0.0',
    port,
    advertisedHost,
    advertisedPort: integer('KAFKA_ADVERTISED_PORT', 1, 65535),
    authentication,
    gatewayId: (env.SLUICE_KAFKA_GATEWAY_ID || advertisedHost).toLowerCase(),
    allowedPrincipals,
    stsEndpoint: env.SLUICE_KAFKA_STS_ENDPOINT || undefined,
    lingerMs: integer('SLUICE_KAFKA_LINGER_MS', 0, 60_000),
    connectionsMaxIdleMs: integer('SLUICE_KAFKA_CONNECTIONS_MAX_IDLE_MS', 1000, 86_400_000),
    socketRequestMaxBytes: integer('SLUICE_KAFKA_SOCKET_REQUEST_MAX_BYTES', 1024, 2 ** 31 - 1),
    shutdownGraceMs: integer('SLUICE_KAFKA_SHUTDOWN_GRACE_MS', 0, 600_000) ?? 20_000,
  };
}
