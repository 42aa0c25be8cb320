// SaslAuthenticate (key 36), versions 0-1: the client's SASL message for the mechanism its
// SaslHandshake chose. The gateway's mechanisms are single-step (OAUTHBEARER with IAM tokens,
// lib/kafka/auth/iam-authenticator.ts), so one request either authenticates the connection or fails:
//   - success: the connection's principal is the caller's ARN until the session ends, which v1
//     reports as session_lifetime_ms (the token's remaining life); the client re-authenticates
//     before then (KIP-368), and a request after it closes the connection (connection.ts mayCall);
//   - failure: SASL_AUTHENTICATION_FAILED with the reason in error_message, then the connection
//     closes, as Kafka's brokers do;
//   - no SaslHandshake before it: ILLEGAL_SASL_STATE, then the connection closes.
// Re-authentication must keep the principal: a connection never changes whose it is.
import { logger } from '../../observability/logger.js';
import type { KafkaApi, KafkaCall } from '../api-handler.js';
import { SaslAuthenticationError } from '../auth/sasl-authentication-error.js';
import { KafkaError, NONE } from '../protocol/error-codes.js';
import { ApiKey, type SaslAuthenticateRequest, type SaslAuthenticateResponse } from '../protocol/messages.js';

const NO_BYTES = Buffer.alloc(0);

function refuse(call: KafkaCall, errorCode: number, errorMessage: string): SaslAuthenticateResponse {
  logger.warn('kafka SASL authentication failed', {
    connection: call.connection.id,
    remoteAddress: call.connection.remoteAddress,
    clientId: call.clientId,
    error: errorMessage,
  });
  call.connection.close();
  return { errorCode, errorMessage, authBytes: NO_BYTES, sessionLifetimeMs: 0n };
}

export const saslAuthenticateApi: KafkaApi<SaslAuthenticateRequest, SaslAuthenticateResponse> = {
  apiKey: ApiKey.SaslAuthenticate,
  name: 'SaslAuthenticate',
  minVersion: 0,
  maxVersion: 1,
  async handle(request, call) {
    const { connection, gateway } = call;
    const mechanism = gateway.saslMechanisms.find((m) => m.name === connection.saslMechanism);
    connection.saslMechanism = undefined;
    if (!mechanism) return refuse(call, KafkaError.ILLEGAL_SASL_STATE, 'SaslAuthenticate needs a successful SaslHandshake first');
    let session;
    try {
      session = await mechanism.authenticate(request.authBytes);
    } catch (e) {
      if (!(e instanceof SaslAuthenticationError)) {
        logger.error('kafka SASL mechanism failed', { connection: connection.id, error: e as Error });
        return refuse(call, KafkaError.SASL_AUTHENTICATION_FAILED, `${mechanism.name} authentication failed`);
      }
      return refuse(call, KafkaError.SASL_AUTHENTICATION_FAILED, `${mechanism.name} authentication failed: ${e.message}`);
    }
    if (connection.principal !== undefined && connection.principal !== session.principal) {
      return refuse(call, KafkaError.SASL_AUTHENTICATION_FAILED, `re-authentication cannot change the principal (was ${connection.principal})`);
    }
    const reauthenticated = connection.principal !== undefined;
    connection.principal = session.principal;
    connection.sessionExpiresAt = session.expiresAt;
    const lifetimeMs = Math.max(0, session.expiresAt - gateway.ctx.now());
    logger.info(reauthenticated ? 'kafka SASL re-authenticated' : 'kafka SASL authenticated', {
      connection: connection.id,
      remoteAddress: connection.remoteAddress,
      clientId: call.clientId,
      principal: session.principal,
      sessionLifetimeMs: lifetimeMs,
    });
    return { errorCode: NONE, errorMessage: null, authBytes: NO_BYTES, sessionLifetimeMs: BigInt(lifetimeMs) };
  },
};
