import type { Frontier } from '@crawler/frontier';
import type { RedisClient } from '@crawler/adapters/redis';
import { z } from 'zod';
import { sitemapKey } from '../keys';
import { SITEMAP_STATE_TTL_MS } from './sitemap-limits';
import type { SitemapStanding } from './sitemap-scope';

/** How long the standing of a listed sitemap waits for its fetch (its host's queue may be long). */
const STANDING_TTL_MS = 7 * 24 * 3600 * 1000;

/**
 * A host's sitemap budgets, each counted over 24 h from the first document: documents expanded,
 * entries enqueued, and other hosts asked to confirm a cross-submission (`foreign`).
 */
export type SitemapBudget = 'documents' | 'entries' | 'foreign';

/** A page a sitemap listed on another origin: `[url, urlFp, depth, priority]`. */
export type HeldPage = [url: string, urlFp: string, depth: number, priority: number];
/** A sitemap an index listed on another origin: a held page and the standing it inherits. */
export type HeldSitemap = [...HeldPage, standing: SitemapStanding];

/**
 * What one sitemap listed on another origin whose robots.txt was not known yet: released when
 * that origin's robots.txt names `sitemap`, dropped otherwise.
 */
export interface HeldEntries {
  /** The normalized URL of the sitemap that listed them. */
  sitemap: string;
  pages: HeldPage[];
  sitemaps: HeldSitemap[];
}

const url = z.string().min(1);
const urlFp = z.string().regex(/^[0-9a-f]{16}$/);
const depth = z.number().int().min(0);
const priority = z.number().int().min(0).max(9);
const standing = z.object({ level: z.number().int().min(0), ownHost: z.enum(['host', 'dir']) });
const heldEntries = z.object({
  sitemap: url,
  pages: z.array(z.tuple([url, urlFp, depth, priority])),
  sitemaps: z.array(z.tuple([url, urlFp, depth, priority, standing])),
});

/**
 * What the crawl remembers about one host's sitemaps, in Redis beside the host's frontier keys
 * (same shard, so all agents share it): the 24-hour budgets of sitemap documents and entries
 * (`{p}:{s}:sm:<host>`, a hash expiring 24 h after its first write), the standing of each
 * sitemap an index listed on the host (`{p}:{s}:sl:<host>`, url_fp → level and scope, expiring
 * 7 days after its first write), which the sitemap's own queue entry has no room for, and the
 * entries other hosts' sitemaps listed on one of the host's origins while its robots.txt was
 * not known (`{p}:{s}:sw:<origin>`, a list of {@link HeldEntries} JSON, expiring 7 days after
 * its first write).
 * Budgets are taken by HINCRBY first and trimmed after, so concurrent takers never overdraw.
 */
export class SitemapState {
  constructor(
    private readonly redis: RedisClient,
    private readonly frontier: Pick<Frontier, 'keys' | 'shardOf'>,
  ) {}

  /** The standing an index recorded for a sitemap it listed, or null (a root, or forgotten). */
  async standingOf(host: string, urlFp: string): Promise<SitemapStanding | null> {
    const raw = await this.redis.hget(this.key('sl', host), urlFp);
    return raw === null ? null : decodeStanding(raw);
  }

  /**
   * Takes up to `n` from one of a host's 24-hour budgets (`cap` in all) and returns how many
   * were granted: `n`, fewer once the budget runs out, then 0.
   */
  async take(host: string, budget: SitemapBudget, n: number, cap: number): Promise<number> {
    if (n <= 0) return 0;
    const key = this.key('sm', host);
    const replies = await this.redis
      .multi()
      .hincrby(key, budget, n)
      .pexpire(key, SITEMAP_STATE_TTL_MS, 'NX')
      .exec();
    const [err, total] = replies?.[0] ?? [new Error('sitemap budget: transaction discarded'), 0];
    if (err) throw err;
    const before = Number(total) - n;
    return Math.max(0, Math.min(n, cap - before));
  }

  /** Records the standings of sitemaps an index listed on `host`, before they are enqueued. */
  async record(
    host: string,
    listed: ReadonlyArray<{ urlFp: string; standing: SitemapStanding }>,
  ): Promise<void> {
    if (listed.length === 0) return;
    const key = this.key('sl', host);
    const fields: string[] = [];
    for (const l of listed) fields.push(l.urlFp, encodeStanding(l.standing));
    const replies = await this.redis
      .multi()
      .hset(key, ...fields)
      .pexpire(key, STANDING_TTL_MS, 'NX')
      .exec();
    const err = replies?.find(([e]) => e !== null)?.[0];
    if (err) throw err;
  }

  /** Keeps entries listed on `origin` (of `host`) until its robots.txt is known. */
  async hold(host: string, origin: string, held: HeldEntries): Promise<void> {
    const key = this.heldKey(host, origin);
    const replies = await this.redis
      .multi()
      .rpush(key, JSON.stringify(held))
      .pexpire(key, STANDING_TTL_MS, 'NX')
      .exec();
    const err = replies?.find(([e]) => e !== null)?.[0];
    if (err) throw err;
  }

  /**
   * Takes (reads and deletes at once) the entries held for `origin`: of concurrent takers only
   * one gets them. Records that do not parse are left out.
   */
  async takeHeld(host: string, origin: string): Promise<HeldEntries[]> {
    const key = this.heldKey(host, origin);
    const replies = await this.redis.multi().lrange(key, 0, -1).del(key).exec();
    const [err, raw] = replies?.[0] ?? [new Error('held sitemap entries: transaction discarded')];
    if (err) throw err;
    const out: HeldEntries[] = [];
    for (const item of z.array(z.string()).parse(raw)) {
      try {
        const parsed = heldEntries.safeParse(JSON.parse(item));
        if (parsed.success) out.push(parsed.data);
      } catch {
        // not JSON: left out
      }
    }
    return out;
  }

  private key(kind: 'sm' | 'sl', host: string): string {
    return sitemapKey(this.frontier, kind, host);
  }

  /** `{p}:{s}:sw:<origin>`, on the shard of the origin's host. */
  private heldKey(host: string, origin: string): string {
    return `${this.frontier.keys.shard(this.frontier.shardOf(host))}sw:${origin}`;
  }
}

/** `<level>h` or `<level>d`. */
function encodeStanding(s: SitemapStanding): string {
  return `${s.level}${s.ownHost === 'host' ? 'h' : 'd'}`;
}

function decodeStanding(raw: string): SitemapStanding | null {
  const m = /^(\d{1,3})([hd])$/.exec(raw);
  if (!m) return null;
  return { level: Number(m[1]), ownHost: m[2] === 'h' ? 'host' : 'dir' };
}
