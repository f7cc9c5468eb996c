import { z } from 'zod';
import type { EnqueueUrl, Frontier } from '@crawler/frontier';
import type { FetchRow } from '@crawler/analytics';
import type { RedisClient } from '@crawler/adapters/redis';
import { safeParseJson } from '@crawler/domain/messages';
import type { IntervalBounds } from './change-model';

/**
 * Rows per script call: a script blocks Redis while it runs (a few µs a row), so a big batch
 * into few shards is cut in slices that keep each call to a few milliseconds.
 */
const OPS_PER_CALL = 500;

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

/**
 * Where the schedule lives: the frontier's shards and keys (or, for a frontier rebuild, keys of
 * the same shards under a scratch prefix), and the frontier's scripts that write it.
 */
export type ScheduleLayout = Pick<Frontier, 'shards' | 'shardOf' | 'keys' | 'recrawl'>;

/** What `observe` reads of a fetch row. */
export type ObservedRow = Pick<
  FetchRow,
  | 'url_fp'
  | 'url'
  | 'host'
  | 'depth'
  | 'status'
  | 'fetched_at'
  | 'change'
  | 'record_type'
  | 'etag'
  | 'last_modified'
  | 'record_id'
  | 'payload_digest'
  | 'content_hash'
>;

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
    private readonly frontier: ScheduleLayout,
    private readonly bounds: IntervalBounds,
    /**
     * RECRAWL_MAX_URLS: URLs the whole schedule keeps at most (0 = no limit), as an equal share
     * per shard; past it, the URLs due furthest ahead — the longest intervals, the pages that
     * change least — leave the schedule (they are not re-crawled unless found again).
     */
    private readonly maxUrls = 0,
  ) {}

  /**
   * Updates the schedule from fetch rows: a capture (200 with a record, or a 304) sets the next
   * interval by the change model; a 404/410 drops the URL; other answers leave it as it was
   * (errors are retried by the frontier, redirects are scheduled at their target).
   *
   * One script call per shard (the frontier's observeRecrawl-2.lua through
   * `frontier.recrawl.observe`, up to {@link OPS_PER_CALL} rows a call),
   * the shards at once: each call reads and writes its rows atomically, in row order, so a row
   * sees what the rows before it wrote, and two batches stored at once cannot lose each other's
   * updates of a URL.
   */
  async observe(rows: readonly ObservedRow[]): Promise<number> {
    const perShard = new Map<number, ObserveOp[]>();
    for (const row of rows) {
      let op: ObserveOp;
      if (row.status === 404 || row.status === 410) op = ['d', row.url_fp];
      else {
        const captured = (row.status === 200 && row.record_type) || row.status === 304;
        if (!captured || row.url.endsWith('/robots.txt')) continue;
        op = [
          'c',
          row.url_fp,
          row.status === 304 ? 'unchanged' : row.change || 'new',
          row.fetched_at.getTime(),
          row.url,
          row.host,
          row.depth,
          row.etag ?? '',
          row.last_modified ?? '',
          row.record_id ?? '',
          row.payload_digest ?? '',
          row.content_hash,
        ];
      }
      const shard = this.frontier.shardOf(row.host);
      const ops = perShard.get(shard);
      if (ops) ops.push(op);
      else perShard.set(shard, [op]);
    }
    const { keys, recrawl } = this.frontier;
    const shardCap = this.maxUrls > 0 ? Math.ceil(this.maxUrls / this.frontier.shards) : 0;
    const counts = await Promise.all(
      [...perShard].map(async ([shard, ops]) => {
        let scheduled = 0;
        // In order within the shard: a later call may depend on what an earlier one wrote.
        for (let from = 0; from < ops.length; from += OPS_PER_CALL)
          scheduled += await recrawl.observe(
            shard,
            opsJson(ops.slice(from, from + OPS_PER_CALL)),
            this.bounds,
            shardCap,
            keys,
          );
        return scheduled;
      }),
    );
    return counts.reduce((a, n) => a + n, 0);
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

/**
 * One row for observeRecrawl-2.lua (packages/frontier/src/commands): a drop, or a capture (see
 * the script for the fields).
 */
type ObserveOp =
  | ['d', string]
  | ['c', string, string, number, string, string, number, string, string, string, string, string];

/**
 * The operations as the script's JSON argument. JSON.stringify writes a lone UTF-16 surrogate as
 * a `\ud800` escape, which Lua's cjson refuses (the whole batch would fail, again and again):
 * such strings are sent as Redis would store them had they gone as arguments of their own, the
 * surrogate replaced by U+FFFD. The check can match a harmless `\\ud8…` too; that only costs the
 * slower path.
 */
function opsJson(ops: ObserveOp[]): string {
  const json = JSON.stringify(ops);
  if (!/\\u[dD][89a-fA-F]/.test(json)) return json;
  return JSON.stringify(
    ops.map((op) => op.map((v) => (typeof v === 'string' ? wellFormed(v) : v))),
  );
}

/** `s` with each lone surrogate replaced by U+FFFD (String.prototype.toWellFormed, ES2024). */
function wellFormed(s: string): string {
  return s.replace(
    /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    '\ufffd',
  );
}

function decodeMeta(raw: string | null): UrlMeta | null {
  return raw === null ? null : (safeParseJson(metaSchema, raw)?.data ?? null);
}

/** `{ [key]: value }` when the value is set, else `{}` (optional fields stay absent, not undefined). */
function optional<K extends string, V>(key: K, value: V | undefined | null | ''): { [P in K]?: V } {
  return value === undefined || value === null || value === ''
    ? {}
    : ({ [key]: value } as { [P in K]: V });
}
