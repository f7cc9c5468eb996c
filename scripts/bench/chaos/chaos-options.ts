/** What the chaos scenario runs and when its faults strike (times in s from the seeding). */
export interface ChaosOptions {
  /** Synthetic-web hosts. */
  hosts: number;
  /** The crawl window with faults; the drain (agents SIGTERMed) comes after. */
  seconds: number;
  /** CRAWLER_DEFAULT_GAP_MS, and the scorer's minimum gap. */
  gapMs: number;
  /** Synthetic-web seed; also seeds which agent each kill picks. */
  seed: number;
  /** Agent processes (slots). */
  agents: number;
  /** An agent is SIGKILLed (and a new one started in its slot) every this many seconds. */
  agentKillEveryS: number;
  /** When the coordinator is SIGKILLed and restarted. */
  coordinatorKillsAtS: number[];
  /** When Redis is SIGKILLed and started again on its AOF folder and port. */
  redisRestartsAtS: number[];
  /** When the WARC folder of agent 1 fills up (ENOSPC), and for how long; null: never. */
  diskFault: { atS: number; forS: number } | null;
  /** Include the synthetic web's hostile hosts (gzip bomb, trickle, 20 MB pages…). */
  hostile: boolean;
  /** FRONTIER_SHARDS. */
  shards: number;
  /**
   * The feed outage, right after the seeding and before the window of faults: the coordinator
   * is frozen (SIGSTOP, its ingest with it) this long while agents crawl on; null: none.
   */
  feedOutage: { forS: number } | null;
  /** FEED_MAX_BYTES of the crawl's processes: small, so that the outage fills it. */
  feedMaxBytes: number;
}

/**
 * The scenario of issue 13 over `seconds`: an agent killed every 20 s, the coordinator killed
 * twice (at a quarter and two thirds of the window), Redis restarted once (near the middle),
 * and agent 1's WARC folder full for 20 s (from 55%), each well inside the window. Before the
 * window, issue 22's feed outage: the coordinator frozen for 5 minutes with a feed of 16 MiB
 * (~1,300 pages of the synthetic web, ~30 s of this crawl at full rate).
 */
export function benchOptions(o: Partial<ChaosOptions> & { seconds: number }): ChaosOptions {
  const s = o.seconds;
  return {
    hosts: 300,
    gapMs: 500,
    seed: 1,
    agents: 3,
    agentKillEveryS: 20,
    coordinatorKillsAtS: [Math.round(s * 0.25), Math.round(s * 0.66)],
    redisRestartsAtS: [Math.round(s * 0.45)],
    diskFault: { atS: Math.round(s * 0.55), forS: Math.min(20, Math.round(s * 0.3)) },
    hostile: false,
    shards: 16,
    feedOutage: { forS: 300 },
    feedMaxBytes: 16 * 1024 * 1024,
    ...o,
  };
}

/**
 * `npm test`'s short version: one fault of each kind in 40 s on 60 hosts. The coordinator is
 * killed early: the telemetry it had read but not stored is taken over by its successor only
 * after the reader's 60 s claim delay, and the run must wait for those rows (the window runs
 * meanwhile). The agent is killed 20 s before the end, so its leases expire and are taken over
 * inside the window, where stalls are measured. The feed outage lasts 15 s, on a feed of 4 MiB
 * (~300 pages): enough for the agents to reach the bound and wait.
 */
export function testOptions(): ChaosOptions {
  return {
    hosts: 60,
    seconds: 40,
    gapMs: 500,
    seed: 1,
    agents: 3,
    agentKillEveryS: 20,
    coordinatorKillsAtS: [3],
    redisRestartsAtS: [10],
    diskFault: { atS: 14, forS: 10 },
    hostile: false,
    shards: 16,
    feedOutage: { forS: 15 },
    feedMaxBytes: 4 * 1024 * 1024,
  };
}
