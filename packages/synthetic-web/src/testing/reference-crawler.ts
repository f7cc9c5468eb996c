/**
 * A minimal polite reference crawler used by the package's own tests to check that the rendered
 * web and the manifest agree: robots.txt first (4xx = allow all, 5xx = nothing), one request at
 * a time per host with a gap, each canonical URL once, redirect chains of at most 5 URLs (same
 * host inline, cross-host through the target host's queue), one retry after 503 + Retry-After,
 * links from `<a href>` of HTML pages only (resolved against `<base href>`), session path
 * parameters removed, trap URLs and no-op parameter variants skipped. With `only` and
 * `durationMs` it is the quality bench's oracle: the same politeness, manifest URLs only.
 * Not a product crawler: no size limits beyond 5 MB, no timeout beyond `requestTimeoutMs` and a
 * 15 s idle one.
 */
import { Agent, request, type ClientRequest } from 'node:http';
import { canonicalizeUrl, hostOf, isTrapUrl } from '../canonical.js';
import { hasNoopParam, stripSessionPathParams } from '../trap-patterns.js';
import { isAllowed, robotsPathOf, robotsPolicyOf, type HostRobots } from '../robots/matcher.js';

/** Options of {@link referenceCrawl}. */
export interface ReferenceCrawlOptions {
  seeds: string[];
  dnsMap: Record<string, string>;
  /** Product token; the User-Agent is `<token>/1.0`. */
  token: string;
  /** Gap between the end of one response and the next request to the same host, ms. */
  gapMs: number;
  /**
   * Added to every gap, ms, default 0: the server sees a response end a little after the client
   * does when it is busy (the crawler's agent waits 25 ms more for the same reason).
   */
  gapSlackMs?: number;
  /** Hosts crawled at once. */
  concurrency?: number;
  /** Fetch only these canonical URLs (robots.txt is always fetched); default: every link. */
  only?: ReadonlySet<string>;
  /** Stop after this many ms: no request starts later, open ones are aborted. Default: none. */
  durationMs?: number;
  /** Abort a request after this many ms in total. Default: none (only the 15 s idle timeout). */
  requestTimeoutMs?: number;
  /**
   * Called with each failed request, and the crawl goes on (a robots.txt that cannot be read
   * then means nothing on that host). Default: the crawl rejects with the first failure.
   */
  onError?: (err: Error) => void;
  /** Called as each request (robots.txt included) starts. */
  onRequest?: (url: string) => void;
}

interface Fetched {
  /** The response was cut short (too large, too slow): the server may see it end a little later. */
  cut: boolean;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

interface HostState {
  name: string;
  queue: Array<[string, number]>;
  running: boolean;
  policy: HostRobots | undefined;
  gapMs: number;
}

const MAX_CHAIN_URLS = 5;
const MAX_BODY = 5 * 1024 * 1024;
/** Extra wait after a response this crawler cut short or a failed request, before the gap. */
const CUT_GRACE_MS = 100;

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
  const open = new Set<ClientRequest>();
  const deadline =
    opts.durationMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + opts.durationMs;
  let timeUp = false;
  const stopped = (): boolean => timeUp;
  /** Sleeps that would end past the deadline: they end with it (and nothing starts after). */
  const atStop: Array<() => void> = [];
  const stopTimer =
    opts.durationMs === undefined
      ? null
      : setTimeout(() => {
          timeUp = true;
          for (const req of open) req.destroy(new Error('crawl time is up'));
          for (const wake of atStop.splice(0)) wake();
        }, opts.durationMs);
  const fail = (err: Error): void => {
    if (stopped()) return;
    if (opts.onError === undefined) throw err;
    opts.onError(err);
  };

