/**
 * A minimal polite reference crawler used by the package's own tests to check that the rendered
 * web and the manifest agree: robots.txt first (4xx = allow all, 5xx = nothing), one request at
 * a time per host with a gap, each canonical URL once, redirect chains of at most 5 URLs (same
 * host inline, cross-host through the target host's queue), one retry after 503 + Retry-After,
 * links from `<a href>` of HTML pages only (resolved against `<base href>`), trap URLs skipped.
 * Not a product crawler: no timeouts beyond a total one, no size limits beyond 5 MB.
 */
import { Agent, request } from 'node:http';
import { canonicalizeUrl, hostOf, isTrapUrl } from '../canonical.js';
import {
  isAllowed,
  parseRobots,
  policyFor,
  robotsPathOf,
  type RobotsPolicy,
} from '../robots/matcher.js';

/** Options of {@link referenceCrawl}. */
export interface ReferenceCrawlOptions {
  seeds: string[];
  dnsMap: Record<string, string>;
  /** Product token; the User-Agent is `<token>/1.0`. */
  token: string;
  /** Gap between the end of one response and the next request to the same host, ms. */
  gapMs: number;
  /** Hosts crawled at once. */
  concurrency?: number;
}

interface Fetched {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

interface HostState {
  name: string;
  queue: Array<[string, number]>;
  running: boolean;
  policy: RobotsPolicy | null | 'deny' | undefined;
  gapMs: number;
}

const MAX_CHAIN_URLS = 5;
const MAX_BODY = 5 * 1024 * 1024;

function decodeEntities(s: string): string {
  return s
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

/** `<a href>` targets of an HTML document, resolved against its URL or `<base href>`. */
export function extractLinks(html: string, pageUrl: string): string[] {
  const attr = String.raw`href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))`;
  const baseMatch = new RegExp(`<base\\s[^>]*?${attr}`, 'i').exec(html);
  let base = pageUrl;
  if (baseMatch) {
    const raw = decodeEntities(baseMatch[1] ?? baseMatch[2] ?? baseMatch[3] ?? '');
    try {
      base = new URL(raw.trim(), pageUrl).href;
    } catch {
      base = pageUrl;
    }
  }
  const out: string[] = [];
  for (const m of html.matchAll(new RegExp(`<a\\s[^>]*?${attr}`, 'gi'))) {
    const href = decodeEntities(m[1] ?? m[2] ?? m[3] ?? '').trim();
    const c = canonicalizeUrl(href, base);
    if (c !== null) out.push(c);
  }
  return out;
}

/** Crawls from the seeds and returns the canonical URLs it requested (once each). */
export async function referenceCrawl(opts: ReferenceCrawlOptions): Promise<Set<string>> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const ua = `${opts.token}/1.0 (+reference)`;
  const hosts = new Map<string, HostState>();
  const seen = new Set<string>();
  const requested = new Set<string>();
  let active = 0;
  let running = 0;
  const limit = opts.concurrency ?? 16;
  const waiting: HostState[] = [];
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const failures: Error[] = [];

  const fetchOnce = (url: string): Promise<Fetched> => {
    const u = new URL(url);
    const ip = opts.dnsMap[u.hostname];
    if (ip === undefined) throw new Error(`no address for ${u.hostname}`);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: ip,
          port: u.port,
          path: `${u.pathname}${u.search}`,
          agent,
          headers: { Host: u.host, 'User-Agent': ua },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_BODY) res.destroy();
            else chunks.push(c);
          });
          res.on('close', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks),
            }),
          );
          res.on('error', () => undefined);
        },
      );
      req.setTimeout(15_000, () => req.destroy(new Error(`timeout ${url}`)));
      req.on('error', reject);
      req.end();
    });
  };

  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

  const hostState = (name: string): HostState => {
    let h = hosts.get(name);
    if (h === undefined) {
      h = { name, queue: [], running: false, policy: undefined, gapMs: opts.gapMs };
      hosts.set(name, h);
    }
    return h;
  };

  const loadRobots = async (h: HostState, port: string): Promise<void> => {
    let url = `http://${h.name}:${port}/robots.txt`;
    for (let i = 0; i < 5; i++) {
      const r = await fetchOnce(url);
      const loc = r.headers.location;
      if (r.status >= 300 && r.status < 400 && typeof loc === 'string') {
        await sleep(h.gapMs);
        url = new URL(loc, url).href;
        continue;
      }
      if (r.status >= 500) h.policy = 'deny';
      else if (r.status >= 400) h.policy = null;
      else {
        h.policy = policyFor(parseRobots(r.body.toString('utf8')), opts.token);
        if (h.policy.crawlDelayS !== null) h.gapMs = Math.max(h.gapMs, h.policy.crawlDelayS * 1000);
      }
      await sleep(h.gapMs);
      return;
    }
    h.policy = 'deny';
  };

  const enqueue = (url: string, chain: number): void => {
    if (seen.has(url) || isTrapUrl(url)) return;
    const name = hostOf(url);
    if (opts.dnsMap[name] === undefined) return;
    seen.add(url);
    const h = hostState(name);
    h.queue.push([url, chain]);
    if (!h.running) {
      h.running = true;
      active++;
      waiting.push(h);
      pump();
    }
  };

  const visit = async (h: HostState, url: string, chain: number): Promise<void> => {
    if (h.policy === 'deny') return;
    if (h.policy !== null && h.policy !== undefined && !isAllowed(h.policy, robotsPathOf(url)))
      return;
    requested.add(url);
    let r = await fetchOnce(url);
    await sleep(h.gapMs);
    if (r.status === 503 && r.headers['retry-after'] !== undefined) {
      await sleep(Number(r.headers['retry-after']) * 1000);
      r = await fetchOnce(url);
      await sleep(h.gapMs);
    }
    const loc = r.headers.location;
    if (r.status >= 300 && r.status < 400 && typeof loc === 'string') {
      const next = canonicalizeUrl(loc, url);
      if (next === null || chain + 1 >= MAX_CHAIN_URLS || seen.has(next) || isTrapUrl(next)) return;
      if (hostOf(next) === h.name) {
        seen.add(next);
        await visit(h, next, chain + 1);
      } else {
        enqueue(next, chain + 1);
      }
      return;
    }
    const type = r.headers['content-type'];
    if (r.status === 200 && typeof type === 'string' && type.startsWith('text/html')) {
      for (const link of extractLinks(r.body.toString('utf8'), url)) enqueue(link, 0);
    }
  };

  const runHost = async (h: HostState): Promise<void> => {
    if (h.policy === undefined) {
      const first = h.queue[0];
      await loadRobots(h, first === undefined ? '80' : new URL(first[0]).port);
    }
    for (let item = h.queue.shift(); item !== undefined; item = h.queue.shift()) {
      await visit(h, item[0], item[1]);
    }
  };

  function pump(): void {
    while (waiting.length > 0 && running < limit) {
      const h = waiting.shift() as HostState;
      running++;
      runHost(h)
        .catch((err: unknown) => {
          failures.push(
            err instanceof Error ? err : new Error(`reference crawl failed on ${h.name}`),
          );
        })
        .finally(() => {
          running--;
          h.running = false;
          active--;
          if (h.queue.length > 0) {
            h.running = true;
            active++;
            waiting.push(h);
          }
          if (active === 0) finish();
          pump();
        });
    }
  }

  for (const s of opts.seeds) {
    const c = canonicalizeUrl(s);
    if (c !== null) enqueue(c, 0);
  }
  if (active === 0) finish();
  await done;
  agent.destroy();
  if (failures[0] !== undefined) throw failures[0];
  return requested;
}
