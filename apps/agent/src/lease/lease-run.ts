import type { HostLease, LeasedUrl } from '@crawler/frontier';
import type { AgentResources } from '../agent-resources';
import { telemetryRow } from './archive-response';

/** How a lease's URLs went: how many were processed, and why it stopped early, if it did. */
export interface LeaseRun {
  processed: number;
  failure: { error: string; retryAfterMs: number } | null;
  parkReason?: string;
  extraDelayMs: number;
  /** Concurrent runs only: time until the host's next turn, and its pace (ms). */
  remainingMs?: number;
  paceMs?: number;
}

/** When to stop starting requests: when one more could outlast the lease. */
export function stopStartingAt(r: AgentResources, lease: HostLease, receivedAt: number): number {
  return receivedAt + lease.leaseMs - r.config.FETCH_TOTAL_TIMEOUT_MS * 2 - 2000;
}

/**
 * robots.txt answered 5xx or could not be fetched: fetch nothing, retry later with backoff, and
 * park the host once it has failed ROBOTS_MAX_FAILURES times.
 */
export function robotsUnavailable(r: AgentResources, failures: number, run: LeaseRun): void {
  if (failures >= r.config.ROBOTS_MAX_FAILURES) run.parkReason = 'robots_unavailable';
  else run.extraDelayMs = r.config.ROBOTS_RETRY_BASE_MS * 2 ** (failures - 1);
}

/** A URL robots.txt keeps us from: recorded (not a fetch attempt), never requested. */
export function recordDenied(r: AgentResources, host: string, entry: LeasedUrl): void {
  r.counters.robotsDenied++;
  r.telemetry.push(
    telemetryRow(
      r,
      { urlFp: entry.urlFp, url: entry.url, host, depth: entry.depth, fetchedAt: new Date() },
      { error_code: 'robots_denied' },
    ),
  );
}
