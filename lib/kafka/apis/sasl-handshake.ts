// SaslHandshake (key 17), versions 0-1: the client names its SASL mechanism; the gateway answers
// with the mechanisms it enables (OAUTHBEARER with IAM tokens, lib/kafka/auth/) and remembers the
// choice for the SaslAuthenticate that follows, as Kafka's SaslServerAuthenticator does:
//   - a mechanism the gateway does not enable: UNSUPPORTED_SASL_MECHANISM and the list, then the
//     connection closes;
//   - a second handshake before authenticating: ILLEGAL_SASL_STATE, then the connection closes;
//   - a gateway without SASL (`npm start`): ILLEGAL_SASL_STATE, as a Kafka broker answers on a
//     PLAINTEXT listener.
// An authenticated connection may hand-shake again to re-authenticate before its session ends
// (KIP-368). After v0 the SASL exchange still travels in SaslAuthenticate requests: every client
// that finds SaslAuthenticate in ApiVersions uses it.
import { logger } from '../../observability/logger.js';
import type { KafkaApi } from '../api-handler.js';
import { KafkaError, NONE } from '../protocol/error-codes.js';
import { ApiKey, type SaslHandshakeRequest, type SaslHandshakeResponse } from '../protocol/messages.js';

export const saslHandshakeApi: KafkaApi<SaslHandshakeRequest, SaslHandshakeResponse> = {
  apiKey: ApiKey.SaslHandshake,
  name: 'SaslHandshake',
  minVersion: 0,
  maxVersion: 1,
  async handle(request, call) {
    const { connection, gateway } = call;
    const enabled = gateway.saslMechanisms.map((m) => m.name);
    if (enabled.length === 0) return { errorCode: KafkaError.ILLEGAL_SASL_STATE, mechanisms: [] };
    if (connection.saslMechanism !== undefined) {
      connection.close();
      return { errorCode: KafkaError.ILLEGAL_SASL_STATE, mechanisms: enabled };
    }
    if (!enabled.includes(request.mechanism)) {
      logger.info('kafka SASL mechanism refused', { connection: connection.id, clientId: call.clientId, mechanism: request.mechanism.slice(0, 64) });
      connection.close();
      return { errorCode: KafkaError.UNSUPPORTED_SASL_MECHANISM, mechanisms: enabled };
    }
    connection.saslMechanism = request.mechanism;
    return { errorCode: NONE, mechanisms: enabled };
  },
};
