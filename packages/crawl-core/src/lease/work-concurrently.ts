import type { HostLease } from '@crawler/frontier';
import type { AgentResources } from '../agent-resources';
import { crawlDelayMs, robotsAllows, type RobotsState } from '../robots/robots-cache';
import { ensureRobots } from './ensure-robots';
import { fetchAndRecord } from './fetch-and-record';
import { HostPacer } from './host-pacer';
import { recordDenied, robotsUnavailable, stopStartingAt, type LeaseRun } from './lease-run';
import { StartGate } from './start-gate';
import { screenLeasedUrl } from '../quality/screen-urls';
import { probeSoft404 } from '../quality/probe-soft-404';

/**
 * Works a lease over several connections, for a host an operator allowed more than one
 * (`max_connections`). Politeness still holds, per host and per connection:
 * - request starts are spaced by the host's gap (rate limit, Crawl-delay), however many
 *   connections are open: never faster than the host's limit (StartGate);
 * - each connection keeps the slow-host rule for itself: its next request waits
 *   10 × its last fetch time (a HostPacer per connection);
 * - at most `maxConnections` requests are in flight.
 * robots.txt of each origin is settled first, one request at a time. URLs start in lease order;
 * the lease completes with the URLs done in an unbroken run from its head. A failure stops new
 * starts and the lease fails at the first failed URL; URLs after it that had finished are
 * fetched again later (at-least-once: every write is keyed by url_fp and time).
 */
export async function workUrlsConcurrently(
  r: AgentResources,
  lease: HostLease,
  pacer: HostPacer,
  receivedAt: number,
): Promise<LeaseRun> {
  const stopAt = stopStartingAt(r, lease, receivedAt);
  const run: LeaseRun = { processed: 0, failure: null, extraDelayMs: 0 };
  const policy = () => r.policies.get(lease.host);
  const blocked = () => policy()?.blocked === true;
  const shouldStop = () => r.stop.aborted;
  const mayStart = () => r.leases.mayStart(lease);

  const robotsOf = new Map<string, RobotsState>();
  for (const origin of new Set(lease.urls.map((u) => new URL(u.url).origin))) {
    if (shouldStop() || performance.now() + pacer.remainingMs() > stopAt) return run;
    const depth = Math.min(...lease.urls.map((u) => u.depth)); // its Sitemap: lines' depth
    const robots = await ensureRobots(r, origin, lease.host, pacer, depth, mayStart);
    if (robots === null) return run; // the agent stopped while waiting for the host's turn
    if (robots.kind === 'disallow_all') {
      robotsUnavailable(r, robots, run);
      return run;
    }
    pacer.setCrawlDelay(crawlDelayMs(robots));
    robotsOf.set(origin, robots);
  }
  const [firstOrigin, firstRobots] = [...robotsOf][0] ?? [];
  if (
    firstOrigin &&
    firstRobots &&
    !(await probeSoft404(r, lease.host, firstOrigin, firstRobots, pacer, mayStart))
  )
    return run;

  const crawlDelay = Math.max(0, ...[...robotsOf.values()].map(crawlDelayMs));
  const gapMs = () => Math.max(policy()?.gapMs ?? lease.gapMs, crawlDelay);
  const gate = new StartGate(gapMs);
  // After a robots.txt request, the first page waits the host's turn.
  await pacer.wait(r.stop);

  const n = lease.urls.length;
  const done = new Array<boolean>(n).fill(false);
  const finish = (i: number): void => {
    done[i] = true;
    r.leases.done(lease, i);
  };
  let next = 0;
  let stop = false;
  const failures: { index: number; error: string; retryAfterMs: number }[] = [];
  // Per connection, only the adaptive part: the host's gap is the gate's.
  const connections = Array.from(
    { length: Math.min(lease.maxConnections, n) },
    () => new HostPacer(0, 0, 10, 30_000, (ms) => r.lag.serverMs(ms)),
  );

  await Promise.all(
    connections.map(async (own) => {
      while (!stop && next < n) {
        await own.wait(r.stop);
        await gate.turn(r.stop);
        if (stop || next >= n) return;
        if (shouldStop() || blocked() || performance.now() > stopAt || !mayStart()) {
          stop = true;
          return;
        }
        const i = next++;
        const entry = lease.urls[i]!;
        if (!robotsAllows(robotsOf.get(new URL(entry.url).origin)!, entry.url)) {
          recordDenied(r, lease.host, entry);
          finish(i);
          continue;
        }
        const screen = await screenLeasedUrl(r, lease.host, entry);
        if (screen.kind === 'stop') {
          run.extraDelayMs = screen.delayMs;
          stop = true;
          return;
        }
        if (screen.kind === 'skip') {
          finish(i);
          continue;
        }
        const outcome = await r.leases.fetch(() => fetchAndRecord(r, lease.host, entry, own, true));
        if (outcome.retry) {
          stop = true;
          failures.push({ index: i, ...outcome.retry });
          return;
        }
        finish(i);
      }
    }),
  );

  // Starts are in lease order and every started request has ended: the unbroken run of done
  // URLs ends at the first failure, if any.
  while (run.processed < n && done[run.processed]) run.processed++;
  const failure = failures.find((f) => f.index === run.processed);
  if (failure) run.failure = { error: failure.error, retryAfterMs: failure.retryAfterMs };
  run.remainingMs = Math.max(gate.remainingMs(), ...connections.map((c) => c.remainingMs()));
  run.paceMs = Math.max(
    gapMs(),
    Math.max(...connections.map((c) => c.currentGapMs())) / connections.length,
  );
  return run;
}
