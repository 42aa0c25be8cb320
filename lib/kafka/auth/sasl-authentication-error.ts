// Why a SASL exchange failed. The message goes back to the client in SaslAuthenticate's
// error_message (as Kafka's brokers send theirs), so it names the check that failed and never
// echoes secrets: no token, no signature, no session token.
export class SaslAuthenticationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SaslAuthenticationError';
  }
}
