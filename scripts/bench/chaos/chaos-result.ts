/**
 * The chaos bench's figures (its last stdout line), as docs/BENCHMARKS.md defines them. (A type,
 * not an interface: bench results are `Record<string, unknown>`.)
 */
export type ChaosResult = {
  bench: 'chaos';
  seconds: number;
  agent_kills: number;
  coordinator_kills: number;
  redis_restarts: number;
  disk_faults: number;
  /** Page fetches in the web's request log (every path but /robots.txt). */
  pages: number;
  urls_lost: number;
  duplicate_fetches: number;
  in_flight_at_kills: number;
  politeness_violations: number;
  robots_violations: number;
  warc_records_missing: number;
  max_stall_s: number;
  peak_agent_rss_mb: number;
  redis_used_memory_mb: number;
  hosts: number;
  gap_ms: number;
  urls_discovered: number;
  warc_records_checked: number;
  /** Issue 22's feed outage: seconds the coordinator was frozen (0: none). */
  feed_outage_s: number;
  /** Seconds of it the feed held the agents' leasing, and the most unread MB seen. */
  feed_held_s: number;
  feed_peak_unread_mb: number;
  /** FEED_MAX_BYTES of the run, MB. */
  feed_max_mb: number;
  /** URLs (url_fp) of the pages the bench's own consumer group read from the feed. */
  pages_fed: number;
  /** Of those, URLs without a page in ClickHouse `pages`. */
  pages_missing: number;
  /** Pages any consumer group lost to the feed's trim (its drop counts). */
  feed_pages_dropped: number;
  load_avg_1m: number;
};

/** One target of issue 13 (or 22: the feed's), met or not. */
export interface Target {
  name: string;
  ok: boolean;
  /** The figure against its bound. */
  detail: string;
}

/** Stall bound of issue 13: a host with due work waits at most this long (s). */
export const MAX_STALL_S = 30;

/** The targets, in the order docs/BENCHMARKS.md lists them. */
export function chaosTargets(r: ChaosResult): Target[] {
  const zero = (name: keyof ChaosResult): Target => ({
    name,
    ok: r[name] === 0,
    detail: `${r[name]} (target 0)`,
  });
  return [
    zero('urls_lost'),
    zero('politeness_violations'),
    zero('robots_violations'),
    {
      name: 'duplicate_fetches',
      ok: r.duplicate_fetches <= r.in_flight_at_kills,
      detail: `${r.duplicate_fetches} (target ≤ in_flight_at_kills = ${r.in_flight_at_kills})`,
    },
    zero('warc_records_missing'),
    zero('pages_missing'),
    zero('feed_pages_dropped'),
    {
      name: 'max_stall_s',
      ok: r.max_stall_s <= MAX_STALL_S,
      detail: `${r.max_stall_s} s (target ≤ ${MAX_STALL_S} s)`,
    },
  ];
}
