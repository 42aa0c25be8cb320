// The Kafka gateway's process: the container entry point (Dockerfile, infra/sluice-kafka-gateway.ts).
// Reads its configuration from the environment (gateway-env.ts; storage from the SLUICE_*
// variables, AWS credentials and region from the task role), terminates TLS itself when
// KAFKA_TLS_CERT and KAFKA_TLS_KEY are set (no load balancer in front), authenticates clients with
// IAM tokens over SASL/OAUTHBEARER unless SLUICE_KAFKA_AUTH=none, and serves until SIGTERM, on
// which it stops accepting connections, lets the requests in flight finish for up to
// SLUICE_KAFKA_SHUTDOWN_GRACE_MS, closes every connection and exits 0. ECS sends SIGTERM after
// the load balancer has drained the task or, without one, after it has deregistered the task from
// the Cloud Map service (its DNS name no longer lists the task), and SIGKILL after the
// container's stop timeout (30 s). Clients whose connection closes reconnect through that DNS
// name to another task.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { createClients, createContext } from '../context.js';
import { logger } from '../observability/logger.js';
import { IamOAuthBearerAuthenticator } from './auth/iam-authenticator.js';
import { gatewayEnvironment } from './gateway-env.js';
import { startKafkaGateway } from './server.js';

async function main(): Promise<void> {
  const config = gatewayEnvironment();
  const ctx = createContext(createClients());
  const saslMechanisms =
    config.authentication === 'iam'
      ? [new IamOAuthBearerAuthenticator({ gatewayId: config.gatewayId, allowedPrincipals: config.allowedPrincipals, stsEndpoint: config.stsEndpoint, now: ctx.now })]
      : [];
  const certificate = config.tls ? new X509Certificate(config.tls.cert) : undefined;
  if (certificate) {
    const host = config.advertisedHost;
    if (!(isIP(host) ? certificate.checkIP(host) : certificate.checkHost(host))) {
      logger.warn('the TLS certificate does not cover KAFKA_ADVERTISED_HOST: clients that verify host names will refuse it', { advertisedHost: host, subjectAltName: certificate.subjectAltName });
    }
    if (Date.parse(certificate.validTo) < Date.now()) logger.warn('the TLS certificate has expired: clients will refuse it', { validTo: certificate.validTo });
  }
  const gateway = await startKafkaGateway(ctx, {
    host: config.host,
    port: config.port,
    advertisedHost: config.advertisedHost,
    advertisedPort: config.advertisedPort,
    connectionsMaxIdleMs: config.connectionsMaxIdleMs,
    socketRequestMaxBytes: config.socketRequestMaxBytes,
    produceLingerMs: config.lingerMs,
    saslMechanisms,
    requireAuthentication: saslMechanisms.length > 0,
    tls: config.tls,
  });
  // What the log and metadata layers record (records and bytes in, append latency…) is flushed by
  // the Lambda invocation wrapper there; here, once a minute and at the end.
  const flusher = setInterval(() => ctx.metrics.flush(), 60_000);
  flusher.unref();

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info('kafka gateway stopping', { signal, gracePeriodMs: config.shutdownGraceMs });
    try {
      await gateway.close({ gracePeriodMs: config.shutdownGraceMs });
      clearInterval(flusher);
      ctx.metrics.flush();
      logger.info('kafka gateway stopped', { signal });
      process.exit(0);
    } catch (e) {
      logger.error('kafka gateway did not stop cleanly', { error: e as Error });
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // Last: whoever waits for this line (a test, an operator) may signal the process at once.
  logger.info('kafka gateway started', {
    port: gateway.port,
    advertisedHost: config.advertisedHost,
    advertisedPort: gateway.services.advertisedPort,
    tls: gateway.tls,
    ...(certificate && { certificateSubject: certificate.subject.replace(/\n/g, ', '), certificateValidTo: certificate.validTo }),
    authentication: config.authentication,
    produceLingerMs: gateway.services.produceBatcher.lingerMs,
    gatewayId: config.gatewayId,
    allowedPrincipals: config.allowedPrincipals.length,
    table: ctx.table,
    bucket: ctx.bucket,
  });
}

main().catch((e: unknown) => {
  logger.error('kafka gateway failed to start', { error: e as Error });
  process.exit(1);
});
