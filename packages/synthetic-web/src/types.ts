/**
 * Public types of the synthetic web: options, the running web, its manifest, the request log and
 * the scorer's input and report.
 */

/** Options of {@link startSyntheticWeb}. Every field is optional. */
export interface SyntheticWebOptions {
  /** PRNG seed, default 1; the same seed (and the same other options) gives a byte-identical web. */
  seed?: number;
  /** Number of hosts, default 300; 1..5000 (the address scheme allows up to 63,500). */
  hosts?: number;
  /** TCP port for every host address, default 0 = pick a free port (the same on every address). */
  port?: number;
  /** JSON-lines request log file (one {@link RequestLogEntry} per line); optional. */
  logPath?: string;
  /** Cap of the heavy-tailed page count of one host, default 200 (pages). */
  maxPagesPerHost?: number;
  /** Include the hostile hosts (20 MB page, gzip bomb, trickle, slow, ...), default true. */
  hostile?: boolean;
  /** Change knob, default 1; see {@link SyntheticWeb.setCycle}. */
  cycle?: number;
  /**
   * robots.txt product token the web is generated for (the group that names us, and the token the
   * manifest's `expected` list obeys), default `crawlerbot`. Addition to the original API.
   */
  productToken?: string;
  /**
   * Add the trap families (README "Trap families": calendars in several URL forms, pagers,
   * faceted views, session ids in paths, soft-404 hosts, no-op parameters), default false. Off,
   * the web is byte-identical to one built without this option; on, the hosts' other roles stay
   * the same.
   */
  trapFamilies?: boolean;
  /**
   * Record in each log entry of an HTML page answered 200 the page's links (`links`), default
   * false: what a crawler was shown, for benchmarks that account for every discovered URL.
   */
  logLinks?: boolean;
  /**
   * `simple` (default): the kind web, ~14 kB pages over plain HTTP, byte-identical to a web built
   * without this option. `realistic` (issue 21): heavy-tailed ~80 KB pages, gzip/br on the wire,
   * 404 links, redirects, more sitemaps, binaries, a few bodies over 10 MB, slow and trickling
   * hosts, and HTTPS on ~80% of the hosts when `tls` is given (see model/realistic.ts).
   */
  profile?: 'simple' | 'realistic';
  /**
   * Certificate and key (PEM) for the HTTPS hosts of the realistic profile: one certificate for
   * `*.web.test` serves every host. Without it every host speaks plain HTTP.
   */
  tls?: { cert: string; key: string };
}

/** One host of the synthetic web. */
export interface SiteInfo {
  /** 0-based host number. */
  index: number;
  /** Host name, `s%04d.web.test`. */
  host: string;
  /** The host's own loopback IPv4 address (127.1.x.y, never 127.0.0.1). */
  ip: string;
  /** `normal` or a hostile kind (`huge-page`, `gzip-bomb`, `slow`, `trickle`, `huge-headers`, `malformed`, `redirect-loop`). */
  kind: string;
  /** robots.txt variant (see README). */
  robots: RobotsVariant;
  /** Crawl-delay in seconds that applies to the product token (its own group, else `*`), or null. */
  crawlDelayS: number | null;
  /** Number of generated tree pages (the heavy-tailed count; special resources come on top). */
  pages: number;
  /** Feature tags of this host (e.g. `trap-calendar`, `sitemap-index`, `changing`). Addition to the original API. */
  features: string[];
  /**
   * The robots.txt body that governs the host (after the redirect for the `redirect` variant), or
   * null when robots.txt is missing, 403 or 5xx. The scorer parses it. Addition to the original API.
   */
  robotsTxt: string | null;
}

/** robots.txt variants; the host's {@link SiteInfo.robots}. */
export type RobotsVariant =
  | 'missing'
  | 'ok'
  | '5xx'
  | '403'
  | 'bom-crlf'
  | 'redirect'
  | 'longest-match'
  | 'wildcards'
  | 'other-bot'
  | 'product-token'
  | 'crawl-delay';

/** What a correct crawler should do on the web in one cycle. */
export interface Manifest {
  /** The cycle this manifest describes. */
  cycle: number;
  /** TCP port of every host. */
  port: number;
  /** One home-page URL per host. */
  seeds: string[];
  /** Canonical absolute URLs a correct polite crawler requests at least once (sorted). */
  expected: string[];
  /** Sitemap URLs (plain, index, gzipped, text); not in `expected`. */
  sitemaps: string[];
  /** Expected URLs whose content in this cycle differs from cycle 1 (sorted). */
  changed: string[];
  /** One entry per host. */
  hosts: SiteInfo[];
}

/** One request as the server saw it (one JSON object per line in the log file). */
export interface RequestLogEntry {
  /** Request number in start order, from 1. */
  seq: number;
  /** Host header, lowercased, port and trailing dot stripped. */
  host: string;
  /** Local address the socket hit. */
  ip: string;
  /** HTTP method. */
  method: string;
  /** Raw request-target. */
  target: string;
  /** Absolute `http(s)://host:port/target` (`https` on a TLS connection), host lowercased. */
  url: string;
  /** Response status (0 if the response was aborted before the head was sent). */
  status: number;
  /** Body bytes written (compressed bytes for the gzip bomb). */
  bytes: number;
  /** User-Agent header or ''. */
  ua: string;
  /** True when the request had If-None-Match or If-Modified-Since. */
  conditional: boolean;
  /** Start time, float ms (performance.timeOrigin + performance.now()). */
  startMs: number;
  /**
   * When the answer ended, float ms, same clock as startMs: the moment its last byte went to the
   * kernel where res.end() flushed it at once, else the response's 'close' event (finished or
   * aborted).
   */
  endMs: number;
  /** Requests to this host open when this one began, including itself. */
  inflightAtStart: number;
  /** True when the response closed before it was completely written. */
  aborted: boolean;
  /**
   * With `logLinks`, on HTML pages answered 200 (GET): the absolute URLs of the page's
   * `<a href>` links in document order, resolved against its `<base href>` and URL, not
   * canonicalized (fragments, tracking parameters, `mailto:` kept as written).
   */
  links?: string[];
}

