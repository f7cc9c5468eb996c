import { randomBytes } from 'node:crypto';
import type { Frontier } from '@crawler/frontier';
import type { AnalyticsStore } from '@crawler/analytics';
import type { RedisClient } from '@crawler/adapters/redis';
import type { IntervalBounds } from '../recrawl/change-model';
import { rebuildScratchKeys } from '../keys';
import { RecrawlStore, type ObservedRow } from '../recrawl/recrawl-store';

/**
 * Fetch rows replayed per part at most: the rows are read into memory and the part's schedule
 * sits in scratch keys until it is merged, so a part stays a few tens of MB.
 */
const ROWS_PER_PART = 100_000;

/** The rows the schedule is made of: captures (200 with a record, 304) and drops (404, 410). */
const COUNT_SQL = `SELECT count() AS n FROM fetches WHERE status IN (200, 304, 404, 410)`;

/**
 * One part's rows, each URL's in fetch order. FINAL: a replayed telemetry batch must count once
 * (the change model is not idempotent). The status filter may run before FINAL merges rows;
 * duplicates of a fetch are identical, so it drops all of them or none.
 */
const PART_SQL = `
SELECT url_fp, url, host, depth, status, fetched_at, change, record_type, etag, last_modified,
       record_id, payload_digest, content_hash
FROM fetches FINAL
WHERE status IN (200, 304, 404, 410) AND cityHash64(url_fp) % {parts:UInt32} = {part:UInt32}
ORDER BY url_fp, fetched_at`;

type Raw = Omit<ObservedRow, 'fetched_at' | 'depth' | 'status'> & {
  fetched_at: string;
  depth: number | string;
  status: number | string;
};

export interface RecrawlReport {
  /** Fetch rows replayed through the change model. */
  rows: number;
  /** URLs added to the schedule (those it had already are kept as they are). */
  scheduled: number;
}

/**
 * Rebuilds the re-crawl schedule from ClickHouse: every capture is replayed, in fetch order per
 * URL, through the same script the ingest uses (the frontier's observeRecrawl-2.lua) into
 * scratch keys of the same shards (`<prefix>:rebuild-<id>:{s}:rc:*`, the shard's cluster slot,
 * named by ../keys.ts), which mergeRecrawl-4.lua (`frontier.recrawl.merge`) then moves into the
 * live schedule for the URLs it lacks. So the restored interval, validators and due time of a
 * URL are those the ingest had computed (due = last capture + interval: a URL whose re-crawl was
 * queued when Redis was lost is due at once), and a rebuild never changes a URL the live
 * schedule holds: running it twice changes nothing.
 */
export async function restoreRecrawlSchedule(deps: {
  redis: RedisClient;
  frontier: Frontier;
  analytics: AnalyticsStore;
  bounds: IntervalBounds;
  signal?: AbortSignal;
}): Promise<RecrawlReport> {
  const { frontier } = deps;
  const [count] = await deps.analytics.queryJson<{ n: number | string }>(COUNT_SQL);
  const parts = Math.max(1, Math.ceil(Number(count?.n ?? 0) / ROWS_PER_PART));
  const scratch = rebuildScratchKeys(frontier.keys, randomBytes(4).toString('hex'));
  const replay = new RecrawlStore(
    deps.redis,
    {
      shards: frontier.shards,
      shardOf: (host) => frontier.shardOf(host),
      keys: scratch,
      recrawl: frontier.recrawl,
    },
    deps.bounds,
  );
  const report: RecrawlReport = { rows: 0, scheduled: 0 };
  for (let part = 0; part < parts; part++) {
    deps.signal?.throwIfAborted();
    const raw = await deps.analytics.queryJson<Raw>(PART_SQL, { parts, part });
    if (raw.length === 0) continue;
    report.rows += raw.length;
    await replay.observe(raw.map(toObservedRow));
    const added = await Promise.all(
      Array.from({ length: frontier.shards }, (_, s) => frontier.recrawl.merge(scratch, s)),
    );
    report.scheduled += added.reduce((a, n) => a + n, 0);
  }
  return report;
}

function toObservedRow(r: Raw): ObservedRow {
  return {
    ...r,
    depth: Number(r.depth),
    status: Number(r.status),
    // DateTime64(3) as ClickHouse writes it in JSON: `2026-01-05 12:01:30.123`, UTC.
    fetched_at: new Date(`${r.fetched_at.replace(' ', 'T')}Z`),
  };
}
