// Shapes of the coordinator's answers the overview reads (GET /v1/stats, /v1/stats/series).

export interface CrawlStats {
  frontier: {
    shards: number;
    hosts: number;
    readyHosts: number;
    scheduledHosts?: number;
    queuedUrls: number;
    openLeases: number;
    seenUrls: number;
    deadLetters: number;
  };
  fetches: {
    total: number;
    ok: number;
    errors: number;
    robotsDenied?: number;
    bytes: number;
    /** Over the last 30 s; 0 while no agent is alive. */
    pagesPerSecond: number;
    statusMix: Record<'2xx' | '3xx' | '4xx' | '5xx' | 'error', number>;
  };
  seeds: { total: number };
  agents: {
    alive: number;
    /** Silent for 15 s without having stopped (absent on older coordinators). */
    dead?: number;
    /** Open leases by holder: agents alive, and the rest (dead). */
    openLeases?: { live: number; dead: number };
  };
  /** Present on coordinators that report re-crawl freshness. */
  recrawl?: {
    pastDueShare?: number;
    past_due_share?: number;
    dueUrls?: number;
    knownUrls?: number;
  };
  generatedAt: string;
}

export interface SeriesBucket {
  /** Bucket start, epoch ms. */
  t: number;
  pages: number;
  bytes: number;
  s2xx: number;
  s3xx: number;
  s4xx: number;
  s5xx: number;
  /** No HTTP answer; with s2xx … s5xx it partitions `pages` (absent on older coordinators). */
  no_answer?: number;
  /** No answer or a 5xx (an error rate; overlaps s5xx). */
  errors: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  duplicates: number;
  near_duplicates: number;
}

export interface StatsSeries {
  window: string;
  bucket_s: number;
  buckets: SeriesBucket[];
  error_codes: Array<{ code: string; count: number }>;
  status_mix: Array<{ status_class: string; count: number }>;
  /** Share of known URLs past their re-crawl time (0..1), when reported. */
  past_due_share?: number;
}

export const WINDOWS = ['15m', '1h', '6h', '24h'] as const;
export type StatsWindow = (typeof WINDOWS)[number];
