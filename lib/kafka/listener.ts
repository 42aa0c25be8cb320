// The gateway's listening socket: plain TCP, or TLS terminated by the gateway itself (node:tls)
// so that it can run without a load balancer in front. Either way it hands the server ready
// sockets (for TLS: after the handshake); framing, SASL and everything else see no difference.
// A TLS client that fails its handshake (wrong CA, a plain-TCP client, random bytes, an old
// protocol) or does not finish it within the handshake timeout is disconnected and reported;
// the TCP sockets not yet handed over are tracked so that closing the gateway ends them too.
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';

export interface KafkaGatewayTls {
  /** The certificate (chain, leaf first), PEM: what clients verify the gateway's host name against. */
  readonly cert: string | Buffer;
  /** The certificate's private key, PEM. */
  readonly key: string | Buffer;
  /**
   * A client that has not finished its handshake this long after connecting is disconnected,
   * however slowly it keeps sending: one that connects and sends nothing (or trickles a byte at a
   * time) does not hold a socket. @default 10000
   */
  readonly handshakeTimeoutMs?: number;
}

export const DEFAULT_TLS_HANDSHAKE_TIMEOUT_MS = 10_000;

/** The oldest TLS version accepted: TLS 1.0 and 1.1 are deprecated (RFC 8996). */
export const TLS_MIN_VERSION = 'TLSv1.2';

export interface ListenerHandlers {
  /** A client ready for Kafka frames (a TLS client: after its handshake). */
  onConnection(socket: Socket): void;
  /** A TLS client that failed its handshake or timed out; it is already being disconnected. */
  onHandshakeError(error: Error & { code?: string }, peer: string): void;
}

export interface Listener {
  readonly server: Server;
  readonly port: number;
  readonly tls: boolean;
  /** Destroys every TCP socket still open: connections and clients still in their TLS handshake. */
  destroyAll(): void;
}

export async function listen(options: { readonly host: string; readonly port: number; readonly tls?: KafkaGatewayTls }, handlers: ListenerHandlers): Promise<Listener> {
  const tls = options.tls;
  // Every TCP socket (for TLS: before and under the TLS one), and who it came from.
  const sockets = new Set<Socket>();
  const peers = new WeakMap<Socket, string>();
  let server: Server;
  if (tls) {
    const tlsServer = createTlsServer({
      cert: tls.cert,
      key: tls.key,
      minVersion: TLS_MIN_VERSION,
      handshakeTimeout: tls.handshakeTimeoutMs ?? DEFAULT_TLS_HANDSHAKE_TIMEOUT_MS,
    });
    tlsServer.on('secureConnection', (socket: TLSSocket) => handlers.onConnection(socket));
    tlsServer.on('tlsClientError', (error: Error & { code?: string }, socket: TLSSocket) => {
      // node leaves a socket whose handshake timed out open: ending it is the listener's job.
      socket.destroy();
      handlers.onHandshakeError(error, peerOf(socket, peers));
    });
    server = tlsServer;
  } else {
    server = createTcpServer();
    server.on('connection', (socket: Socket) => handlers.onConnection(socket));
  }
  // A TLS server's 'connection' is the TCP socket, before its handshake.
  server.on('connection', (socket: Socket) => {
    peers.set(socket, `${socket.remoteAddress}:${socket.remotePort}`);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    server,
    port: typeof address === 'object' && address ? address.port : options.port,
    tls: Boolean(tls),
    destroyAll: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}

/**
 * `address:port` of a TLS client. One that hung up mid-handshake (typically: it refused the
 * certificate) has no address any more on its TLS socket; the one noted for the TCP socket under
 * it (node's `_parent`) when it connected still says who it was.
 */
function peerOf(socket: TLSSocket, peers: WeakMap<Socket, string>): string {
  if (socket.remoteAddress) return `${socket.remoteAddress}:${socket.remotePort}`;
  const tcp = (socket as TLSSocket & { _parent?: Socket })._parent;
  return (tcp && peers.get(tcp)) ?? 'unknown';
}
