/**
 * The `realistic` profile (issue 21): per-host facts that make the synthetic web look more like
 * the public web than the kind default (`simple`, ~14 kB plain-HTTP pages). Everything is drawn
 * from the seed with generators of its own, so the rest of the web (host roles, robots variants,
 * the simple profile's bytes) is the same with and without it.
 *
 * - HTML sizes: lognormal, mean 80 KB. The 80 KB mean is the seed design's figure; the shape
 *   (long right tail) follows HTTP Archive's page-weight distributions being long-tailed. No
 *   finer fit is claimed. With σ = 1.0, μ = ln(80,000) − σ²/2 ≈ 10.79: median ≈ 48.5 kB,
 *   p90 ≈ 175 kB, p99 ≈ 500 kB; capped at 4 MiB (well under a crawler's 10 MB body cap).
 * - Content-Encoding on text bodies when the client accepts it: gzip (level 1, nginx's default)
 *   on 55% of hosts, br (quality 1, on the fly) on 30%, none on 15%. Binaries are never
 *   encoded. Pages are served as a server of static, precompressed content would: their bulk is
 *   drawn from a corpus made once per seed (render/filler.ts), so that the web, which shares the
 *   machine with the crawler it measures, spends little per page.
 * - HTTPS on 80% of hosts (when the web is given a certificate).
 * - 5–10% of the URLs linked are 404s (one dead link on 8% of the tree pages); 15% of hosts have a `/latest` 302 and moved pages
 *   behind a 301; sitemaps on about a fifth of the hosts (the simple web's ~10% plus more
 *   urlsets).
 * - Binaries linked from pages (images, PDFs, zip archives) with lognormal sizes (see
 *   {@link BINARY_SIZES}); 1% of hosts link a body over 10 MB (half with a Content-Length, half
 *   chunked: the hostile `huge` resource).
 * - Latency: 6% of hosts answer slowly (200–1,500 ms before the first byte), 3% trickle their
 *   bodies (16 KiB every 50–200 ms).
 */
import { mix, Rng } from '../prng.js';
import type { HostHeader } from './assign.js';

/** Web profiles: `simple` (the default of the package, today's kind web) or `realistic`. */
export type WebProfile = 'simple' | 'realistic';

/** Lognormal HTML size: σ and μ (of ln bytes), cap. */
export const HTML_SIZE = { sigma: 1.0, mu: Math.log(80_000) - 0.5, capBytes: 4 * 1024 * 1024 };

/** Lognormal sizes of the binaries (μ of ln bytes, σ, cap; the cap stays under 10 MB). */
export const BINARY_SIZES = {
  jpg: { mu: Math.log(60_000), sigma: 1.0, capBytes: 6 * 1024 * 1024 },
  pdf: { mu: Math.log(300_000), sigma: 1.0, capBytes: 9 * 1024 * 1024 },
  zip: { mu: Math.log(1_000_000), sigma: 0.8, capBytes: 9 * 1024 * 1024 },
} as const;

/**
 * Per tree page, the chance to link one image, one PDF, one zip archive: ~7.5% of the URLs a
 * crawler meets are binaries, about a third of its bytes (HTML is most of what a web crawl
 * fetches: PDFs are ~1% of Common Crawl's captures, images linked by `<a>` a few per cent).
 */
export const BINARY_LINK_ODDS = { jpg: 0.05, pdf: 0.02, zip: 0.005 } as const;

/** Shares of the profile's host-level features. */
export const REALISTIC_ODDS = {
  https: 0.8,
  gzip: 0.55,
  br: 0.3,
  slow: 0.06,
  trickle: 0.03,
  redirects: 0.15,
  /** Extra `sitemap-urlset` on hosts without a sitemap (the simple web has ~10%). */
  extraSitemap: 0.12,
  hugeDownload: 0.01,
} as const;

/** How one host of the realistic web behaves. */
export interface HostRealism {
  /** The Content-Encoding it prefers for text bodies (falls back to what the client accepts). */
  encoding: 'gzip' | 'br' | 'identity';
  /** Delay before every answer's first byte (ms), 0 for none. */
  firstByteMs: number;
  /** Trickled bodies: `chunkBytes` every `chunkGapMs`; null for all at once. */
  trickle: { chunkBytes: number; chunkGapMs: number } | null;
  /** Has `/latest` (302) and moved pages (301). */
  redirects: boolean;
  /** Links a body over the 10 MB cap: with a Content-Length, or chunked. */
  hugeDownload: 'length' | 'chunked' | null;
}

/** A lognormal draw (Box–Muller), rounded and capped. */
export function lognormal(rng: Rng, mu: number, sigma: number, cap: number): number {
  const u1 = Math.max(rng.next(), 1e-12);
  const u2 = rng.next();
  const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  return Math.max(1, Math.min(cap, Math.round(Math.exp(mu + sigma * z))));
}

/** Size in bytes a realistic HTML page aims at (stable across cycles). */
export function htmlTargetBytes(seed: number, host: number, page: number): number {
  const rng = new Rng(mix(seed, 'realistic-size', host, page));
  return lognormal(rng, HTML_SIZE.mu, HTML_SIZE.sigma, HTML_SIZE.capBytes);
}

/**
 * Turns the headers into the realistic profile in place (after {@link assignHosts}): HTTPS flags
 * (only with `https`), per-host realism, more sitemaps.
 */
export function applyRealistic(seed: number, headers: HostHeader[], https: boolean): void {
  for (const h of headers) {
    const rng = new Rng(mix(seed, 'realistic', h.index));
    const isHttps = rng.chance(REALISTIC_ODDS.https);
    h.https = https && isHttps;
    const e = rng.next();
    const slow = rng.chance(REALISTIC_ODDS.slow);
    const firstByteMs = rng.int(200, 1500);
    const trickle = rng.chance(REALISTIC_ODDS.trickle);
    const chunkGapMs = rng.int(50, 200);
    const redirects = rng.chance(REALISTIC_ODDS.redirects);
    const huge = rng.chance(REALISTIC_ODDS.hugeDownload);
    const extraSitemap = rng.chance(REALISTIC_ODDS.extraSitemap);
    if (h.kind !== 'normal') {
      h.realism = {
        encoding: 'identity',
        firstByteMs: 0,
        trickle: null,
        redirects: false,
        hugeDownload: null,
      };
      continue;
    }
    h.realism = {
      encoding:
        e < REALISTIC_ODDS.gzip
          ? 'gzip'
          : e < REALISTIC_ODDS.gzip + REALISTIC_ODDS.br
            ? 'br'
            : 'identity',
      firstByteMs: slow ? firstByteMs : 0,
      trickle: trickle ? { chunkBytes: 16 * 1024, chunkGapMs } : null,
      redirects,
      hugeDownload: huge
        ? mix(seed, 'huge-kind', h.index) % 2 === 0
          ? 'length'
          : 'chunked'
        : null,
    };
    const f = h.features as string[];
    const hasSitemap = f.some((x) => x.startsWith('sitemap-'));
    const robotsBody = h.robots !== 'missing' && h.robots !== '5xx' && h.robots !== '403';
    if (extraSitemap && !hasSitemap && robotsBody && h.robots !== 'crawl-delay') {
      h.features.push('sitemap-urlset');
      h.features.sort();
    }
  }
}

/** `http` or `https`: the scheme a host serves. */
export function schemeOf(h: HostHeader): 'http' | 'https' {
  return h.https ? 'https' : 'http';
}

/** `scheme://host:port` of a host. */
export function originOf(h: HostHeader, port: number | string): string {
  return `${schemeOf(h)}://${h.host}:${port}`;
}
