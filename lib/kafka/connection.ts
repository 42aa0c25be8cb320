// One client connection as handlers see it. `principal` is unset until SASL authenticates the
// connection; GatewayServices.requireAuthentication decides whether anything else may be called
// before that (server.ts asks `mayCall`). A SASL session ends at `sessionExpiresAt` unless the
// client re-authenticates first (KIP-368); after it, a request other than ApiVersions and SASL's
// closes the connection, as Kafka's brokers close an expired session's.
export interface KafkaConnection {
  /** Unique within the process: `<remote address>:<port>#<n>`. */
  readonly id: string;
  readonly remoteAddress: string;
  /** The authenticated principal (`User:alice`, an IAM ARN), set by the SASL handlers. */
  principal?: string;
  /** When the SASL session ends (ms since epoch, the gateway clock), set by SaslAuthenticate. */
  sessionExpiresAt?: number;
  /** The mechanism the last SaslHandshake chose, until the SaslAuthenticate that uses it. */
  saslMechanism?: string;
  /** Aborted when the connection closes: work done for it (a fetch's long-poll) stops. */
  readonly signal: AbortSignal;
  /** Closes the connection after the responses already queued on it are written. */
  close(): void;
  /**
   * Runs `task` after every earlier task of the same `lane` on this connection has settled: for
   * handlers whose requests must take effect in the order they arrived (Kafka applies a
   * connection's requests one at a time), while other requests keep running concurrently.
   */
  serially<T>(lane: string, task: () => Promise<T>): Promise<T>;
}

/** APIs a connection may call before it is authenticated: discovering versions and SASL itself. */
export const PRE_AUTHENTICATION_API_KEYS: ReadonlySet<number> = new Set([
  18, // ApiVersions
  17, // SaslHandshake
  36, // SaslAuthenticate
]);

/** Whether the connection may call this API now (`now` in ms since epoch). */
export function mayCall(connection: KafkaConnection, apiKey: number, requireAuthentication: boolean, now: number): boolean {
  if (!requireAuthentication || PRE_AUTHENTICATION_API_KEYS.has(apiKey)) return true;
  return connection.principal !== undefined && (connection.sessionExpiresAt === undefined || now < connection.sessionExpiresAt);
}
