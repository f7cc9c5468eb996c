import type { HostLease } from '@crawler/frontier';
import type { AgentResources } from '../agent-resources';
import type { LeaseRun } from './lease-run';
import { workUrls } from './work-urls';

/**
 * Works one host lease: robots.txt first (from cache or fetched, with the host's pace), then its
 * URLs over one connection, or several where the host allows it, spaced by the host's gap,
 * stopping early enough that no request outlives the lease (work-urls.ts). Completes the lease
 * with how many URLs were processed (or fails it at the first failed URL); the rest return to
 * the head of the host's queue.
 */
export async function processLease(r: AgentResources, lease: HostLease): Promise<void> {
  const receivedAt = performance.now();
  await Promise.all([r.policies.load(lease.host), r.quality.load(lease.host, lease.shard)]);
  let run: LeaseRun;
  try {
    run = await workUrls(r, lease, receivedAt);
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
  // URLs finished out of order (several connections) count as done only through their marks.
  if (run.doneBeyond > 0) await r.leases.flushMarks();

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
          delayMs: Math.max(run.remainingMs, run.extraDelayMs),
          paceMs: run.paceMs,
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