/** The running synthetic web. */
export interface SyntheticWeb {
  /** TCP port of every host address. */
  port: number;
  /** One entry per host. */
  hosts: SiteInfo[];
  /** Host name -> IPv4 address in 127.0.0.0/8. */
  dnsMap: Record<string, string>;
  /** One home-page URL per host, e.g. `http://s0001.web.test:PORT/` (`https://` on HTTPS hosts). */
  seeds: string[];
  /** The manifest for the current cycle (computed on first call per cycle, then cached). */
  manifest(): Manifest;
  /** Switch to cycle n (integer >= 1); cycle 2+ changes some pages (new bodies, ETag, Last-Modified). */
  setCycle(n: number): void;
  /** Completed requests so far, in start order. */
  log(): RequestLogEntry[];
  /** TLS handshakes the web has completed (HTTPS hosts), and how many resumed a session. */
  tlsHandshakes(): { handshakes: number; resumed: number };
  /** Closes all listeners and open sockets, then flushes and closes the log file. */
  close(): Promise<void>;
}

/** Input of {@link scoreCrawl}. */
export interface ScoreInput {
  /** Request log of the crawl. */
  log: RequestLogEntry[];
  /** Manifest of the crawled cycle. */
  manifest: Manifest;
  /** robots.txt product token of the crawler, e.g. `crawlerbot`. */
  productToken: string;
  /** The crawler's configured per-host gap between requests, ms. */
  minGapMs: number;
  /** Slack for the gap check, ms, default 2. */
  toleranceMs?: number;
  /**
   * Score only requests that started at or after this time (float ms, log clock); earlier ones
   * count as a previous cycle (they still satisfy "robots.txt first" and are the `prev` of the
   * first gap check). Default: score everything.
   */
  sinceMs?: number;
  /**
   * Requests (by `seq`) whose answer the crawler could not keep — e.g. its WARC write failed, so
   * it fetches the URL again: they settle nothing, so that retry is no duplicate. Default none.
   */
  unsettled?: ReadonlySet<number>;
  /**
   * Seconds the crawl ran, for `useful_pages_per_s`. Default: from the first scored request's
   * start to the last one's end.
   */
  durationS?: number;
}

/** Class of a scored non-robots request (README "Scorer rules"). */
export type FetchClass = 'useful' | 'trap' | 'variant' | 'other';

/** One rule breach found by the scorer. */
export interface Violation {
  /** `concurrency`, `gap`, `robots-not-first`, `robots-5xx`, `robots-disallowed` or `duplicate`. */
  kind: string;
  /** Host name. */
  host: string;
  /** Human-readable detail (URL, times). */
  detail: string;
}

/** Output of {@link scoreCrawl}. */
export interface ScoreReport {
  /** All scored requests. */
  requests: number;
  /** Scored requests other than /robots.txt. */
  pages: number;
  /** Size of `manifest.expected`. */
  expected: number;
  /** Distinct expected URLs requested (any status). */
  covered: number;
  /** covered / expected, 0..1 (1 when nothing is expected). */
  coverage: number;
  /** First 50 expected URLs never requested. */
  missing: string[];
  politeness_violations: number;
  robots_violations: number;
  duplicate_fetches: number;
  /** Requests for trap URLs: the same count as `trap_fetches` (kept for older readers). */
  trap_pages: number;
  /** Scored non-robots requests of class `useful`: a manifest URL, not a repeat. */
  useful_fetches: number;
  /** Scored non-robots requests of class `trap` (every family). */
  trap_fetches: number;
  /** Scored non-robots requests of class `variant`: no-op parameter variants and repeats. */
  variant_fetches: number;
  /** Scored non-robots requests of class `other` (sitemaps, probes, unlinked or unknown URLs…). */
  other_fetches: number;
  /** Of `other_fetches`: unlinked paths answered 200 on `soft-404` hosts (a crawler's probes). */
  probe_fetches: number;
  /** trap_fetches / pages (0 without pages). */
  trap_fetch_share: number;
  /** variant_fetches / pages (0 without pages). */
  variant_duplicate_share: number;
  /** Trap fetches per family: calendar, pager, facet, session, soft-404, loop. */
  trap_by_family: Record<string, number>;
  /** Variant fetches by kind: `noop` (no-op parameters) and `repeat` (an already settled URL). */
  variant_by_kind: { noop: number; repeat: number };
  /** Distinct manifest URLs fetched (= covered). */
  useful_pages: number;
  /** The duration useful_pages_per_s divides by, s. */
  duration_s: number;
  /** useful_pages / duration_s (0 when the duration is 0). */
  useful_pages_per_s: number;
  /** First 100 violations. */
  violations: Violation[];
}
