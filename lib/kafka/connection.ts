// One client connection as handlers see it. `principal` is unset until SASL authenticates the
// connection; GatewayServices.requireAuthentication decides whether anything else may be called
// before that (server.ts asks `mayCall`).
export interface KafkaConnection {
  /** Unique within the process: `<remote address>:<port>#<n>`. */
  readonly id: string;
  readonly remoteAddress: string;
  /** The authenticated principal (`User:alice`, an IAM ARN), set by the SASL handlers. */
  principal?: string;
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

/** Whether the connection may call this API now. */
export function mayCall(connection: KafkaConnection, apiKey: number, requireAuthentication: boolean): boolean {
  return !requireAuthentication || connection.principal !== undefined || PRE_AUTHENTICATION_API_KEYS.has(apiKey);
}
