// Failed TLS handshakes are logged with their peer, at most `perInterval` an interval: a client
// retrying with the wrong CA, or a port scanner, would otherwise write a warning per attempt. The
// ones left out are counted and reported in one line when the interval ends (the gateway's
// metrics publication); every failure is in the KafkaTlsHandshakeErrors metric either way.

export type WarningWriter = (message: string, fields: Record<string, unknown>) => void;

export const DEFAULT_HANDSHAKE_WARNINGS_PER_INTERVAL = 10;

export class HandshakeFailureLog {
  private logged = 0;
  private suppressed = 0;

  constructor(
    private readonly warn: WarningWriter,
    private readonly perInterval = DEFAULT_HANDSHAKE_WARNINGS_PER_INTERVAL,
  ) {}

  /** One failed handshake: logged unless this interval already logged `perInterval`. */
  failed(fields: Record<string, unknown>): void {
    if (this.logged < this.perInterval) {
      this.logged++;
      this.warn('kafka TLS handshake failed', fields);
    } else {
      this.suppressed++;
    }
  }

  /** Ends the interval: reports how many failures went unlogged, if any. */
  endInterval(): void {
    if (this.suppressed > 0) this.warn('kafka TLS handshake failures not logged', { count: this.suppressed, logged: this.logged });
    this.logged = 0;
    this.suppressed = 0;
  }
}
