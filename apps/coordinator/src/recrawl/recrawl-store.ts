import { z } from 'zod';
import type { EnqueueUrl, Frontier } from '@crawler/frontier';
import type { FetchRow } from '@crawler/shared/analytics';
import type { RedisClient } from '@crawler/shared/redis';
import { nextInterval, type IntervalBounds } from './change-model';

/** What the last capture of a URL left for its next visit (stored as compact JSON). */
const metaSchema = z.object({
  u: z.string(),
  h: z.string(),
  d: z.number().int().min(0),
  /** Current re-crawl interval, ms. */
  i: z.number().int().positive(),
  e: z.string().optional(),
  m: z.string().optional(),
  /** The full capture a revisit will refer to: record id, capture time, payload digest, SHA-256. */
  r: z.string().optional(),
  t: z.number().int().optional(),
  p: z.string().optional(),
  s: z.string().optional(),
});
type UrlMeta = z.infer<typeof metaSchema>;

/** A URL's schedule as the API shows it. */
export interface RecrawlState {
  url: string;
  intervalMs: number;
  dueAt: number;
  etag: string | null;
  lastModified: string | null;
}

/**
 * The re-crawl schedule, kept beside the frontier (the same `{shard}` slots): per shard a sorted
 * set url_fp → due time and a hash url_fp → what the last capture left. Fed with every fetch row
 * the coordinator ingests; swept for due URLs, which go back into the frontier as re-crawls
 * carrying their validators (conditional GET) and the capture a revisit refers to.
 *
 * Memory: about 300 bytes per scheduled URL (the hash entry dominates).
 */
export class RecrawlStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly frontier: Frontier,
    private readonly bounds: IntervalBounds,
  ) {}

  /**
   * Updates the schedule from fetch rows: a capture (200 with a record, or a 304) sets the next
   * interval by the change model; a 404/410 drops the URL; other answers leave it as it was
   * (errors are retried by the frontier, redirects are scheduled at their target).
   */
  async observe(rows: readonly FetchRow[]): Promise<number> {
    let scheduled = 0;
    await Promise.all(
      rows.map(async (row) => {
        const shard = this.frontier.shardOf(row.host);
        const dueKey = this.frontier.keys.recrawlDue(shard);
        const metaKey = this.frontier.keys.recrawlMeta(shard);
        if (row.status === 404 || row.status === 410) {
          await Promise.all([
            this.redis.zrem(dueKey, row.url_fp),
            this.redis.hdel(metaKey, row.url_fp),
          ]);
          return;
        }
        const captured = (row.status === 200 && row.record_type) || row.status === 304;
        if (!captured || row.url.endsWith('/robots.txt')) return;
        const old = decodeMeta(await this.redis.hget(metaKey, row.url_fp));
        const change = row.status === 304 ? 'unchanged' : row.change || 'new';
        const intervalMs = nextInterval(old?.i, change, this.bounds);
        // An unchanged page keeps referring to its last full capture; a new body replaces it.
        const full = change === 'unchanged' && old?.r ? old : null;
        const meta: UrlMeta = {
          u: row.url,
          h: row.host,
          d: row.depth,
          i: intervalMs,
          ...optional('e', row.etag || old?.e),
          ...optional('m', row.last_modified || old?.m),
          ...optional('r', full ? full.r : row.record_id),
          ...optional('t', full ? full.t : row.fetched_at.getTime()),
          ...optional('p', full ? full.p : row.payload_digest),
          ...optional('s', row.content_hash || old?.s),
        };
        await Promise.all([
          this.redis.hset(metaKey, row.url_fp, JSON.stringify(meta)),
          this.redis.zadd(dueKey, row.fetched_at.getTime() + intervalMs, row.url_fp),
        ]);
        scheduled++;
      }),
    );
    return scheduled;
  }

  /**
   * Takes up to `max` URLs due by `now` from one shard, as re-crawl entries. Their due time moves
   * one interval ahead right away, so a URL whose fetch never reports back comes round again.
   */
  async takeDue(shard: number, max: number, now = Date.now()): Promise<EnqueueUrl[]> {
    const dueKey = this.frontier.keys.recrawlDue(shard);
    const metaKey = this.frontier.keys.recrawlMeta(shard);
    const fps = await this.redis.zrangebyscore(dueKey, '-inf', now, 'LIMIT', 0, max);
    if (fps.length === 0) return [];
    const metas = await this.redis.hmget(metaKey, ...fps);
    const out: EnqueueUrl[] = [];
    const pushBack: Array<string | number> = [];
    fps.forEach((fp, k) => {
      const meta = decodeMeta(metas[k] ?? null);
      if (!meta) return;
      pushBack.push(now + meta.i, fp);
      out.push({
        url: meta.u,
        urlFp: fp,
        host: meta.h,
        depth: meta.d,
        source: 'recrawl',
        prior: {
          ...optional('etag', meta.e),
          ...optional('lastModified', meta.m),
          ...optional('recordId', meta.r),
          ...optional('capturedAt', meta.t),
          ...optional('payloadDigest', meta.p),
          ...optional('sha256', meta.s),
        },
      });
    });
    const orphans = fps.filter((_, k) => !decodeMeta(metas[k] ?? null));
    await Promise.all([
      pushBack.length > 0 ? this.redis.zadd(dueKey, ...pushBack) : null,
      orphans.length > 0 ? this.redis.zrem(dueKey, ...orphans) : null,
    ]);
    return out;
  }

  /** A URL's schedule, or null when it has none. */
  async state(host: string, urlFp: string): Promise<RecrawlState | null> {
    const shard = this.frontier.shardOf(host);
    const [raw, due] = await Promise.all([
      this.redis.hget(this.frontier.keys.recrawlMeta(shard), urlFp),
      this.redis.zscore(this.frontier.keys.recrawlDue(shard), urlFp),
    ]);
    const meta = decodeMeta(raw);
    if (!meta || due === null) return null;
    return {
      url: meta.u,
      intervalMs: meta.i,
      dueAt: Number(due),
      etag: meta.e ?? null,
      lastModified: meta.m ?? null,
    };
  }

  /** Re-crawl freshness across all shards: URLs on the schedule, and those past due. */
  async freshness(now = Date.now()): Promise<{ scheduled: number; pastDue: number }> {
    const per = await Promise.all(
      Array.from({ length: this.frontier.shards }, async (_, s) => {
        const key = this.frontier.keys.recrawlDue(s);
        const [all, due] = await Promise.all([
          this.redis.zcard(key),
          this.redis.zcount(key, '-inf', now),
        ]);
        return { all, due };
      }),
    );
    return {
      scheduled: per.reduce((a, p) => a + p.all, 0),
      pastDue: per.reduce((a, p) => a + p.due, 0),
    };
  }
}

function decodeMeta(raw: string | null): UrlMeta | null {
  if (raw === null) return null;
  try {
    const parsed = metaSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** `{ [key]: value }` when the value is set, else `{}` (optional fields stay absent, not undefined). */
function optional<K extends string, V>(key: K, value: V | undefined | null | ''): { [P in K]?: V } {
  return value === undefined || value === null || value === ''
    ? {}
    : ({ [key]: value } as { [P in K]: V });
}
