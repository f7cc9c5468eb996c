/**
 * Binds one net.Server per host address on a common port and hands every socket to a single
 * http.Server (keep-alive on), or, on the HTTPS hosts' addresses, to a single https.Server
 * (TLS first, then the same request handler).
 */
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';

/** TLS for some of the addresses: one certificate (e.g. `*.web.test`) for all of them. */
export interface ListenTls {
  cert: string;
  key: string;
  /** The addresses that speak TLS. */
  ips: ReadonlySet<string>;
}

/** The bound listeners. */
export interface Listeners {
  port: number;
  http: Server;
  /** TLS handshakes completed so far, and how many of them resumed a session. */
  tls: { handshakes: number; resumed: number };
  /** Closes every listener and destroys every open socket. */
  close(): Promise<void>;
}

function listenOn(server: NetServer, ip: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    server.once('error', onError);
    server.listen({ host: ip, port, backlog: 511, exclusive: true }, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function closeServer(server: NetServer): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
  });
}

async function bindAll(
  ips: readonly string[],
  port: number,
  onSocket: (s: Socket) => void,
): Promise<{ port: number; servers: NetServer[] }> {
  const servers: NetServer[] = [];
  const make = (): NetServer => {
    const s = createNetServer({ noDelay: true }, onSocket);
    servers.push(s);
    return s;
  };
  try {
    const first = ips[0];
    if (first === undefined) throw new Error('no host addresses to bind');
    const s0 = make();
    await listenOn(s0, first, port);
    const addr = s0.address();
    const chosen = typeof addr === 'object' && addr !== null ? addr.port : port;
    const rest = ips.slice(1);
    for (let i = 0; i < rest.length; i += 500) {
      await Promise.all(rest.slice(i, i + 500).map((ip) => listenOn(make(), ip, chosen)));
    }
    return { port: chosen, servers };
  } catch (err) {
    await Promise.all(servers.map(closeServer));
    throw err;
  }
}

/**
 * Binds `ips` on `port` (0 = a free port, retried a few times if another address has it taken).
 * @param handler the http request listener.
 */
export async function listenHosts(
  ips: readonly string[],
  port: number,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  tls?: ListenTls,
): Promise<Listeners> {
  const http = createHttpServer({ keepAlive: true }, handler);
  const https =
    tls === undefined || tls.ips.size === 0
      ? null
      : createHttpsServer({ keepAlive: true, cert: tls.cert, key: tls.key }, handler);
  for (const server of https === null ? [http] : [http, https]) {
    server.keepAliveTimeout = 10_000;
    server.headersTimeout = 30_000;
    server.requestTimeout = 0;
  }
  // A failed handshake (a client that does not trust the certificate) only closes its socket.
  https?.on('tlsClientError', (_err, s) => s.destroy());
  const tlsCounts = { handshakes: 0, resumed: 0 };
  https?.on('secureConnection', (s) => {
    tlsCounts.handshakes++;
    if (s.isSessionReused()) tlsCounts.resumed++;
  });
  const sockets = new Set<Socket>();
  const onSocket = (s: Socket): void => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    if (https !== null && tls?.ips.has(s.localAddress ?? '') === true) https.emit('connection', s);
    else http.emit('connection', s);
  };
  let bound: { port: number; servers: NetServer[] } | null = null;
  let lastErr: unknown = null;
  for (let attempt = 0; attempt < (port === 0 ? 8 : 1) && bound === null; attempt++) {
    try {
      bound = await bindAll(ips, port, onSocket);
    } catch (err) {
      lastErr = err;
    }
  }
  if (bound === null)
    throw lastErr instanceof Error ? lastErr : new Error('could not bind the host addresses');
  const { servers } = bound;
  return {
    tls: tlsCounts,
    port: bound.port,
    http,
    async close() {
      const closing = Promise.all(servers.map(closeServer));
      for (const s of sockets) s.destroy();
      await closing;
      http.close();
      https?.close();
    },
  };
}