  const fetchOnce = (url: string): Promise<Fetched> => {
    const u = new URL(url);
    const ip = opts.dnsMap[u.hostname];
    if (ip === undefined) throw new Error(`no address for ${u.hostname}`);
    if (stopped()) return Promise.reject(new Error('crawl time is up'));
    opts.onRequest?.(url);
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
            if (size <= MAX_BODY) chunks.push(c);
            else res.destroy();
          });
          res.on('close', () =>
            resolve({
              cut: !res.complete,
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks),
            }),
          );
          res.on('error', () => undefined);
        },
      );
      req.setTimeout(15_000, () => req.destroy(new Error(`timeout ${url}`)));
      const total =
        opts.requestTimeoutMs === undefined
          ? null
          : setTimeout(() => req.destroy(new Error(`timeout ${url}`)), opts.requestTimeoutMs);
      open.add(req);
      req.on('close', () => {
        open.delete(req);
        if (total !== null) clearTimeout(total);
      });
      req.on('error', reject);
      req.end();
    });
  };

  const sleep = (ms: number): Promise<void> =>
    new Promise((r) => {
      if (timeUp) r();
      else if (performance.now() + ms >= deadline) atStop.push(r);
      else setTimeout(r, ms);
    });

  const hostState = (name: string): HostState => {
    let h = hosts.get(name);
    if (h === undefined) {
      h = {
        name,
        queue: [],
        running: false,
        policy: undefined,
        gapMs: opts.gapMs + (opts.gapSlackMs ?? 0),
      };
      hosts.set(name, h);
    }
    return h;
  };

  const loadRobots = async (h: HostState, port: string): Promise<void> => {
    let url = `http://${h.name}:${port}/robots.txt`;
    for (let i = 0; i < 5; i++) {
      let r: Fetched;
      try {
        r = await fetchOnce(url);
      } catch (err) {
        h.policy = 'deny';
        fail(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      const loc = r.headers.location;
      if (r.status >= 300 && r.status < 400 && typeof loc === 'string') {
        await sleep(h.gapMs);
        url = new URL(loc, url).href;
        continue;
      }
      if (r.status >= 500) h.policy = 'deny';
      else if (r.status >= 400) h.policy = null;
      else {
        h.policy = robotsPolicyOf(r.body.toString('utf8'), opts.token);
        if (h.policy.crawlDelayS !== null)
          h.gapMs = Math.max(h.gapMs, h.policy.crawlDelayS * 1000 + (opts.gapSlackMs ?? 0));
      }
      await sleep(h.gapMs);
      return;
    }
    h.policy = 'deny';
  };

  /** A link as this crawler keeps it: session path parameters removed; null when skipped. */
  const keep = (link: string): string | null => {
    const url = stripSessionPathParams(link);
    if (seen.has(url) || isTrapUrl(url) || hasNoopParam(url)) return null;
    return opts.only === undefined || opts.only.has(url) ? url : null;
  };

  const enqueue = (link: string, chain: number): void => {
    const url = keep(link);
    if (url === null) return;
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
    if (h.policy === 'deny' || stopped()) return;
    if (h.policy !== null && h.policy !== undefined && !isAllowed(h.policy, robotsPathOf(url)))
      return;
    requested.add(url);
    let r: Fetched;
    try {
      r = await fetchOnce(url);
      await sleep(h.gapMs + (r.cut ? CUT_GRACE_MS : 0));
      if (r.status === 503 && r.headers['retry-after'] !== undefined) {
        await sleep(Number(r.headers['retry-after']) * 1000);
        r = await fetchOnce(url);
        await sleep(h.gapMs + (r.cut ? CUT_GRACE_MS : 0));
      }
    } catch (err) {
      fail(err instanceof Error ? err : new Error(String(err)));
      await sleep(h.gapMs + CUT_GRACE_MS);
      return;
    }
    const loc = r.headers.location;
    if (r.status >= 300 && r.status < 400 && typeof loc === 'string') {
      const link = canonicalizeUrl(loc, url);
      const next = link === null || chain + 1 >= MAX_CHAIN_URLS ? null : keep(link);
      if (next === null) return;
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
  if (stopTimer !== null) clearTimeout(stopTimer);
  agent.destroy();
  if (failures[0] !== undefined) throw failures[0];
  return requested;
}
