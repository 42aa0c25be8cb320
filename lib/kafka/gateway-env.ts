// The container's configuration (lib/kafka/main.ts), from the environment infra/sluice-kafka-gateway.ts
// sets. Storage settings are the SLUICE_* variables every Sluice process reads (context.ts); these
// are the gateway's own:
//
//   KAFKA_HOST                            interface to listen on                      @default 0.0.0.0
//   KAFKA_PORT                            port to listen on                           @default 9092
//   KAFKA_ADVERTISED_HOST                 host clients are told to connect to (the load balancer's DNS name,
//                                         or without one the Cloud Map name every task answers to); required
//   KAFKA_ADVERTISED_PORT                 port clients are told to connect to         @default the listening port
//   KAFKA_TLS_CERT                        the certificate (chain, leaf first), PEM contents: the gateway
//                                         terminates TLS itself                       @default plain TCP
//   KAFKA_TLS_KEY                         its private key, PEM contents; both or neither
//   SLUICE_KAFKA_TLS_HANDSHAKE_TIMEOUT_MS how long a client may take to finish its TLS handshake  @default 10000
//   SLUICE_KAFKA_AUTH                     'iam' (SASL/OAUTHBEARER, IAM tokens) or 'none'  @default iam
//   SLUICE_KAFKA_GATEWAY_ID               the id IAM tokens are bound to              @default KAFKA_ADVERTISED_HOST
//   SLUICE_KAFKA_ALLOWED_PRINCIPALS       comma-separated account ids and ARNs        @default every principal
//   SLUICE_KAFKA_STS_ENDPOINT             the one STS endpoint trusted (tests, private endpoints)  @default any regional STS endpoint
//   SLUICE_KAFKA_LINGER_MS                produce batching window across connections  @default the gateway's
//   SLUICE_KAFKA_CONNECTIONS_MAX_IDLE_MS  Kafka's connections.max.idle.ms             @default the gateway's
//   SLUICE_KAFKA_SOCKET_REQUEST_MAX_BYTES Kafka's socket.request.max.bytes            @default the gateway's
//   SLUICE_KAFKA_SHUTDOWN_GRACE_MS        how long SIGTERM waits for in-flight requests  @default 20000
//
// ECS injects the TLS pair from a Secrets Manager secret's JSON fields (`certificate`, `privateKey`);
// a PEM pasted as one line with `\n` escapes is read as the lines it stands for.
import { X509Certificate, createPrivateKey } from 'node:crypto';
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
  /** Undefined: plain TCP. */
  readonly tls?: { readonly cert: string; readonly key: string; readonly handshakeTimeoutMs?: number };
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
  if (!advertisedHost) throw new Error("KAFKA_ADVERTISED_HOST is required: the host name clients connect to (the load balancer's or the Cloud Map service's DNS name)");
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
    tls: tlsOf(env, integer('SLUICE_KAFKA_TLS_HANDSHAKE_TIMEOUT_MS', 100, 600_000)),
  };
}

/** KAFKA_TLS_CERT and KAFKA_TLS_KEY, checked: both or neither, PEM, and a key that belongs to the certificate. */
function tlsOf(env: NodeJS.ProcessEnv, handshakeTimeoutMs: number | undefined): GatewayEnvironment['tls'] {
  const pem = (name: string): string | undefined => {
    const raw = env[name]?.trim();
    if (!raw) return undefined;
    return raw.includes('\n') ? raw : raw.replace(/\\n/g, '\n');
  };
  const cert = pem('KAFKA_TLS_CERT');
  const key = pem('KAFKA_TLS_KEY');
  if (!cert && !key) {
    if (handshakeTimeoutMs !== undefined) throw new Error('SLUICE_KAFKA_TLS_HANDSHAKE_TIMEOUT_MS needs KAFKA_TLS_CERT and KAFKA_TLS_KEY: without them the gateway serves plain TCP');
    return undefined;
  }
  if (!cert || !key) {
    const [given, missing] = cert ? ['KAFKA_TLS_CERT', 'KAFKA_TLS_KEY'] : ['KAFKA_TLS_KEY', 'KAFKA_TLS_CERT'];
    throw new Error(`${given} is set but ${missing} is not: the gateway terminates TLS with both (PEM contents) or serves plain TCP with neither`);
  }
  if (!/-----BEGIN CERTIFICATE-----/.test(cert)) throw new Error('KAFKA_TLS_CERT is not a PEM certificate: it must contain -----BEGIN CERTIFICATE-----');
  // The key's text is never quoted in an error: it is a secret.
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key)) throw new Error('KAFKA_TLS_KEY is not a PEM private key: it must contain -----BEGIN PRIVATE KEY----- (or RSA/EC PRIVATE KEY)');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch (e) {
    throw new Error(`KAFKA_TLS_CERT does not hold a readable certificate: ${(e as Error).message}`);
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch (e) {
    throw new Error(`KAFKA_TLS_KEY does not hold a readable private key (an encrypted key is not supported): ${(e as Error).message}`);
  }
  if (!certificate.checkPrivateKey(privateKey)) throw new Error(`KAFKA_TLS_KEY is not the private key of the certificate in KAFKA_TLS_CERT (${certificate.subject.replace(/\n/g, ', ')})`);
  return handshakeTimeoutMs === undefined ? { cert, key } : { cert, key, handshakeTimeoutMs };
}
