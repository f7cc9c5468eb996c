import type { HostLease } from '@crawler/frontier';
import type { AgentResources } from '../agent-resources';
import { crawlDelayMs, type RobotsState } from '../robots/robots-cache';
import { probeSoft404 } from '../quality/probe-soft-404';
import { ConnectionPool } from './connection-pool';
import { ensureRobots } from '../robots/ensure-robots';
import { runUrl } from '../pipeline/run-url';
import type { HostPacer } from './host-pacer';
import { robotsUnavailable, stopStartingAt, type LeaseRun } from './lease-run';

/**
 * Works a lease's URLs over its connections (connection-pool.ts: one, or the host's
 * `max_connections`), every connection running the same loop, one request at a time:
 * - a turn starts at most one request: robots.txt of an origin not yet settled (at the depth of
 *   the URL that needed it; its `Sitemap:` lines are enqueued at that depth), the host's one
 *   soft-404 probe (after its first page, so that page is not delayed), or the next URL in lease
 *   order, which goes its way through the pipeline's steps (pipeline/run-url.ts). A URL
 *   robots.txt denies or the quality rules skip is done without a request. Where
 *   several connections open, robots.txt and the probe come first, one at a time (openPool);
 * - no turn is waited for that could only start after the lease's last start
 *   (`stopStartingAt`), and no request starts once the agent stops (drain), an operator blocks
 *   the host, the feed holds the agent's leasing (page-publisher.ts), or the lease is not surely
 *   alive for the request's whole life (renewals failing);
 * - each URL taken is finished (done, or failed) before its connection takes another; the lease
 *   completes with the URLs done in an unbroken run from its head. A failure (the host backs off;
 *   the URL is retried later or dead-lettered) stops new starts and the lease fails at the first
 *   failed URL; URLs after it that had finished on other connections keep their progress marks
 *   (written before the lease ends: process-lease.ts) and are not fetched again.
 */
