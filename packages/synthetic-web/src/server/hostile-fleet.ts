/**
 * The hostile fleet: many loopback origins that attack a crawler's memory rather than its
 * logic — thousands serving a 500 KiB robots.txt full of rules, and dozens serving gzip bombs —
 * for tests that bound an agent's memory (README "Hostile fleet").
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { standardBomb } from './gzip-bomb.js';
import { listenHosts } from './listen.js';

/** Options of {@link startHostileFleet}. */
export interface HostileFleetOptions {
  /** Origins serving a big robots.txt, default 2,000 (at most 62,500). */
  robotsHosts?: number;
  /** Size of that robots.txt in bytes, default 500 KiB (the most RFC 9309 asks a parser to read). */
  robotsBytes?: number;
  /** Rules in its `User-agent: *` group, default 1,000; comment lines fill the rest. */
  robotsRules?: number;
  /** Origins serving gzip bombs, default 50 (at most 250). */
  bombHosts?: number;
  /** Port on every address, default 0 (a free one). */
  port?: number;
}

/** A running fleet. */
export interface HostileFleet {
  port: number;
  /** Host name → IPv4 (127.2.x.y for robots hosts, 127.3.1.y for bomb hosts). */
  dnsMap: Record<string, string>;
  /** The home page of every robots host (a tiny page robots.txt allows). */
  robotsSeeds: string[];
  /** `/bomb.html` of every bomb host. */
  bombSeeds: string[];
  /** The robots.txt every robots host serves. */
  robotsTxt: string;
  /**
   * What was served so far: robots.txt files, home pages, other paths (a crawler's probes), bomb
   * responses, and bomb responses open now and at most at once (a bomb stays open until its
   * client hangs up: how many a crawler reads at the same time).
   */
  stats(): {
    robots: number;
    pages: number;
    other: number;
    bombs: number;
    bombsOpen: number;
    bombsPeak: number;
  };
  close(): Promise<void>;
}

const MAX_ROBOTS_HOSTS = 62_500;
const MAX_BOMB_HOSTS = 250;
const STREAM_CHUNK = 64 * 1024;
/** A comment line of filler: long lines cost a parser little per byte. */
const FILLER_LINE = `# ${'filler '.repeat(570)}\n`;

/**
 * The fleet's robots.txt: `User-agent: *` with `rules` Allow/Disallow lines (four shapes:
 * prefixes, wildcards, `$` anchors), then comment lines up to `bytes`. Its home page `/` is
 * allowed.
 */
export function fleetRobotsTxt(bytes: number, rules: number): string {
  const lines = ['# hostile fleet: a large robots.txt', 'User-agent: *'];
  for (let n = 0; n < rules; n++) {
    const kind = n % 4;
    lines.push(
      kind === 0
        ? `Disallow: /section-${n}/private/`
        : kind === 1
          ? `Allow: /section-${n}/public/*.html`
          : kind === 2
            ? `Disallow: /*?session=${n}&ref=*`
            : `Disallow: /archive/${n % 97}/item-${n}$`,
    );
  }
  let text = `${lines.join('\n')}\n`;
  const room = bytes - Buffer.byteLength(text);
  if (room > 0) {
    text += FILLER_LINE.repeat(Math.floor(room / FILLER_LINE.length));
    const rest = bytes - Buffer.byteLength(text);
    if (rest >= 2) text += `${'#'.padEnd(rest - 1, ' ')}\n`;
  }
  return text;
}

function count(name: string, max: number, fallback: number, value?: number): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < 0 || n > max) {
    throw new RangeError(`${name} must be an integer in [0, ${max}], got ${n}`);
  }
  return n;
}

/** Starts the fleet on its own loopback addresses (never those of the synthetic web). */
export async function startHostileFleet(opts: HostileFleetOptions = {}): Promise<HostileFleet> {
  const robotsHosts = count('robotsHosts', MAX_ROBOTS_HOSTS, 2000, opts.robotsHosts);
  const bombHosts = count('bombHosts', MAX_BOMB_HOSTS, 50, opts.bombHosts);
  const robotsTxt = fleetRobotsTxt(opts.robotsBytes ?? 500 * 1024, opts.robotsRules ?? 1000);
  const robotsBody = Buffer.from(robotsTxt);
  const dnsMap: Record<string, string> = {};
  const kinds = new Map<string, 'robots' | 'bomb'>();
  for (let i = 0; i < robotsHosts; i++) {
    const host = `r${String(i).padStart(5, '0')}.fleet.test`;
    dnsMap[host] = `127.2.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`;
    kinds.set(host, 'robots');
  }
  for (let i = 0; i < bombHosts; i++) {
    const host = `b${String(i).padStart(3, '0')}.fleet.test`;
    dnsMap[host] = `127.3.1.${1 + i}`;
    kinds.set(host, 'bomb');
  }
  const stats = { robots: 0, pages: 0, other: 0, bombs: 0, bombsOpen: 0, bombsPeak: 0 };

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const kind = kinds.get(host);
    const path = req.url ?? '/';
    if (kind === undefined) {
      res.writeHead(421).end();
    } else if (path === '/robots.txt') {
      if (kind === 'bomb') res.writeHead(404, { 'content-type': 'text/plain' }).end('none\n');
      else {
        stats.robots++;
        res
          .writeHead(200, {
            'content-type': 'text/plain; charset=utf-8',
            'content-length': robotsBody.length,
          })
          .end(robotsBody);
      }
    } else if (kind === 'bomb' && path.startsWith('/bomb')) {
      stats.bombs++;
      stats.bombsPeak = Math.max(stats.bombsPeak, ++stats.bombsOpen);
      res.once('close', () => stats.bombsOpen--);
      void streamBomb(res);
    } else {
      if (path === '/') stats.pages++;
      else stats.other++;
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<!DOCTYPE html><html><head><title>${host}</title></head><body><p>${host}</p></body></html>\n`,
        );
    }
  };
  const listeners = await listenHosts(Object.values(dnsMap), opts.port ?? 0, handler);
  const port = listeners.port;
  const hostsOf = (kind: 'robots' | 'bomb') =>
    [...kinds].filter(([, k]) => k === kind).map(([h]) => h);
  return {
    port,
    dnsMap,
    robotsSeeds: hostsOf('robots').map((h) => `http://${h}:${port}/`),
    bombSeeds: hostsOf('bomb').map((h) => `http://${h}:${port}/bomb.html`),
    robotsTxt,
    stats: () => ({ ...stats }),
    close: () => listeners.close(),
  };
}

/**
 * The synthetic web's 1 GiB bomb (~1 MB of gzip) without its end, written with back-pressure;
 * the response then stays open until the client hangs up (a crawler stops at its cap long
 * before the end).
 */
async function streamBomb(res: ServerResponse): Promise<void> {
  const bomb = standardBomb();
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'content-encoding': 'gzip',
    'content-length': String(bomb.gz.length),
  });
  const body = bomb.gz.subarray(0, bomb.gz.length - STREAM_CHUNK);
  for (let off = 0; off < body.length && !res.destroyed; off += STREAM_CHUNK) {
    if (!res.write(body.subarray(off, off + STREAM_CHUNK)))
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
  }
}
