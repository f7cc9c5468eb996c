import type { AnalyticsStore } from '@crawler/analytics';
import type { Frontier, SeenCandidate } from '@crawler/frontier';
import type { RedisClient } from '@crawler/adapters/redis';
import { redisNowMs, telemetryStoredUntil } from './telemetry-stored';
import { urlFpsInUrlTable } from './url-table';

/** What one confirmation round did with the candidates it took. */
export interface ConfirmRoundReport {
  /** Candidates taken off the shards' lists (repeats of one url_fp counted once). */
  taken: number;
  /** Entries that did not parse (dropped). */
  malformed: number;
  /** In the frontier (queued, leased, waiting for a re-crawl, already confirmed): true positives. */
  inFrontier: number;
  /** Parked host, spilled URLs or a queue longer than the scan bound: left seen. */
  undecided: number;
  /** Fetched before (ClickHouse `urls`): true positives. */
  inUrlTable: number;
  /** The telemetry ingest did not catch up in time: left seen (the next round may see them again). */
  ingestBehind: number;
  /** Found nowhere: false positives of the Bloom filter, marked new and enqueued. */
  confirmedNew: number;
  /** Of those, queued by this round's enqueue (a link may have taken the mark first). */
  enqueued: number;
}

/** How a round works. */
export interface ConfirmRoundOptions {
  /** Candidates taken per shard at most. */
  perShard: number;
  /** Entries of one host's lists read at most when looking for a url_fp. */
  scanMax: number;
  /** How long to wait for the telemetry ingest to store what agents recorded before the look. */
  ingestWaitMs: number;
  signal?: AbortSignal;
}

/** What a round needs. */
export interface ConfirmRoundDeps {
  redis: RedisClient;
  frontier: Frontier;
  analytics: AnalyticsStore;
  /** REDIS_PREFIX: the telemetry stream's. */
  prefix: string;
}

/** A report of nothing done: a round's start, and the loop's running totals. */
export const emptyReport = (): ConfirmRoundReport => ({
  taken: 0,
  malformed: 0,
  inFrontier: 0,
  undecided: 0,
  inUrlTable: 0,
  ingestBehind: 0,
  confirmedNew: 0,
  enqueued: 0,
});

/** Candidates by shard, one per url_fp. */
function byShard(candidates: readonly SeenCandidate[]): Map<number, SeenCandidate[]> {
  const out = new Map<number, SeenCandidate[]>();
  const seen = new Set<string>();
  for (const c of candidates) {
    if (seen.has(c.urlFp)) continue;
    seen.add(c.urlFp);
    const list = out.get(c.shard);
    if (list) list.push(c);
    else out.set(c.shard, [c]);
  }
  return out;
}

/**
 * The frontier's verdict on each shard's candidates; with `mark`, those found nowhere are marked
 * new in the same script call. Returns those found nowhere, and counts the rest into `report`.
 */
async function lookInFrontier(
  frontier: Frontier,
  candidates: readonly SeenCandidate[],
  opts: { mark: boolean; scanMax: number },
  report: ConfirmRoundReport,
): Promise<SeenCandidate[]> {
  const absent: SeenCandidate[] = [];
  await Promise.all(
    [...byShard(candidates)].map(async ([shard, list]) => {
      const verdicts = await frontier.urls.seenSet.checkCandidates(shard, list, opts);
      verdicts.forEach((v, i) => {
        if (v === 'absent') absent.push(list[i]!);
        else if (v === 'present') report.inFrontier++;
        else report.undecided++;
      });
    }),
  );
  return absent;
}

/**
 * One round of the seen set's confirmation: a Bloom filter's "maybe seen" for a discovered URL is
 * checked, and a URL found nowhere is enqueued after all. Safe against a second queue entry or a
 * second fetch, in this order:
 *   1. take candidates off each shard's list (each is taken by one coordinator);
 *   2. look for them in the frontier (queues, leased batches, re-crawls, marks) at time T —
 *      the queues are lists, not keyed by url_fp, so the script reads the host's lists, up to
 *      `scanMax` entries (a longer queue, a parked host or spilled URLs: undecided, left seen);
 *   3. wait until the telemetry ingest has stored what agents recorded before T (an agent
 *      records a fetch before its lease lets go of the URL): a URL absent at T that was ever
 *      fetched is now in ClickHouse `urls`;
 *   4. ask `urls`; the ones it does not know are false positives — unless queued since T, so:
 *   5. look again and mark the absent ones new in one script call (checkSeenCandidates-2.lua);
 *   6. enqueue them: the enqueue script takes a marked url_fp as new once (a link that came
 *      first took the mark and queued it; this enqueue then finds it seen).
 * Anything that cannot be decided stays seen: the Bloom filter's answer, as without confirmation.
 */
export async function confirmSeenCandidates(
  deps: ConfirmRoundDeps,
  opts: ConfirmRoundOptions,
): Promise<ConfirmRoundReport> {
  const { frontier } = deps;
  const report = emptyReport();
  const taken: SeenCandidate[] = [];
  await Promise.all(
    Array.from({ length: frontier.shards }, async (_, shard) => {
      const got = await frontier.urls.seenSet.takeCandidates(shard, opts.perShard);
      taken.push(...got.candidates);
      report.malformed += got.malformed;
    }),
  );
  const unique = [...byShard(taken).values()].flat();
  report.taken = unique.length;
  if (unique.length === 0) return report;

  const look = { mark: false, scanMax: opts.scanMax };
  const absent = await lookInFrontier(frontier, unique, look, report);
  if (absent.length === 0) return report;
  const lookedAt = await redisNowMs(deps.redis);
  const stored = await telemetryStoredUntil(deps.redis, deps.prefix, lookedAt, {
    timeoutMs: opts.ingestWaitMs,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  if (!stored) {
    report.ingestBehind += absent.length;
    return report;
  }
  const known = await urlFpsInUrlTable(
    deps.analytics,
    absent.map((c) => c.urlFp),
  );
  report.inUrlTable += known.size;
  const unknown = absent.filter((c) => !known.has(c.urlFp));
  if (unknown.length === 0) return report;

  const confirmed = await lookInFrontier(frontier, unknown, { ...look, mark: true }, report);
  report.confirmedNew += confirmed.length;
  if (confirmed.length > 0)
    report.enqueued += (await frontier.enqueue(confirmed.map((c) => c.url))).accepted;
  return report;
}
