import type { HostLease } from '@crawler/frontier';
import type { AgentResources } from '../agent-resources';
import { HostPacer } from './host-pacer';
import { ensureRobots } from './ensure-robots';
import { fetchAndRecord } from './fetch-and-record';
import { recordDenied, robotsUnavailable, stopStartingAt, type LeaseRun } from './lease-run';
import { workUrlsConcurrently } from './work-concurrently';
import { robotsAllows, crawlDelayMs } from '../robots/robots-cache';
import { screenLeasedUrl } from '../quality/screen-urls';
import { probeSoft404 } from '../quality/probe-soft-404';

/**
 * Works one host lease: robots.txt first (from cache or fetched, with the host's pace), then
 * its URLs one at a time over one connection, spaced by the host's gap, stopping early enough
 * that no request outlives the lease (or over several connections where the host allows it:
 * work-concurrently.ts). Completes the lease with how many URLs were processed;
 * the rest return to the head of the host's queue.
 */
export async function processLease(r: AgentResources, lease: HostLease): Promise<void> {
  const receivedAt = performance.now();
  const pacer = new HostPacer(lease.gapMs, 0, 10, 30_000, (ms) => r.lag.serverMs(ms));
  await Promise.all([r.policies.load(lease.host), r.quality.load(lease.host, lease.shard)]);
  let run: LeaseRun;
  try {
    run =
      lease.maxConnections > 1
        ? await workUrlsConcurrently(r, lease, pacer, receivedAt)
        : await workUrls(r, lease, pacer, receivedAt);
  } finally {
    r.policies.forget(lease.host);
    // Saved before the lease completes: the host's next lease, on any agent, starts from it.
    await r.quality
      .release(lease.host)
      .catch((err: unknown) => r.log.warn({ err, host: lease.host }, 'host quality not saved'));
  }
  // The processed URLs' telemetry rows and pages are in Redis before the lease says so.
  if (!(await r.leases.outputsSettledFor(lease)))
    r.log.warn({ host: lease.host }, 'outputs not yet written; ending the lease anyway');

  const ip = r.http.ipOf(lease.host);
  // Retried while Redis is away (restarting): a lease that ends is cheaper than one that expires.
  const ok = await r.leases.end(lease, async () =>
    run.failure
      ? (await r.frontier.fail(lease, {
          index: run.processed,
          error: run.failure.error,
          retryAfterMs: run.failure.retryAfterMs,
          ip,
        })) !== null
      : r.frontier.complete(lease, {
          processed: run.processed,
          delayMs: Math.max(run.remainingMs ?? pacer.remainingMs(), run.extraDelayMs),
          paceMs: run.paceMs ?? pacer.currentGapMs(),
          ip,
          ...(run.parkReason ? { parkReason: run.parkReason } : {}),
        }),
  );
  if (!ok)
    r.log.warn(
      { host: lease.host, leaseId: lease.leaseId },
      'lease was no longer current at completion',
    );
}

async function workUrls(
  r: AgentResources,
  lease: HostLease,
  pacer: HostPacer,
  receivedAt: number,
): Promise<LeaseRun> {
  const stopAt = stopStartingAt(r, lease, receivedAt);
  const run: LeaseRun = { processed: 0, failure: null, extraDelayMs: 0 };
  // The live policy is pushed to the agent, so checking it before every request costs nothing.
  const blocked = () => r.policies.get(lease.host)?.blocked === true;
  const shouldStop = () => r.stop.aborted;
  const mayStart = () => r.leases.mayStart(lease);
  const processed = () => r.leases.done(lease, run.processed++);
  for (const entry of lease.urls) {
    if (shouldStop() || performance.now() + pacer.remainingMs() > stopAt) break;
    const origin = new URL(entry.url).origin;
    const robots = await ensureRobots(r, origin, lease.host, pacer, entry.depth, mayStart);
    if (robots === null) break; // the agent stopped while waiting for the host's turn
    if (robots.kind === 'disallow_all') {
      robotsUnavailable(r, robots, run);
      break;
    }
    pacer.setCrawlDelay(crawlDelayMs(robots));
    if (!robotsAllows(robots, entry.url)) {
      recordDenied(r, lease.host, entry);
      processed();
      continue;
    }
    const screen = await screenLeasedUrl(r, lease.host, entry);
    if (screen.kind === 'skip') {
      processed();
      continue;
    }
    if (screen.kind === 'stop') {
      run.extraDelayMs = screen.delayMs;
      break;
    }
    if (shouldStop() || performance.now() + pacer.remainingMs() > stopAt) break;
    // An operator's block or rate change applies at once, even in the middle of a lease.
    if (blocked()) break;
    pacer.setBaseGap(r.policies.get(lease.host)?.gapMs ?? lease.gapMs);
    await pacer.wait(r.stop);
    // A drain (SIGTERM) that began during the wait starts no new request, nor does a lease
    // that is not surely alive for the request's whole life (renewals failing).
    if (shouldStop() || blocked() || !mayStart()) break;
    run.failure = (await r.leases.fetch(() => fetchAndRecord(r, lease.host, entry, pacer))).retry;
    if (run.failure) break; // the host backs off; this URL is retried later (or dead-lettered)
    processed();
    // The host's one soft-404 probe follows its first page, so that page is not delayed.
    if (r.quality.get(lease.host)?.needsProbe()) {
      if (shouldStop() || performance.now() + pacer.remainingMs() > stopAt) break;
      if (!(await probeSoft404(r, lease.host, origin, robots, pacer, mayStart))) break;
    }
  }
  return run;
}
