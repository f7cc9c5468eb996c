import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CrawlerError, type RetryClass } from '@crawler/domain/errors';

/** A resolver failure: `reason` is what telemetry records (a FetchError's reason). */
export class DnsError extends CrawlerError {
  readonly code: 'DNS_NOT_FOUND' | 'DNS_FAILURE';
  /** A name that does not exist will not soon; a failing resolver may recover. */
  readonly retry: RetryClass;
  constructor(
    readonly reason: 'dns_not_found' | 'dns_failure',
    host: string,
  ) {
    super(`${reason}: ${host}`);
    this.code = reason === 'dns_not_found' ? 'DNS_NOT_FOUND' : 'DNS_FAILURE';
    this.retry = reason === 'dns_not_found' ? 'give_up' : 'backoff';
  }
}

interface CacheEntry {
  ips: string[];
  expiresAt: number;
  error?: DnsError;
}

/**
 * A caching resolver: answers live at least 5 minutes (DNS TTLs shorter than that are raised),
 * negative answers 1 hour. An optional static map (test webs) answers first. The cache is
 * bounded: the oldest entries go first when it is full.
 */
export class HostResolver {
  private readonly cache = new Map<string, CacheEntry>();
  /** Lookups in flight, shared by everyone asking for the same host meanwhile. */
  private readonly inflight = new Map<string, Promise<string[]>>();
  private readonly staticMap: Map<string, string>;

  private readonly minTtlMs: number;
  private readonly negativeTtlMs: number;
  private readonly maxEntries: number;
  private readonly maxPrefetch: number;

  /**
   * @param opts.dnsMapFile JSON file host → IPv4 answered before DNS (test webs)
   * @param opts.minTtlMs shortest time an answer is kept (default 5 minutes)
   * @param opts.negativeTtlMs how long "no such host" is kept (default 1 hour)
   * @param opts.maxEntries cache size (default 100,000)
   * @param opts.maxPrefetch lookups `prefetch` keeps in flight at most (default 64)
   */
  constructor(
    opts: {
      dnsMapFile?: string;
      minTtlMs?: number;
      negativeTtlMs?: number;
      maxEntries?: number;
      maxPrefetch?: number;
    } = {},
  ) {
    this.maxPrefetch = opts.maxPrefetch ?? 64;
    this.minTtlMs = opts.minTtlMs ?? 300_000;
    this.negativeTtlMs = opts.negativeTtlMs ?? 3_600_000;
    this.maxEntries = opts.maxEntries ?? 100_000;
    this.staticMap = new Map(opts.dnsMapFile ? Object.entries(readDnsMap(opts.dnsMapFile)) : []);
  }

  /** Resolves a host name (or returns an IP literal as is). */
  async resolve(host: string): Promise<string[]> {
    const bare = host.replace(/^\[|\]$/g, '');
    if (isIP(bare)) return [bare];
    const fixed = this.staticMap.get(bare.toLowerCase());
    if (fixed) return [fixed];
    const hit = this.cache.get(bare);
    if (hit && hit.expiresAt > Date.now()) {
      if (hit.error) throw hit.error;
      return hit.ips;
    }
    let pending = this.inflight.get(bare);
    if (!pending) {
      pending = this.lookup(bare).finally(() => this.inflight.delete(bare));
      this.inflight.set(bare, pending);
    }
    return pending;
  }

  /**
   * Starts lookups for hosts whose answer is not cached, so the first connection to a host
   * discovered now finds its address ready; at most `maxPrefetch` lookups run at once, the
   * rest are simply skipped (the fetch resolves them anyway). Failures are cached, not thrown.
   */
  prefetch(hosts: Iterable<string>): void {
    const now = Date.now();
    for (const host of hosts) {
      if (this.inflight.size >= this.maxPrefetch) return;
      const bare = host.replace(/^\[|\]$/g, '');
      if (isIP(bare) || this.staticMap.has(bare.toLowerCase()) || this.inflight.has(bare)) continue;
      if ((this.cache.get(bare)?.expiresAt ?? 0) > now) continue;
      this.resolve(bare).catch(() => undefined);
    }
  }

  private async lookup(bare: string): Promise<string[]> {
    const now = Date.now();
    try {
      const records = await dns.resolve4(bare, { ttl: true });
      const ttl = Math.max(this.minTtlMs, Math.min(...records.map((r) => r.ttl * 1000)));
      const ips = records.map((r) => r.address);
      this.remember(bare, { ips, expiresAt: now + ttl });
      return ips;
    } catch (err) {
      const code = (err as { code?: string }).code;
      const error = new DnsError(
        code === 'ENOTFOUND' || code === 'ENODATA' ? 'dns_not_found' : 'dns_failure',
        bare,
      );
      this.remember(bare, {
        ips: [],
        expiresAt: now + (error.reason === 'dns_not_found' ? this.negativeTtlMs : 60_000),
        error,
      });
      throw error;
    }
  }

  private remember(host: string, entry: CacheEntry): void {
    if (this.cache.size >= this.maxEntries) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(host, entry);
  }
}

const dnsMapSchema = z.record(z.string(), z.ipv4());

function readDnsMap(file: string): Record<string, string> {
  const parsed = dnsMapSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`CRAWLER_DNS_MAP ${file}: ${parsed.error.message}`);
  return Object.fromEntries(Object.entries(parsed.data).map(([k, v]) => [k.toLowerCase(), v]));
}