export async function workUrls(
  r: AgentResources,
  lease: HostLease,
  receivedAt: number,
): Promise<LeaseRun> {
  const stopAt = stopStartingAt(r, lease, receivedAt);
  const urls = lease.urls;
  const n = urls.length;
  const origins = urls.map((u) => new URL(u.url).origin);
  const pool = new ConnectionPool(r, lease, Math.max(1, Math.min(lease.maxConnections, n)));
  const run: LeaseRun = {
    processed: 0,
    doneBeyond: 0,
    failure: null,
    extraDelayMs: 0,
    remainingMs: 0,
    paceMs: 0,
  };
  // The live policy is pushed to the agent, so checking it before every request costs nothing.
  // A feed full of pages a consumer group has not read, or a Redis nearly full, ends the lease
  // as a block does: its unstarted URLs go back, so the bound is passed by no more than
  // requests in flight.
  const blocked = () =>
    r.policies.get(lease.host)?.blocked === true ||
    r.pages.holdsLeasing ||
    r.redisRoom.holdsLeasing;
  // After a Redis reconnection the lease is confirmed again before a request starts.
  const mayStart = () => r.leases.mayStartConfirmed(lease);
  const done = new Array<boolean>(n).fill(false);
  const finish = (i: number): void => {
    done[i] = true;
    r.leases.done(lease, i);
  };
  const failures: { index: number; error: string; retryAfterMs: number }[] = [];
  /** Each origin's robots state once settled; meanwhile, its settling (by one connection). */
  const robotsOf = new Map<string, RobotsState | Promise<RobotsState | null>>();
  /** The soft-404 probe once due, and where it goes (robots.txt of its origin applies). */
  let probe: { origin: string; robots: RobotsState } | null = null;
  let probeArmed = false;
  let next = 0;
  let stop = false;

  /** An origin's robots state, fetched over `conn` if need be; null when the lease stops. */
  const settleRobots = (origin: string, depth: number, conn: HostPacer) => {
    const settling = ensureRobots(r, origin, lease.host, conn, depth, mayStart).then((robots) => {
      if (robots === null)
        stop = true; // the agent stopped while waiting for the host's turn
      else if (robots.kind === 'disallow_all') {
        robotsUnavailable(r, robots, run);
        stop = true;
      } else {
        pool.setCrawlDelay(crawlDelayMs(robots));
        robotsOf.set(origin, robots);
        return robots;
      }
      return null;
    });
    robotsOf.set(origin, settling);
    return settling;
  };

  /**
   * Several connections open once the host has answered robots.txt (each origin's, at the
   * lease's least depth) and its soft-404 probe, one request at a time over the lead connection,
   * and the host's pace after them has passed. False when the lease stops first.
   */
  const openPool = async (): Promise<boolean> => {
    const depth = Math.min(...urls.map((u) => u.depth));
    let first: RobotsState | null = null;
    for (const origin of new Set(origins)) {
      if (r.stop.aborted || performance.now() + pool.lead.remainingMs() > stopAt) return false;
      const robots = await settleRobots(origin, depth, pool.lead);
      if (robots === null) return false;
      first ??= robots;
    }
    probeArmed = true;
    if (first && !(await probeSoft404(r, lease.host, origins[0]!, first, pool.lead, mayStart)))
      return false;
    await pool.lead.wait(r.stop);
    pool.open();
    return true;
  };

  /** One turn of a connection: true to go on, false when the lease stops starting requests. */
  const takeTurn = async (conn: HostPacer): Promise<boolean> => {
    // A turn that could only start too late, or that a drain or a block would not use, is not
    // waited for.
    if (r.stop.aborted || blocked() || performance.now() + pool.untilTurnMs(conn) > stopAt)
      return false;
    if (probe) {
      const { origin, robots } = probe;
      probe = null;
      return probeSoft404(r, lease.host, origin, robots, conn, mayStart);
    }
    const robotsOfNext = robotsOf.get(origins[next]!);
    if (!robotsOfNext || robotsOfNext instanceof Promise) {
      await (robotsOfNext ?? settleRobots(origins[next]!, urls[next]!.depth, conn));
      return true;
    }
    await conn.wait(r.stop);
    if (stop || next >= n) return true;
    // A drain (SIGTERM) that began during the wait starts no new request, nor does a lease that
    // is not surely alive for the request's whole life (renewals failing). An operator's block
    // applies at once, even in the middle of a lease.
    if (r.stop.aborted || blocked() || performance.now() > stopAt || !(await mayStart()))
      return false;
    // Another connection took the URL this turn was for: the next one may need robots.txt first.
    const robots = robotsOf.get(origins[next]!);
    if (!robots || robots instanceof Promise) return true;
    const i = next++;
    const outcome = await runUrl({
      r,
      host: lease.host,
      entry: urls[i]!,
      pacer: conn,
      multiConnection: pool.multiConnection,
      robots,
    });
    switch (outcome.kind) {
      case 'retry':
        failures.push({ index: i, error: outcome.error, retryAfterMs: outcome.retryAfterMs });
        return false;
      case 'cut':
        return false; // not done: back at the head of the host's queue
      case 'stop':
        run.extraDelayMs = outcome.delayMs;
        return false;
      case 'skip':
        finish(i);
        return true;
      case 'done':
        break;
    }
    finish(i);
    if (!probeArmed && r.quality.get(lease.host)?.needsProbe()) {
      probeArmed = true;
      probe = { origin: origins[i]!, robots };
    }
    return true;
  };

  const work = async (conn: HostPacer): Promise<void> => {
    while (!stop && (probe !== null || next < n)) if (!(await takeTurn(conn))) stop = true;
  };
  if (pool.connections.length === 1 || (await openPool()))
    await Promise.all(pool.connections.map(work));

  // Each URL taken has been finished: the unbroken run of done URLs ends at the first failure,
  // if any.
  while (run.processed < n && done[run.processed]) run.processed++;
  run.doneBeyond = done.slice(run.processed).filter(Boolean).length;
  const failure = failures.find((f) => f.index === run.processed);
  if (failure) run.failure = { error: failure.error, retryAfterMs: failure.retryAfterMs };
  run.remainingMs = pool.remainingMs();
  run.paceMs = pool.paceMs();
  return run;
}
