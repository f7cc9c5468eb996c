/**
 * Binds one net.Server per host address on a common port and hands every socket to a single
 * http.Server (keep-alive on).
 */
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';

/** The bound listeners. */
export interface Listeners {
  port: number;
  http: Server;
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
): Promise<Listeners> {
  const http = createHttpServer({ keepAlive: true }, handler);
  http.keepAliveTimeout = 10_000;
  http.headersTimeout = 30_000;
  http.requestTimeout = 0;
  const sockets = new Set<Socket>();
  const onSocket = (s: Socket): void => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    http.emit('connection', s);
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
    port: bound.port,
    http,
    async close() {
      const closing = Promise.all(servers.map(closeServer));
      for (const s of sockets) s.destroy();
      await closing;
      http.close();
    },
  };
}
