import type { HostLease, LeasedUrl } from '@crawler/frontier';
import type { AgentResources } from '../agent-resources';
import { HostPacer } from './host-pacer';
import { ensureRobots } from './ensure-robots';
import { fetchAndRecord } from './fetch-and-record';
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
  const cfg = r.config;
  const receivedAt = performance.now();
  // Stop starting requests when one more could outlast the lease.
  const stopAt = receivedAt + lease.leaseMs - cfg.FETCH_TOTAL_TIMEOUT_MS * 2 - 2000;
  const pacer = new HostPacer(lease.gapMs);
  let processed = 0;
  let parkReason: string | undefined;
  let extraDelayMs = 0;
  let failure: { error: string; retryAfterMs: number } | null = null;

  for (const entry of lease.urls) {
    if (shouldStop() || performance.now() + pacer.remainingMs() > stopAt) break;
    const origin = new URL(entry.url).origin;
    const robots = await ensureRobots(r, origin, lease.host, pacer);
    if (robots.kind === 'disallow_all') {
      // 5xx or unreachable robots.txt: fetch nothing, retry later with backoff, park at the limit.
      if (robots.failures >= cfg.ROBOTS_MAX_FAILURES) parkReason = 'robots_unavailable';
      else extraDelayMs = cfg.ROBOTS_RETRY_BASE_MS * 2 ** (robots.failures - 1);
      break;
    }
    pacer.setCrawlDelay(crawlDelayMs(robots));
    if (!robotsAllows(robots, entry.url)) {
      recordDenied(r, lease.host, entry);
      processed++;
      continue;
    }
    if (shouldStop() || performance.now() + pacer.remainingMs() > stopAt) break;
    // An operator's block or rate change applies at once, even in the middle of a lease.
    const policy = await r.frontier.hostPolicy(lease.host);
    if (policy.blocked) break;
    pacer.setBaseGap(policy.gapMs);
    await pacer.wait();
    if ((await r.frontier.hostPolicy(lease.host)).blocked) break;
    failure = (await fetchAndRecord(r, lease.host, entry, pacer)).retry;
    if (failure) break; // the host backs off; this URL is retried later (or dead-lettered)
    processed++;
  }

  const ip = r.http.ipOf(lease.host);
  const ok = failure
    ? (await r.frontier.fail(lease, {
        index: processed,
        error: failure.error,
        retryAfterMs: failure.retryAfterMs,
        ip,
      })) !== null
    : await r.frontier.complete(lease, {
        processed,
        delayMs: Math.max(pacer.remainingMs(), extraDelayMs),
        paceMs: pacer.currentGapMs(),
        ip,
        ...(parkReason ? { parkReason } : {}),
      });
  if (!ok)
    r.log.warn(
      { host: lease.host, leaseId: lease.leaseId },
      'lease was no longer current at completion',
    );
}

function recordDenied(r: AgentResources, host: string, entry: LeasedUrl): void {
  r.counters.robotsDenied++;
  r.telemetry.push({
    url_fp: entry.urlFp,
    url: entry.url,
    host,
    fetched_at: Date.now(),
    status: 0,
    error_code: 'robots_denied',
    bytes: 0,
    fetch_ms: 0,
    content_type: '',
    content_hash: '',
    depth: entry.depth,
    agent_id: r.config.agentId,
    warc_key: '',
    warc_offset: 0,
    warc_length: 0,
    redirect_to: '',
  });
}
