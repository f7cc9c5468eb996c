import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomInt } from 'node:crypto';

/** One answer of a tiny web's host. */
export interface Reply {
  status?: number;
  /** Content-Type (default text/html). */
  type?: string;
  /** Location, for a redirect. */
  location?: string;
  body: string | Buffer;
}

/** A host: its replies by path (with query), or a function of the path (null: 404). */
export type Site = Record<string, Reply> | ((path: string) => Reply | null);

/** A few hand-written hosts on loopback addresses, for tests that need exact documents. */
export interface TinyWeb {
  port: number;
  /** Host → IPv4, for CRAWLER_DNS_MAP. */
  dnsMap: Record<string, string>;
  /** `http://<host>:<port><path>`. */
  url(host: string, path: string): string;
  /** Paths requested of a host, in order. */
  requested(host: string): string[];
  close(): Promise<void>;
}

/**
 * Serves each host on its own loopback address (127.x.y.n, one port for all), so the crawler
 * treats them as separate hosts and IPs; requests are routed by their Host header and logged.
 * Unknown paths (robots.txt included, unless given) answer 404.
 */
export async function startTinyWeb(sites: Record<string, Site>): Promise<TinyWeb> {
  const log: Array<{ host: string; path: string }> = [];
  const hosts = Object.keys(sites);
  // A /16 of the loopback range of its own, so concurrent test files do not collide.
  const net = `127.${randomInt(128, 250)}.${randomInt(1, 250)}`;
  const dnsMap = Object.fromEntries(hosts.map((h, i) => [h, `${net}.${i + 1}`]));
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const path = req.url ?? '/';
    log.push({ host, path });
    const site = sites[host];
    const reply = site === undefined ? null : typeof site === 'function' ? site(path) : site[path];
    if (!reply) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res
      .writeHead(reply.status ?? 200, {
        'content-type': reply.type ?? 'text/html; charset=utf-8',
        ...(reply.location ? { location: reply.location } : {}),
      })
      .end(reply.body);
  };
  const servers: Server[] = [];
  let port = 0;
  for (const host of hosts) {
    const server = createServer(handler);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject).listen(port, dnsMap[host], () => resolve());
    });
    const address = server.address();
    if (port === 0 && address !== null && typeof address === 'object') port = address.port;
    servers.push(server);
  }
  return {
    port,
    dnsMap,
    url: (host, path) => `http://${host}:${port}${path}`,
    requested: (host) => log.filter((e) => e.host === host).map((e) => e.path),
    async close() {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.closeAllConnections();
              s.close(() => resolve());
            }),
        ),
      );
    },
  };
}

/** A page with its title and links. */
export function page(title: string, links: string[] = []): Reply {
  const a = links.map((l) => `<a href="${l}">${l}</a>`).join(' ');
  return {
    body: `<!doctype html><html><head><title>${title}</title></head><body>${a}</body></html>`,
  };
}

/** A urlset listing `locs`, each with the given lastmod and priority. */
export function urlset(locs: string[], extra = ''): Reply {
  const items = locs.map((l) => `<url><loc>${l}</loc>${extra}</url>`).join('');
  return {
    type: 'application/xml',
    body: `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${items}</urlset>`,
  };
}

/** A sitemap index listing `locs`. */
export function sitemapIndex(locs: string[]): Reply {
  const items = locs.map((l) => `<sitemap><loc>${l}</loc></sitemap>`).join('');
  return {
    type: 'application/xml',
    body: `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${items}</sitemapindex>`,
  };
}
