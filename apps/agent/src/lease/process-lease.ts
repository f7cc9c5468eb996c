import type { HostLease, LeasedUrl } from '@crawler/frontier';
import type { AgentResources } from '../agent-resources';
import { HostPacer } from './host-pacer';
import { ensureRobots } from './ensure-robots';
import { fetchAndRecord } from './fetch-and-record';
import { telemetryRow } from './archive-response';
import { robotsAllows, crawlDelayMs } from '../robots/robots-cache';

/**
 * Works one host lease: robots.txt first (from cache or fetched, with the host's pace), then
 * its URLs one at a time over one connection, spaced by the host's gap, stopping early enough
 * that no request outlives the lease. Completes the lease with how many URLs were processed;
 * the rest return to the head of the host's queue.
 */
export async function processLease(
  r: AgentResources,
  lease: HostLease,
  shouldStop: () => boolean,
): Promise<void> {
  const receivedAt = performance.now();
  const pacer = new HostPacer(lease.gapMs, 0, 10, 30_000, (ms) => r.lag.serverMs(ms));
  await r.policies.load(lease.host);
  let run: LeaseRun;
  try {
    run = await workUrls(r, lease, pacer, shouldStop, receivedAt);
  } finally {
    r.policies.forget(lease.host);
  }

  const ip = r.http.ipOf(lease.host);
  const ok = run.failure
    ? (await r.frontier.fail(lease, {
        index: run.processed,
        error: run.failure.error,
        retryAfterMs: run.failure.retryAfterMs,
        ip,
      })) !== null
    : await r.frontier.complete(lease, {
        processed: run.processed,
        delayMs: Math.max(pacer.remainingMs(), run.extraDelayMs),
        paceMs: pacer.currentGapMs(),
        ip,
        ...(run.parkReason ? { parkReason: run.parkReason } : {}),
      });
  if (!ok)
    r.log.warn(
      { host: lease.host, leaseId: lease.leaseId },
      'lease was no longer current at completion',
    );
}

/** How a lease's URLs went: how many were processed, and why it stopped early, if it did. */
interface LeaseRun {
  processed: number;
  failure: { error: string; retryAfterMs: number } | null;
  parkReason?: string;
  extraDelayMs: number;
}

async function workUrls(
  r: AgentResources,
  lease: HostLease,
  pacer: HostPacer,
  shouldStop: () => boolean,
  receivedAt: number,
): Promise<LeaseRun> {
  const cfg = r.config;
  // Stop starting requests when one more could outlast the lease.
  const stopAt = receivedAt + lease.leaseMs - cfg.FETCH_TOTAL_TIMEOUT_MS * 2 - 2000;
  const run: LeaseRun = { processed: 0, failure: null, extraDelayMs: 0 };
  // The live policy is pushed to the agent, so checking it before every request costs nothing.
  const blocked = () => r.policies.get(lease.host)?.blocked === true;
  for (const entry of lease.urls) {
    if (shouldStop() || performance.now() + pacer.remainingMs() > stopAt) break;
    const origin = new URL(entry.url).origin;
    const robots = await ensureRobots(r, origin, lease.host, pacer);
    if (robots.kind === 'disallow_all') {
      // 5xx or unreachable robots.txt: fetch nothing, retry later with backoff, park at the limit.
      if (robots.failures >= cfg.ROBOTS_MAX_FAILURES) run.parkReason = 'robots_unavailable';
      else run.extraDelayMs = cfg.ROBOTS_RETRY_BASE_MS * 2 ** (robots.failures - 1);
      break;
    }
    pacer.setCrawlDelay(crawlDelayMs(robots));
    if (!robotsAllows(robots, entry.url)) {
      recordDenied(r, lease.host, entry);
      run.processed++;
      continue;
    }
    if (shouldStop() || performance.now() + pacer.remainingMs() > stopAt) break;
    // An operator's block or rate change applies at once, even in the middle of a lease.
    if (blocked()) break;
    pacer.setBaseGap(r.policies.get(lease.host)?.gapMs ?? lease.gapMs);
    await pacer.wait();
    // A drain (SIGTERM) that began during the wait starts no new request.
    if (shouldStop() || blocked()) break;
    run.failure = (await fetchAndRecord(r, lease.host, entry, pacer)).retry;
    if (run.failure) break; // the host backs off; this URL is retried later (or dead-lettered)
    run.processed++;
  }
  return run;
}

function recordDenied(r: AgentResources, host: string, entry: LeasedUrl): void {
  r.counters.robotsDenied++;
  r.telemetry.push(
    telemetryRow(
      r,
      { urlFp: entry.urlFp, url: entry.url, host, depth: entry.depth, fetchedAt: new Date() },
      { error_code: 'robots_denied' },
    ),
  );
}
